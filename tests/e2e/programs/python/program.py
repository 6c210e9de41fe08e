"""The Python program of the SDK tests: lab/programs/program-sdk.yaml written with pulumi_karpenter (the
wheel `make release-dry-run` builds, pip-installed as a user installs it), run as an Automation API
inline program. There is no Python language host here: the Automation API serves the program from
this process and hands the CLI its address.

Usage: python program.py <preview|up|check|update|destroy|bad|badtype>; the environment is the engine's
(PULUMI_HOME, the local backend, the passphrase, PATH with the CLI) plus E2E_CHART_REPOSITORY.
Prints one JSON line on stdout: {"step", "outputs"?, "error"?}.
"""

import json
import os
import sys
from dataclasses import dataclass
from typing import Any, Dict, List

import pulumi
from pulumi import automation as auto

import pulumi_karpenter as karpenter


class Role(pulumi.CustomResource):
    """The aws stand-in's role, declared without pulumi_aws: the same type token and inputs as
    YAML's aws:iam:Role."""

    name: pulumi.Output[str]
    arn: pulumi.Output[str]

    def __init__(self, name: str, name_prefix: str, assume_role_policy: str, opts: pulumi.ResourceOptions):
        super().__init__("aws:iam/role:Role", name,
                         {"namePrefix": name_prefix, "assumeRolePolicy": assume_role_policy, "name": None, "arn": None}, opts)


class Cluster(pulumi.CustomResource):
    """The aws stand-in's EKS cluster (aws:eks/cluster:Cluster), as YAML's aws:eks:Cluster."""

    name: pulumi.Output[str]
    arn: pulumi.Output[str]
    endpoint: pulumi.Output[str]
    identities: pulumi.Output[Any]

    def __init__(self, name: str, role_arn: pulumi.Input[str], subnet_ids: List[str], opts: pulumi.ResourceOptions):
        super().__init__("aws:eks/cluster:Cluster", name, {
            "name": "e2e-sdk-cluster", "roleArn": role_arn, "vpcConfig": {"subnetIds": subnet_ids},
            "accessConfig": {"authenticationMode": "API"}, "arn": None, "endpoint": None, "identities": None}, opts)


class OpenIdConnectProvider(pulumi.CustomResource):
    arn: pulumi.Output[str]
    url: pulumi.Output[str]

    def __init__(self, name: str, url: pulumi.Input[str], client_id_lists: List[str], opts: pulumi.ResourceOptions):
        super().__init__("aws:iam/openIdConnectProvider:OpenIdConnectProvider", name,
                         {"url": url, "clientIdLists": client_id_lists, "arn": None}, opts)


def trust(service: str) -> str:
    """The same string as YAML's fn::toJSON (keys sorted, no spaces)."""
    return ('{"Statement":[{"Action":"sts:AssumeRole","Effect":"Allow","Principal":'
            '{"Service":"%s"}}],"Version":"2012-10-17"}' % service)


@dataclass
class Variant:
    batch_expire_after: str = "720h"  # the update changes one pool: 720h -> 360h
    bad_operator: bool = False  # a typo'd enum value (Python's types do not stop a plain string)
    bad_weight: bool = False  # a value of the wrong type (neither do they stop a string for an int)


