import * as pulumi from "@pulumi/pulumi";
import * as k8s from "@pulumi/kubernetes";
import * as karpenter from "@pulumi-karpenter/karpenter";

// A cluster where Karpenter already runs: its name, the node role's name (the Karpenter
// component's nodeRoleName output) and its kubeconfig come from the stack's config. Set `version`
// on both resources when the cluster runs another Karpenter version than the default.
const config = new pulumi.Config();
const k8sProvider = new k8s.Provider("k8s", { kubeconfig: config.requireSecret("kubeconfig") });

const nodeClass = new karpenter.NodeClass("team-a", {
    clusterName: config.require("clusterName"), // subnets and security groups by its discovery tag
    spec: { name: "team-a", role: config.require("nodeRoleName") },
}, { providers: { kubernetes: k8sProvider } });

const nodePool = new karpenter.NodePool("team-a", {
    spec: { name: "team-a", nodeClassRef: "team-a", limits: { cpu: "100" } },
}, { providers: { kubernetes: k8sProvider }, dependsOn: [nodeClass] });

export const nodePoolName = nodePool.nodePoolName;
