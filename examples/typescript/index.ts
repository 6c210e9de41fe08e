// A VPC and an EKS cluster (pulumi-eks), with Karpenter installed by the karpenter component:
// a default on-demand NodePool and a tainted spot NodePool.
import * as pulumi from "@pulumi/pulumi";
import * as awsx from "@pulumi/awsx";
import * as eks from "@pulumi/eks";
import * as k8s from "@pulumi/kubernetes";
import * as karpenter from "@pulumi-karpenter/karpenter";

// Named up front: Karpenter discovers subnets and security groups by this tag value.
const clusterName = `karpenter-${pulumi.getStack()}`;
const discovery = { "karpenter.sh/discovery": clusterName };

const vpc = new awsx.ec2.Vpc("vpc", {
    subnetSpecs: [
        { type: awsx.ec2.SubnetType.Public },
        { type: awsx.ec2.SubnetType.Private, tags: discovery }, // where Karpenter launches nodes
    ],
    natGateways: { strategy: awsx.ec2.NatGatewayStrategy.Single },
});

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
});

// pulumi-eks v3 exposes the kubeconfig rather than a provider resource.
const provider = new k8s.Provider("cluster", { kubeconfig: cluster.kubeconfigJson }, { parent: cluster });

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
}, { parent: cluster, providers: { kubernetes: provider } });

export const controllerRoleArn = k.controllerRoleArn;
export const nodeRoleArn = k.nodeRoleArn;
export const interruptionQueueName = k.interruptionQueueName;
