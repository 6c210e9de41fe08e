// An EKS Auto Mode cluster (pulumi-eks v4, pulumi-aws v7): AWS runs Karpenter, and the karpenter
// component adds a GPU NodeClass and NodePool and a spot NodePool, typed, with the node role and
// the EC2 access entry their nodes need to join.
import * as pulumi from "@pulumi/pulumi";
import * as aws from "@pulumi/aws";
import * as awsx from "@pulumi/awsx";
import * as eks from "@pulumi/eks";
import * as karpenter from "@pulumi-karpenter/karpenter";

const clusterName = `automode-${pulumi.getStack()}`;
const discovery = { "karpenter.sh/discovery": clusterName };

// One explicit AWS provider for everything, the karpenter component included (its children
// would otherwise get a default v6 provider from the stack's aws:* config).
const awsProvider = new aws.Provider("aws", { region: new pulumi.Config("aws").require("region") });

const vpc = new awsx.ec2.Vpc("vpc", {
    subnetSpecs: [
        { type: awsx.ec2.SubnetType.Public },
        { type: awsx.ec2.SubnetType.Private, tags: discovery }, // where the custom pools launch nodes
    ],
    natGateways: { strategy: awsx.ec2.NatGatewayStrategy.Single },
}, { providers: { aws: awsProvider } });

// Auto Mode with its built-in system and general-purpose pools; access entries only (Auto Mode
// needs them).
const cluster = new eks.Cluster("cluster", {
    name: clusterName,
    vpcId: vpc.vpcId,
    publicSubnetIds: vpc.publicSubnetIds,
    privateSubnetIds: vpc.privateSubnetIds,
    authenticationMode: eks.AuthenticationMode.Api,
    autoMode: { enabled: true },
}, { providers: { aws: awsProvider } });

const auto = new karpenter.Karpenter("auto", {
    mode: karpenter.Mode.AutoMode,
    clusterName: cluster.eksCluster.name,
    defaultNodePool: false,
    nodeClasses: [{
        name: "gpu",
        // The cluster security group: EFA and GPU nodes outside it launch and never join.
        securityGroupSelectorTerms: [{ id: cluster.eksCluster.vpcConfig.clusterSecurityGroupId }],
        ephemeralStorage: { size: "200Gi", throughput: 500 },
        // One IP per pod: GPU nodes run few pods, so /28 prefixes would waste addresses.
        advancedNetworking: { ipv4PrefixSize: karpenter.Ipv4PrefixSize.Secondary },
        tags: { workload: "gpu" },
    }, {
        name: "spot",
        securityGroupSelectorTerms: [{ id: cluster.eksCluster.vpcConfig.clusterSecurityGroupId }],
    }],
    nodePools: [
        {
            name: "gpu",
            nodeClassRef: "gpu",
            requirements: [
                { key: "eks.amazonaws.com/instance-gpu-manufacturer", operator: karpenter.RequirementOperator.In, values: ["nvidia"] },
                { key: "eks.amazonaws.com/instance-family", operator: karpenter.RequirementOperator.In, values: ["g6", "g6e"] },
                { key: "karpenter.sh/capacity-type", operator: karpenter.RequirementOperator.In, values: ["on-demand"] },
            ],
            // Only pods that tolerate the GPU taint land here.
            taints: [{ key: "nvidia.com/gpu", effect: karpenter.TaintEffect.NoSchedule }],
            limits: { "nvidia.com/gpu": "8" },
            disruption: { consolidationPolicy: karpenter.ConsolidationPolicy.WhenEmpty, consolidateAfter: "10m" },
        },
        {
            name: "spot",
            nodeClassRef: "spot",
            requirements: [
                { key: "karpenter.sh/capacity-type", operator: karpenter.RequirementOperator.In, values: ["spot"] },
                { key: "eks.amazonaws.com/instance-category", operator: karpenter.RequirementOperator.In, values: ["c", "m", "r"] },
            ],
            expireAfter: "168h", // Auto Mode allows at most 504h, terminationGracePeriod included
            limits: { cpu: "500" },
        },
    ],
}, { providers: { aws: awsProvider, kubernetes: cluster.provider } });

export const nodeRoleName = auto.nodeRoleName;
export const nodePoolNames = auto.nodePoolNames;
export const nodeClassNames = auto.nodeClassNames;