def program(v: Variant):
    def run() -> None:
        aws_provider = pulumi.ProviderResource("aws", "awsProvider", {"region": "us-west-2"},
                                               pulumi.ResourceOptions(version="6.83.2"))
        k8s_provider = pulumi.ProviderResource("kubernetes", "k8sProvider", {},
                                               pulumi.ResourceOptions(version="4.30.0"))
        # The cluster (the aws stand-in's EKS) in the world's VPC, and its OIDC provider.
        subnet_ids = os.environ["E2E_SUBNET_IDS"].split(",")
        cluster_role = Role("clusterRole", "e2e-cluster-", trust("eks.amazonaws.com"), pulumi.ResourceOptions(provider=aws_provider))
        cluster = Cluster("cluster", cluster_role.arn, subnet_ids, pulumi.ResourceOptions(provider=aws_provider))
        oidc = OpenIdConnectProvider(
            "oidcProvider", cluster.identities.apply(lambda ids: ids[0]["oidcs"][0]["issuer"]),
            ["sts.amazonaws.com"], pulumi.ResourceOptions(provider=aws_provider))

        operator = "Inn" if v.bad_operator else karpenter.RequirementOperator.IN_
        k = karpenter.Karpenter(
            "karpenter",
            cluster_name=cluster.name,
            oidc_provider_arn=oidc.arn,
            chart_repository=os.environ["E2E_CHART_REPOSITORY"],
            default_node_pool=False,
            discovery=karpenter.DiscoveryArgs(subnet_ids=subnet_ids, security_group_ids=[os.environ["E2E_SECURITY_GROUP_ID"]]),
            tags={"team": "platform", "cost-center": "4200"},
            node_classes=[karpenter.NodeClassSpecArgs(
                name="general",
                ami_alias="al2023@latest",
                # Wired to the cluster the program makes: unknown at the first preview but the name.
                subnet_selector_terms=[karpenter.SubnetSelectorTermArgs(tags={"karpenter.sh/discovery": cluster.name})],
                tags={"tier": "general", "cluster": cluster.arn},
                user_data=pulumi.Output.concat("#!/bin/bash\necho ", cluster.endpoint, " > /etc/cluster-endpoint\n"),
                metadata_options=karpenter.MetadataOptionsArgs(http_tokens="required", http_put_response_hop_limit=2),
                kubelet=karpenter.KubeletConfigurationArgs(max_pods=110, eviction_hard={"memory.available": "5%"}),
                block_device_mappings=[karpenter.BlockDeviceMappingArgs(
                    device_name="/dev/xvda",
                    ebs=karpenter.BlockDeviceArgs(volume_size="100Gi", volume_type="gp3", encrypted=True),
                )],
            )],
            node_pools=[
                karpenter.NodePoolSpecArgs(
                    name="general",
                    node_class_ref="general",
                    weight="5" if v.bad_weight else 10,  # type: ignore[arg-type]
                    labels={"team": "platform"},
                    annotations={"example.com/oidc-issuer": oidc.url},
                    requirements=[
                        karpenter.RequirementArgs(key="karpenter.sh/capacity-type", operator=operator,
                                                  values=["spot", "on-demand"]),
                        karpenter.RequirementArgs(key="karpenter.k8s.aws/instance-cpu",
                                                  operator=karpenter.RequirementOperator.GT, values=["3"]),
                    ],
                    taints=[karpenter.TaintArgs(key="dedicated", value="general",
                                                effect=karpenter.TaintEffect.NO_SCHEDULE)],
                    limits={"cpu": "1000", "memory": "1000Gi"},
                    disruption=karpenter.DisruptionArgs(
                        consolidation_policy=karpenter.ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED,
                        consolidate_after="1m",
                        budgets=[
                            karpenter.BudgetArgs(nodes="10%"),
                            karpenter.BudgetArgs(nodes="0", schedule="0 9 * * mon-fri", duration="8h",
                                                 reasons=["Drifted"]),
                        ],
                    ),
                ),
                karpenter.NodePoolSpecArgs(
                    name="batch",
                    node_class_ref="general",
                    expire_after=v.batch_expire_after,
                    requirements=[karpenter.RequirementArgs(key="kubernetes.io/arch",
                                                            operator=karpenter.RequirementOperator.IN_,
                                                            values=["arm64"])],
                ),
            ],
            opts=pulumi.ResourceOptions(providers=[aws_provider, k8s_provider]),
        )

        # Another team's class and pool, with a node role of their own (unknown at the first preview).
        team_role = Role("teamRole", "e2e-team-a-", trust("ec2.amazonaws.com"), pulumi.ResourceOptions(provider=aws_provider))
        team_class = karpenter.NodeClass(
            "teamClass",
            cluster_name=cluster.name,
            spec=karpenter.NodeClassSpecArgs(name="team-a", role=team_role.name, tags={"team": "a"}),
            opts=pulumi.ResourceOptions(providers=[k8s_provider], depends_on=[k]),
        )
        team_pool = karpenter.NodePool(
            "teamPool",
            spec=karpenter.NodePoolSpecArgs(
                name="team-a-spot",
                node_class_ref="team-a",
                requirements=[karpenter.RequirementArgs(key="karpenter.sh/capacity-type",
                                                        operator=karpenter.RequirementOperator.IN_, values=["spot"])],
                taints=[karpenter.TaintArgs(key="team", value="a", effect=karpenter.TaintEffect.NO_SCHEDULE)],
                limits={"cpu": "100"},
            ),
            opts=pulumi.ResourceOptions(providers=[k8s_provider], depends_on=[team_class]),
        )

        pulumi.export("clusterName", cluster.name)
        pulumi.export("version", k.version)
        pulumi.export("controllerRoleArn", k.controller_role_arn)
        pulumi.export("nodeRoleName", k.node_role_name)
        pulumi.export("interruptionQueueName", k.interruption_queue_name)
        pulumi.export("nodePoolNames", k.node_pool_names)
        pulumi.export("nodeClassNames", k.node_class_names)
        pulumi.export("teamRoleName", team_role.name)
        pulumi.export("teamNodeClassName", team_class.node_class_name)
        pulumi.export("teamNodePoolName", team_pool.node_pool_name)

        # Read in Python's types inside the program: a list of str and a str.
        def describe(args: List[Any]) -> str:
            pools, version = args
            assert isinstance(pools, list) and all(isinstance(p, str) for p in pools), pools
            assert isinstance(version, str), version
            return f"{len(pools)} pools {','.join(pools)}, version {len(version.split('.'))} parts"

        pulumi.export("languageCheck", pulumi.Output.all(k.node_pool_names, k.version).apply(describe))

    return run


