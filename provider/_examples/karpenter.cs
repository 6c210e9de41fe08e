// Generated-only: the C# SDK is generated from the same schema, but this project's checks have no
// .NET toolchain, so neither the SDK nor this example is compiled there (the other languages' are).
using System.Collections.Generic;
using Pulumi;
using Aws = Pulumi.Aws;
using K8s = Pulumi.Kubernetes;
using PulumiKarpenter.Karpenter;

return await Deployment.RunAsync(() =>
{
    // An existing EKS cluster: its name, IAM OIDC provider ARN and kubeconfig come from the stack's config.
    var config = new Config();

    // Pass both providers: without them the component's children get default ones, built from
    // the stack's aws:* and kubernetes:* config.
    var awsProvider = new Aws.Provider("aws", new Aws.ProviderArgs { Region = new Config("aws").Require("region") });
    var k8sProvider = new K8s.Provider("k8s", new K8s.ProviderArgs { KubeConfig = config.RequireSecret("kubeconfig") });

    // IAM, the interruption queue, the karpenter-crd and karpenter releases, and a default NodePool.
    var karpenterInstall = new Karpenter("karpenter", new KarpenterArgs
    {
        ClusterName = config.Require("clusterName"),
        OidcProviderArn = config.Require("oidcProviderArn"),
    }, new ComponentResourceOptions { Providers = { awsProvider, k8sProvider } });

    return new Dictionary<string, object?>
    {
        ["nodeRoleName"] = karpenterInstall.NodeRoleName,
    };
});
