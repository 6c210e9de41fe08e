// Uses the generated SDK the way a program does: the package is resolved by its npm name from
// the tsc build of sdk/nodejs, and the Karpenter component is registered against Pulumi's mocks.
import * as assert from "node:assert/strict";
import { test } from "node:test";

import * as pulumi from "@pulumi/pulumi";
import * as karpenter from "@pulumi-karpenter/karpenter";

// With mocks, a component's outputs are the state the mock returns for its type.
const state = {
    controllerRoleArn: "arn:aws:iam::123456789012:role/karpenter-controller",
    nodeRoleName: "karpenter-node",
    version: "1.14.1",
    nodePoolNames: ["default"],
};

const registered: Record<string, any> = {};

pulumi.runtime.setMocks(
    {
        newResource: (args: pulumi.runtime.MockResourceArgs) => {
            registered[args.type] = args.inputs;
            return {
                id: `${args.name}-id`,
                state: args.type === "karpenter:index:Karpenter" ? { ...args.inputs, ...state } : args.inputs,
            };
        },
        call: (args: pulumi.runtime.MockCallArgs) => args.inputs,
    },
    "project",
    "stack",
    false,
);

function value<T>(output: pulumi.Output<T>): Promise<T> {
    return new Promise((resolve) => output.apply(resolve));
}

test("Karpenter registers through the SDK and exposes typed outputs", async () => {
    const args: karpenter.KarpenterArgs = {
        clusterName: "demo",
        oidcProviderArn: "arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/ABC",
        tags: { team: "platform" },
        // Nested object types and enums from the schema.
        nodePools: [{
            name: "spot",
            requirements: [{
                key: "karpenter.sh/capacity-type",
                operator: karpenter.RequirementOperator.In,
                values: ["spot"],
            }],
            taints: [{ key: "spot", effect: karpenter.TaintEffect.NoSchedule }],
        }],
    };
    const k = new karpenter.Karpenter("karpenter", args);

    const roleArn: string = await value(k.controllerRoleArn);
    const nodeRoleName: string = await value(k.nodeRoleName);
    const version: string = await value(k.version);
    const pools: string[] = await value(k.nodePoolNames);

    assert.equal(roleArn, state.controllerRoleArn);
    assert.equal(nodeRoleName, state.nodeRoleName);
    assert.equal(version, state.version);
    assert.deepEqual(pools, state.nodePoolNames);
    assert.equal(karpenter.Karpenter.isInstance(k), true);
    // The typed arguments reached the engine under their schema names.
    const inputs = registered["karpenter:index:Karpenter"];
    assert.equal(inputs.clusterName, "demo");
    assert.deepEqual(inputs.nodePools[0].taints, [{ key: "spot", effect: "NoSchedule" }]);
    assert.equal(inputs.nodePools[0].requirements[0].operator, "In");
});