def stack(v: Variant) -> auto.Stack:
    return auto.create_or_select_stack(
        stack_name="dev", project_name="karpenter-e2e", program=program(v),
        opts=auto.LocalWorkspaceOptions(secrets_provider="passphrase"))


def log(s: str) -> None:
    print(s, file=sys.stderr, flush=True)


def typed_outputs(outputs: Dict[str, auto.OutputValue]) -> Dict[str, Any]:
    """Each output's value must have the type the SDK declares: checked here, in the language."""
    want = {
        "clusterName": str, "version": str, "controllerRoleArn": str, "nodeRoleName": str,
        "interruptionQueueName": str, "nodePoolNames": list, "nodeClassNames": list,
        "teamRoleName": str, "teamNodeClassName": str, "teamNodePoolName": str, "languageCheck": str,
    }
    out = {}
    for key, typ in want.items():
        value = outputs[key].value if key in outputs else None
        ok = isinstance(value, typ) and (typ is not list or all(isinstance(x, str) for x in value))
        if not ok:
            raise TypeError(f"output {key}: {value!r} is not a {typ.__name__}")
        out[key] = value
    return out


def failing_preview(v: Variant, what: str) -> Dict[str, Any]:
    """The preview of a bad variant, which must fail: its error."""
    try:
        stack(v).preview(on_output=log)
    except auto.CommandError as e:
        return {"error": str(e)}
    raise RuntimeError(f"the preview with {what} succeeded")


def main(step: str) -> Dict[str, Any]:
    v = Variant()
    if step == "preview":
        stack(v).preview(on_output=log)
        return {}
    if step == "up":
        return {"outputs": typed_outputs(stack(v).up(on_output=log).outputs)}
    if step == "refresh":
        stack(v).refresh(on_output=log)
        return {}
    if step == "check":
        stack(v).preview(expect_no_changes=True, on_output=log)
        return {}
    if step == "update":
        v.batch_expire_after = "360h"
        return {"outputs": typed_outputs(stack(v).up(on_output=log).outputs)}
    if step == "destroy":
        s = stack(v)
        s.destroy(on_output=log)
        s.workspace.remove_stack("dev")
        return {}
    if step == "badtype":
        v.bad_weight = True
        return failing_preview(v, 'weight "5"')
    if step == "bad":
        v.bad_operator = True
        return failing_preview(v, 'operator "Inn"')
    raise ValueError(f"unknown step {step}")


if __name__ == "__main__":
    result = main(sys.argv[1])
    print(json.dumps({"step": sys.argv[1], **result}))
