"""A VPC and an EKS cluster (pulumi-eks v4, pulumi-aws v7), with Karpenter installed by the
karpenter component: a default on-demand NodePool and a tainted spot NodePool."""

import pulumi
import pulumi_aws as aws
import pulumi_awsx as awsx
import pulumi_eks as eks
import pulumi_kubernetes as k8s
import pulumi_karpenter as karpenter

# Named up front: Karpenter discovers subnets and security groups by this tag value.
cluster_name = f"karpenter-{pulumi.get_stack()}"
discovery = {"karpenter.sh/discovery": cluster_name}

# One explicit AWS provider for everything, the karpenter component included. The component
# registers its children at pulumi-aws 6.83.2: given no aws provider, they would get a second,
# default v6 provider built from the stack's aws:* config, which does not understand v7-only
# keys such as aws:assumeRoles, so they could run as another identity than the cluster. An
# explicit provider takes its settings from its arguments only: add the profile or assume_roles
# your stack needs.
aws_provider = aws.Provider("aws", region=pulumi.Config("aws").require("region"))

vpc = awsx.ec2.Vpc(
    "vpc",
    subnet_specs=[
        awsx.ec2.SubnetSpecArgs(type=awsx.ec2.SubnetType.PUBLIC),
        # Where Karpenter launches nodes.
        awsx.ec2.SubnetSpecArgs(type=awsx.ec2.SubnetType.PRIVATE, tags=discovery),
    ],
    nat_gateways=awsx.ec2.NatGatewayConfigurationArgs(strategy=awsx.ec2.NatGatewayStrategy.SINGLE),
    opts=pulumi.ResourceOptions(providers={"aws": aws_provider}),
)

cluster = eks.Cluster(
    "cluster",
    name=cluster_name,
    vpc_id=vpc.vpc_id,
    public_subnet_ids=vpc.public_subnet_ids,
    private_subnet_ids=vpc.private_subnet_ids,
    authentication_mode=eks.AuthenticationMode.API,
    create_oidc_provider=True,  # the controller's role is assumed through IRSA
    node_security_group_tags=discovery,
    instance_type="t3.medium",
    desired_capacity=2,  # runs the Karpenter controller itself
    min_size=2,
    max_size=2,
    opts=pulumi.ResourceOptions(providers={"aws": aws_provider}),
)

# pulumi-eks v4 gives Python the kubeconfig, not a Kubernetes provider: build one from it.
k8s_provider = k8s.Provider("cluster", kubeconfig=cluster.kubeconfig_json,
                            opts=pulumi.ResourceOptions(parent=cluster))


def capacity_type(value: str) -> list[karpenter.RequirementArgs]:
    return [karpenter.RequirementArgs(key="karpenter.sh/capacity-type",
                                      operator=karpenter.RequirementOperator.IN_, values=[value])]


k = karpenter.Karpenter(
    "karpenter",
    cluster_name=cluster.eks_cluster.name,
    oidc_provider_arn=cluster.oidc_provider_arn,
    cluster_authentication_mode=karpenter.AuthenticationMode.API,
    node_pools=[
        karpenter.NodePoolSpecArgs(name="default", requirements=capacity_type("on-demand")),
        # Only pods that tolerate spot=true:NoSchedule land on spot capacity.
        karpenter.NodePoolSpecArgs(
            name="spot",
            requirements=capacity_type("spot"),
            taints=[karpenter.TaintArgs(key="spot", value="true", effect=karpenter.TaintEffect.NO_SCHEDULE)],
        ),
    ],
    opts=pulumi.ResourceOptions(parent=cluster, providers={"aws": aws_provider, "kubernetes": k8s_provider}),
)

pulumi.export("controllerRoleArn", k.controller_role_arn)
pulumi.export("nodeRoleArn", k.node_role_arn)
pulumi.export("interruptionQueueName", k.interruption_queue_name)

# Read by a second stack that adds its own pools (examples/python-team-pool).
pulumi.export("clusterName", cluster.eks_cluster.name)
pulumi.export("version", k.version)
pulumi.export("nodeRoleName", k.node_role_name)
pulumi.export("kubeconfig", pulumi.Output.secret(cluster.kubeconfig_json))
