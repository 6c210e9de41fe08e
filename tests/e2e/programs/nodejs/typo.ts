// Compiled on its own by the SDK test, which expects tsc to refuse it: a user's typo'd enum value
// and a wrong type, caught by the SDK's types before anything runs. Not part of the program.
import * as karpenter from "@pulumi-karpenter/karpenter";

new karpenter.Karpenter("karpenter", {
    clusterName: "c",
    nodePools: [{
        name: "general",
        weight: "5",
        requirements: [{ key: "karpenter.sh/capacity-type", operator: "Inn", values: ["spot"] }],
    }],
});
