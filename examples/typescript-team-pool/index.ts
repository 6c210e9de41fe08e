// A team's spot capacity, from a stack of its own: an EC2NodeClass and a spot NodePool in the
// cluster where another stack (examples/typescript) installed Karpenter. That stack's outputs
// arrive through a StackReference; nothing of it is managed here.
import * as pulumi from "@pulumi/pulumi";
import * as k8s from "@pulumi/kubernetes";
import * as karpenter from "@pulumi-karpenter/karpenter";

// The stack that installed Karpenter, e.g. "my-org/karpenter-example-typescript/dev".
const platform = new pulumi.StackReference(new pulumi.Config().require("platformStack"));

// The same cluster, reached the way the Karpenter component reached it.
const k8sProvider = new k8s.Provider("cluster", {
    kubeconfig: platform.requireOutput("kubeconfig"), // the cluster's kubeconfig JSON (a secret)
});

export = async () => {
    // The installed version decides the objects' API version and fields, so it is a plain value.
    const version = String((await platform.getOutputDetails("version")).value);
    const opts = { providers: { kubernetes: k8sProvider } };

    const nodeClass = new karpenter.NodeClass("team-a", {
        version,
        clusterName: platform.requireOutput("clusterName"), // subnet/security group discovery tag
        spec: {
            name: "team-a",
            role: platform.requireOutput("nodeRoleName"), // the component's node role
            tags: { team: "a" },
        },
    }, opts);

    // Only pods that tolerate team=a:NoSchedule land here. Destroying the stack deletes the pool
    // first (dependsOn) and waits until Karpenter has drained and terminated its nodes.
    const nodePool = new karpenter.NodePool("team-a-spot", {
        version,
        spec: {
            name: "team-a-spot",
            nodeClassRef: "team-a",
            requirements: [
                { key: "karpenter.sh/capacity-type", operator: karpenter.RequirementOperator.In, values: ["spot"] },
                { key: "karpenter.k8s.aws/instance-category", operator: karpenter.RequirementOperator.In, values: ["c", "m", "r"] },
            ],
            taints: [{ key: "team", value: "a", effect: karpenter.TaintEffect.NoSchedule }],
            limits: { cpu: "100" },
        },
    }, { ...opts, dependsOn: [nodeClass] });

    return { nodeClassName: nodeClass.nodeClassName, nodePoolName: nodePool.nodePoolName };
};
