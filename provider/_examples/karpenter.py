import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s
import pulumi_karpenter as karpenter

# An existing EKS cluster: its name, IAM OIDC provider ARN and kubeconfig come from the stack's config.
config = pulumi.Config()

# Pass both providers: without them the component's children get default ones, built from the
# stack's aws:* and kubernetes:* config.
aws_provider = aws.Provider("aws", region=pulumi.Config("aws").require("region"))
k8s_provider = k8s.Provider("k8s", kubeconfig=config.require_secret("kubeconfig"))

# IAM, the interruption queue, the karpenter-crd and karpenter releases, and a default NodePool.
karpenter_install = karpenter.Karpenter(
    "karpenter",
    cluster_name=config.require("clusterName"),
    oidc_provider_arn=config.require("oidcProviderArn"),
    opts=pulumi.ResourceOptions(providers={"aws": aws_provider, "kubernetes": k8s_provider}),
)

pulumi.export("nodeRoleName", karpenter_install.node_role_name)
