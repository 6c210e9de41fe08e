// A VPC and an EKS cluster (pulumi-eks v4, pulumi-aws v7), with Karpenter installed by the
// karpenter component: a default on-demand NodePool and a tainted spot NodePool.
using Pulumi;
using Aws = Pulumi.Aws;
using Pulumi.Awsx.Ec2;
using Awsx = Pulumi.Awsx.Ec2.Inputs;
using Eks = Pulumi.Eks;
using K8s = Pulumi.Kubernetes;
using PulumiKarpenter.Karpenter;
using KarpenterInputs = PulumiKarpenter.Karpenter.Inputs;

return await Deployment.RunAsync(() =>
{
    // Named up front: Karpenter discovers subnets and security groups by this tag value.
    var clusterName = $"karpenter-{Deployment.Instance.StackName}";
    var discovery = new InputMap<string> { { "karpenter.sh/discovery", clusterName } };

    // One explicit AWS provider for everything, the karpenter component included. The component
    // registers its children at pulumi-aws 6.83.2: given no aws provider, they would get a second,
    // default v6 provider built from the stack's aws:* config, which does not understand v7-only
    // keys such as aws:assumeRoles, so they could run as another identity than the cluster. An
    // explicit provider takes its settings from its arguments only: add the profile or
    // AssumeRoles your stack needs.
    var awsProvider = new Aws.Provider("aws", new Aws.ProviderArgs { Region = new Config("aws").Require("region") });

    var vpc = new Vpc("vpc", new VpcArgs
    {
        SubnetSpecs =
        {
            new Awsx.SubnetSpecArgs { Type = SubnetType.Public },
            new Awsx.SubnetSpecArgs { Type = SubnetType.Private, Tags = discovery }, // where Karpenter launches nodes
        },
        NatGateways = new Awsx.NatGatewayConfigurationArgs { Strategy = NatGatewayStrategy.Single },
    }, new ComponentResourceOptions { Providers = { awsProvider } });

    var cluster = new Eks.Cluster("cluster", new Eks.ClusterArgs
    {
        Name = clusterName,
        VpcId = vpc.VpcId,
        PublicSubnetIds = vpc.PublicSubnetIds,
        PrivateSubnetIds = vpc.PrivateSubnetIds,
        AuthenticationMode = Eks.AuthenticationMode.Api,
        CreateOidcProvider = true, // the controller's role is assumed through IRSA
        NodeSecurityGroupTags = discovery,
        InstanceType = "t3.medium",
        DesiredCapacity = 2, // runs the Karpenter controller itself
        MinSize = 2,
        MaxSize = 2,
    }, new ComponentResourceOptions { Providers = { awsProvider } });

    // pulumi-eks v4 gives .NET the kubeconfig, not a Kubernetes provider: build one from it.
    var k8sProvider = new K8s.Provider("cluster", new K8s.ProviderArgs { KubeConfig = cluster.KubeconfigJson },
        new CustomResourceOptions { Parent = cluster });

    KarpenterInputs.RequirementArgs CapacityType(string type) => new()
    {
        Key = "karpenter.sh/capacity-type",
        Operator = RequirementOperator.In,
        Values = { type },
    };

    var karpenter = new Karpenter("karpenter", new KarpenterArgs
    {
        ClusterName = cluster.EksCluster.Apply(c => c.Name),
        OidcProviderArn = cluster.OidcProviderArn,
        ClusterAuthenticationMode = AuthenticationMode.Api,
        NodePools =
        {
            new KarpenterInputs.NodePoolSpecArgs { Name = "default", Requirements = { CapacityType("on-demand") } },
            // Only pods that tolerate spot=true:NoSchedule land on spot capacity.
            new KarpenterInputs.NodePoolSpecArgs
            {
                Name = "spot",
                Requirements = { CapacityType("spot") },
                Taints = { new KarpenterInputs.TaintArgs { Key = "spot", Value = "true", Effect = TaintEffect.NoSchedule } },
            },
        },
    // Not parented to the cluster: that is proven not to hang only in Python and YAML.
    }, new ComponentResourceOptions { Providers = { awsProvider, k8sProvider } });

    return new Dictionary<string, object?>
    {
        ["controllerRoleArn"] = karpenter.ControllerRoleArn,
        ["nodeRoleArn"] = karpenter.NodeRoleArn,
        ["interruptionQueueName"] = karpenter.InterruptionQueueName,
    };
});
