"""Uses the generated pulumi_karpenter package the way a program does, against Pulumi's mocks.

With mocks, a component's outputs are the state the mock returns for its type, so the values
below must come back through the SDK's typed output properties.
"""

import pulumi

STATE = {
    "controllerRoleArn": "arn:aws:iam::123456789012:role/karpenter-controller",
    "nodeRoleName": "karpenter-node",
    "version": "1.14.1",
    "nodePoolNames": ["default"],
}


class Mocks(pulumi.runtime.Mocks):
    def __init__(self):
        self.registered = {}

    def new_resource(self, args: pulumi.runtime.MockResourceArgs):
        self.registered[args.typ] = dict(args.inputs)
        state = dict(args.inputs)
        if args.typ == "karpenter:index:Karpenter":
            state.update(STATE)
        return [f"{args.name}-id", state]

    def call(self, args: pulumi.runtime.MockCallArgs):
        return {}


mocks = Mocks()
pulumi.runtime.set_mocks(mocks, preview=False)

import pulumi_karpenter as karpenter  # noqa: E402  (mocks first, as Pulumi's guide does)


@pulumi.runtime.test
def test_karpenter_outputs():
    k = karpenter.Karpenter(
        "karpenter",
        cluster_name="demo",
        oidc_provider_arn="arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/ABC",
        tags={"team": "platform"},
        # Nested object types and enums from the schema.
        node_pools=[
            karpenter.NodePoolSpecArgs(
                name="spot",
                requirements=[
                    karpenter.RequirementArgs(
                        key="karpenter.sh/capacity-type",
                        operator=karpenter.RequirementOperator.IN_,
                        values=["spot"],
                    )
                ],
                taints=[karpenter.TaintArgs(key="spot", effect=karpenter.TaintEffect.NO_SCHEDULE)],
            )
        ],
    )

    def check(values):
        role_arn, node_role_name, version, pools = values
        assert role_arn == STATE["controllerRoleArn"]
        assert node_role_name == STATE["nodeRoleName"]
        assert version == STATE["version"]
        assert pools == STATE["nodePoolNames"]
        # The snake_case arguments reached the engine under their schema names.
        inputs = mocks.registered["karpenter:index:Karpenter"]
        assert inputs["clusterName"] == "demo"
        assert inputs["tags"] == {"team": "platform"}
        pool = inputs["nodePools"][0]
        assert pool["taints"] == [{"key": "spot", "effect": "NoSchedule"}]
        assert pool["requirements"][0]["operator"] == "In"

    return pulumi.Output.all(k.controller_role_arn, k.node_role_name, k.version, k.node_pool_names).apply(check)
