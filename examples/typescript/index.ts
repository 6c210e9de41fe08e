// A VPC and an EKS cluster (pulumi-eks v4, pulumi-aws v7), with Karpenter installed by the
// karpenter component: a default on-demand NodePool and a tainted spot NodePool.
import * as pulumi from "@pulumi/pulumi";
import * as aws from "@pulumi/aws";
import * as awsx from "@pulumi/awsx";
import * as eks from "@pulumi/eks";
import * as karpenter from "@pulumi-karpenter/karpenter";

// Named up front: Karpenter discovers subnets and security groups by this tag value.
const clusterName = `karpenter-${pulumi.getStack()}`;
const discovery = { "karpenter.sh/discovery": clusterName };

// One explicit AWS provider for everything, the karpenter component included. The component
// registers its children at pulumi-aws 6.83.2: given no aws provider, they would get a second,
// default v6 provider built from the stack's aws:* config, which does not understand v7-only
// keys such as aws:assumeRoles, so they could run as another identity than the cluster. An
// explicit provider takes its settings from its arguments only: add the profile or assumeRoles
// your stack needs.
const awsProvider = new aws.Provider("aws", { region: new pulumi.Config("aws").require("region") });

const vpc = new awsx.ec2.Vpc("vpc", {
    subnetSpecs: [
        { type: awsx.ec2.SubnetType.Public },
        { type: awsx.ec2.SubnetType.Private, tags: discovery }, // where Karpenter launches nodes
    ],
    natGateways: { strategy: awsx.ec2.NatGatewayStrategy.Single },
}, { providers: { aws: awsProvider } });

const cluster = new eks.Cluster("cluster", {
    name: clusterName,
    vpcId: vpc.vpcId,
    publicSubnetIds: vpc.publicSubnetIds,
    privateSubnetIds: vpc.privateSubnetIds,
    authenticationMode: eks.AuthenticationMode.Api,
    createOidcProvider: true, // the controller's role is assumed through IRSA
    nodeSecurityGroupTags: discovery,
    instanceType: "t3.medium",
    desiredCapacity: 2, // runs the Karpenter controller itself
    minSize: 2,
    maxSize: 2,
}, { providers: { aws: awsProvider } });

// The cluster's Kubernetes provider: pulumi-eks v4's Node.js SDK builds it from the cluster's
// kubeconfig on first use (the Python example builds it from kubeconfig_json itself).
const k8sProvider = cluster.provider;

const capacityType = (type: string): karpenter.types.input.RequirementArgs[] => [
    { key: "karpenter.sh/capacity-type", operator: karpenter.RequirementOperator.In, values: [type] },
];

const k = new karpenter.Karpenter("karpenter", {
    clusterName: cluster.eksCluster.name,
    oidcProviderArn: cluster.oidcProviderArn,
    clusterAuthenticationMode: karpenter.AuthenticationMode.Api,
    nodePools: [
        { name: "default", requirements: capacityType("on-demand") },
        // Only pods that tolerate spot=true:NoSchedule land on spot capacity.
        {
            name: "spot",
            requirements: capacityType("spot"),
            taints: [{ key: "spot", value: "true", effect: karpenter.TaintEffect.NoSchedule }],
        },
    ],
// Not `parent: cluster`: the Node.js SDK hangs registering a component whose inputs come from its
// parent when both are multi-language components (eks.Cluster is one since pulumi-eks v3).
}, { providers: { aws: awsProvider, kubernetes: k8sProvider } });

export const controllerRoleArn = k.controllerRoleArn;
export const nodeRoleArn = k.nodeRoleArn;
export const interruptionQueueName = k.interruptionQueueName;

// Read by a second stack that adds its own pools (examples/typescript-team-pool).
export { clusterName }; // the cluster is named clusterName
export const version = k.version;
export const nodeRoleName = k.nodeRoleName;
export const kubeconfig = pulumi.secret(cluster.kubeconfigJson);
