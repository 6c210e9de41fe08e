// Generated-only: the C# SDK is generated from the same schema, but this project's checks have no
// .NET toolchain, so neither the SDK nor this example is compiled there (the other languages' are).
using System.Collections.Generic;
using Pulumi;
using K8s = Pulumi.Kubernetes;
using PulumiKarpenter.Karpenter;
using KarpenterInputs = PulumiKarpenter.Karpenter.Inputs;

return await Deployment.RunAsync(() =>
{
    // A cluster where Karpenter already runs: its name, the node role's name (the Karpenter
    // component's nodeRoleName output) and its kubeconfig come from the stack's config. Set Version
    // on both resources when the cluster runs another Karpenter version than the default.
    var config = new Config();
    var k8sProvider = new K8s.Provider("k8s", new K8s.ProviderArgs { KubeConfig = config.RequireSecret("kubeconfig") });

    var nodeClass = new NodeClass("team-a", new NodeClassArgs
    {
        ClusterName = config.Require("clusterName"), // subnets and security groups by its discovery tag
        Spec = new KarpenterInputs.NodeClassSpecArgs { Name = "team-a", Role = config.Require("nodeRoleName") },
    }, new ComponentResourceOptions { Providers = { k8sProvider } });

    var nodePool = new NodePool("team-a", new NodePoolArgs
    {
        Spec = new KarpenterInputs.NodePoolSpecArgs
        {
            Name = "team-a",
            NodeClassRef = "team-a",
            Limits = { { "cpu", "100" } },
        },
    }, new ComponentResourceOptions { Providers = { k8sProvider }, DependsOn = { nodeClass } });

    return new Dictionary<string, object?>
    {
        ["nodePoolName"] = nodePool.NodePoolName,
    };
});
