"""A team's spot capacity, from a stack of its own: an EC2NodeClass and a spot NodePool in the
cluster where another stack (examples/python) installed Karpenter. That stack's outputs arrive
through a StackReference; nothing of it is managed here."""

import pulumi
import pulumi_kubernetes as k8s
import pulumi_karpenter as karpenter

# The stack that installed Karpenter, e.g. "my-org/karpenter-example-python/dev".
platform = pulumi.StackReference(pulumi.Config().require("platformStack"))

# The same cluster, reached the way the Karpenter component reached it.
k8s_provider = k8s.Provider("cluster", kubeconfig=platform.require_output("kubeconfig"))
opts = pulumi.ResourceOptions(providers={"kubernetes": k8s_provider})


def team_a(version: str) -> dict[str, pulumi.Output[str]]:
    """The team's class and pool, for the Karpenter version the main stack installed."""
    node_class = karpenter.NodeClass(
        "team-a",
        version=version,
        cluster_name=platform.require_output("clusterName"),  # subnet/security group discovery tag
        spec=karpenter.NodeClassSpecArgs(
            name="team-a",
            role=platform.require_output("nodeRoleName"),  # the component's node role
            tags={"team": "a"},
        ),
        opts=opts,
    )

    # Only pods that tolerate team=a:NoSchedule land here. Destroying the stack deletes the pool
    # first (depends_on) and waits until Karpenter has drained and terminated its nodes.
    node_pool = karpenter.NodePool(
        "team-a-spot",
        version=version,
        spec=karpenter.NodePoolSpecArgs(
            name="team-a-spot",
            node_class_ref="team-a",
            requirements=[
                karpenter.RequirementArgs(key="karpenter.sh/capacity-type",
                                          operator=karpenter.RequirementOperator.IN_, values=["spot"]),
                karpenter.RequirementArgs(key="karpenter.k8s.aws/instance-category",
                                          operator=karpenter.RequirementOperator.IN_, values=["c", "m", "r"]),
            ],
            taints=[karpenter.TaintArgs(key="team", value="a", effect=karpenter.TaintEffect.NO_SCHEDULE)],
            limits={"cpu": "100"},
        ),
        opts=pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=[node_class])),
    )
    return {"nodeClassName": node_class.node_class_name, "nodePoolName": node_pool.node_pool_name}


# The installed version decides the objects' API version and fields, so it is a plain input: the
# resources are declared once the main stack's output is read (stack outputs are known at preview).
names = platform.require_output("version").apply(lambda v: team_a(str(v)))
pulumi.export("nodeClassName", names["nodeClassName"])
pulumi.export("nodePoolName", names["nodePoolName"])
