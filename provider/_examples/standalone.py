import pulumi
import pulumi_kubernetes as k8s
import pulumi_karpenter as karpenter

# A cluster where Karpenter already runs: its name, the node role's name (the Karpenter
# component's nodeRoleName output) and its kubeconfig come from the stack's config. Set `version`
# on both resources when the cluster runs another Karpenter version than the default.
config = pulumi.Config()
k8s_provider = k8s.Provider("k8s", kubeconfig=config.require_secret("kubeconfig"))

node_class = karpenter.NodeClass(
    "team-a",
    cluster_name=config.require("clusterName"),  # subnets and security groups by its discovery tag
    spec=karpenter.NodeClassSpecArgs(name="team-a", role=config.require("nodeRoleName")),
    opts=pulumi.ResourceOptions(providers={"kubernetes": k8s_provider}),
)

node_pool = karpenter.NodePool(
    "team-a",
    spec=karpenter.NodePoolSpecArgs(name="team-a", node_class_ref="team-a", limits={"cpu": "100"}),
    opts=pulumi.ResourceOptions(providers={"kubernetes": k8s_provider}, depends_on=[node_class]),
)

pulumi.export("nodePoolName", node_pool.node_pool_name)
