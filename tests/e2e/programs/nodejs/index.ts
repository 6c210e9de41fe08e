// The TypeScript program of the SDK tests: lab/programs/program-sdk.yaml written with
// @pulumi-karpenter/karpenter (the npm tarball `make release-dry-run` builds, installed as a user
// installs it), run as an Automation API inline program. There is no Node.js language host here:
// the Automation API serves the program from this process and hands the CLI its address.
//
// Usage: node index.js <preview|up|check|update|destroy|bad>; the environment is the engine's
// (PULUMI_HOME, the local backend, the passphrase, PATH with the CLI) plus E2E_CHART_REPOSITORY.
// Prints one JSON line on stdout: {"step", "outputs"?, "error"?}.
import * as pulumi from "@pulumi/pulumi";
import { LocalWorkspace, Stack } from "@pulumi/pulumi/automation";
import * as karpenter from "@pulumi-karpenter/karpenter";

// The aws stand-in's resources, declared without @pulumi/aws (its npm package is not needed for
// four resources): the engine sees the same type tokens and inputs as from YAML's aws:iam:Role.
class Role extends pulumi.CustomResource {
    declare readonly name: pulumi.Output<string>;
    declare readonly arn: pulumi.Output<string>;
    constructor(name: string, args: { namePrefix: string; assumeRolePolicy: string }, opts: pulumi.CustomResourceOptions) {
        super("aws:iam/role:Role", name, { ...args, name: undefined, arn: undefined }, opts);
    }
}
class Cluster extends pulumi.CustomResource {
    declare readonly name: pulumi.Output<string>;
    declare readonly arn: pulumi.Output<string>;
    declare readonly endpoint: pulumi.Output<string>;
    declare readonly identities: pulumi.Output<{ oidcs: { issuer: string }[] }[]>;
    constructor(name: string, args: { name: string; roleArn: pulumi.Input<string>; vpcConfig: { subnetIds: string[] }; accessConfig: { authenticationMode: string } },
        opts: pulumi.CustomResourceOptions) {
        super("aws:eks/cluster:Cluster", name, { ...args, arn: undefined, endpoint: undefined, identities: undefined }, opts);
    }
}
class OpenIdConnectProvider extends pulumi.CustomResource {
    declare readonly arn: pulumi.Output<string>;
    declare readonly url: pulumi.Output<string>;
    constructor(name: string, args: { url: pulumi.Input<string>; clientIdLists: string[] }, opts: pulumi.CustomResourceOptions) {
        super("aws:iam/openIdConnectProvider:OpenIdConnectProvider", name, { ...args, arn: undefined }, opts);
    }
}

// An explicit provider of a package whose SDK the program does not need (ProviderResource is
// abstract).
class Provider extends pulumi.ProviderResource {
    constructor(pkg: string, name: string, args: pulumi.Inputs, opts: pulumi.ResourceOptions) {
        super(pkg, name, args, opts);
    }
}

// The same strings as YAML's fn::toJSON (keys sorted, no spaces).
const trust = (service: string) =>
    `{"Statement":[{"Action":"sts:AssumeRole","Effect":"Allow","Principal":{"Service":"${service}"}}],"Version":"2012-10-17"}`;

interface Variant {
    batchExpireAfter: string; // the update changes one pool: 720h -> 360h
    badOperator: boolean;     // a typo'd enum, past the type checker as a user's `as any` would be
}

function program(v: Variant) {
    return async () => {
        const awsProvider = new Provider("aws", "awsProvider", { region: "us-west-2" }, { version: "6.83.2" });
        const k8sProvider = new Provider("kubernetes", "k8sProvider", {}, { version: "4.30.0" });
        // The cluster (the aws stand-in's EKS) in the world's VPC, and its OIDC provider.
        const subnetIds = process.env.E2E_SUBNET_IDS!.split(",");
        const clusterRole = new Role("clusterRole", { namePrefix: "e2e-cluster-", assumeRolePolicy: trust("eks.amazonaws.com") }, { provider: awsProvider });
        const cluster = new Cluster("cluster", {
            name: "e2e-sdk-cluster",
            roleArn: clusterRole.arn,
            vpcConfig: { subnetIds },
            accessConfig: { authenticationMode: "API" },
        }, { provider: awsProvider });
        const oidc = new OpenIdConnectProvider("oidcProvider", {
            url: cluster.identities.apply(ids => ids[0].oidcs[0].issuer),
            clientIdLists: ["sts.amazonaws.com"],
        }, { provider: awsProvider });

        const operator = v.badOperator ? ("Inn" as any) : karpenter.RequirementOperator.In;
        const k = new karpenter.Karpenter("karpenter", {
            clusterName: cluster.name,
            oidcProviderArn: oidc.arn,
            chartRepository: process.env.E2E_CHART_REPOSITORY,
            defaultNodePool: false,
            discovery: { subnetIds, securityGroupIds: [process.env.E2E_SECURITY_GROUP_ID!] },
            tags: { team: "platform", "cost-center": "4200" },
            nodeClasses: [{
                name: "general",
                amiAlias: "al2023@latest",
                // Wired to the cluster the program makes: unknown at the first preview but the name.
                subnetSelectorTerms: [{ tags: { "karpenter.sh/discovery": cluster.name } }],
                tags: { tier: "general", cluster: cluster.arn },
                userData: pulumi.interpolate`#!/bin/bash\necho ${cluster.endpoint} > /etc/cluster-endpoint\n`,
                metadataOptions: { httpTokens: "required", httpPutResponseHopLimit: 2 },
                kubelet: { maxPods: 110, evictionHard: { "memory.available": "5%" } },
                blockDeviceMappings: [{
                    deviceName: "/dev/xvda",
                    ebs: { volumeSize: "100Gi", volumeType: "gp3", encrypted: true },
                }],
            }],
            nodePools: [
                {
                    name: "general",
                    nodeClassRef: "general",
                    weight: 10,
                    labels: { team: "platform" },
                    annotations: { "example.com/oidc-issuer": oidc.url },
                    requirements: [
                        { key: "karpenter.sh/capacity-type", operator, values: ["spot", "on-demand"] },
                        { key: "karpenter.k8s.aws/instance-cpu", operator: karpenter.RequirementOperator.Gt, values: ["3"] },
                    ],
                    taints: [{ key: "dedicated", value: "general", effect: karpenter.TaintEffect.NoSchedule }],
                    limits: { cpu: "1000", memory: "1000Gi" },
                    disruption: {
                        consolidationPolicy: karpenter.ConsolidationPolicy.WhenEmptyOrUnderutilized,
                        consolidateAfter: "1m",
                        budgets: [
                            { nodes: "10%" },
                            { nodes: "0", schedule: "0 9 * * mon-fri", duration: "8h", reasons: ["Drifted"] },
                        ],
                    },
                },
                {
                    name: "batch",
                    nodeClassRef: "general",
                    expireAfter: v.batchExpireAfter,
                    requirements: [{ key: "kubernetes.io/arch", operator: karpenter.RequirementOperator.In, values: ["arm64"] }],
                },
            ],
        }, { providers: [awsProvider, k8sProvider] });

        // Another team's class and pool, with a node role of their own (unknown at the first preview).
        const teamRole = new Role("teamRole", { namePrefix: "e2e-team-a-", assumeRolePolicy: trust("ec2.amazonaws.com") }, { provider: awsProvider });
        const teamClass = new karpenter.NodeClass("teamClass", {
            clusterName: cluster.name,
            spec: { name: "team-a", role: teamRole.name, tags: { team: "a" } },
        }, { providers: [k8sProvider], dependsOn: [k] });
        const teamPool = new karpenter.NodePool("teamPool", {
            spec: {
                name: "team-a-spot",
                nodeClassRef: "team-a",
                requirements: [{ key: "karpenter.sh/capacity-type", operator: karpenter.RequirementOperator.In, values: ["spot"] }],
                taints: [{ key: "team", value: "a", effect: karpenter.TaintEffect.NoSchedule }],
                limits: { cpu: "100" },
            },
        }, { providers: [k8sProvider], dependsOn: [teamClass] });

        return {
            clusterName: cluster.name,
            version: k.version,
            controllerRoleArn: k.controllerRoleArn,
            nodeRoleName: k.nodeRoleName,
            interruptionQueueName: k.interruptionQueueName,
            nodePoolNames: k.nodePoolNames,
            nodeClassNames: k.nodeClassNames,
            teamRoleName: teamRole.name,
            teamNodeClassName: teamClass.nodeClassName,
            teamNodePoolName: teamPool.nodePoolName,
            // Read in TypeScript's types inside the program: string[] and string, not any.
            languageCheck: pulumi.all([k.nodePoolNames, k.version]).apply(([pools, version]: [string[], string]) =>
                `${pools.length} pools ${pools.join(",")}, version ${version.split(".").length} parts`),
        };
    };
}

async function stack(v: Variant): Promise<Stack> {
    return LocalWorkspace.createOrSelectStack(
        { projectName: "karpenter-e2e", stackName: "dev", program: program(v) },
        { secretsProvider: "passphrase" },
    );
}

const log = (s: string) => process.stderr.write(s);

// Each output's value must have the type the SDK declares: checked here, in the language.
function typedOutputs(outputs: Record<string, { value: any; secret: boolean }>): Record<string, unknown> {
    const want: Record<string, string> = {
        clusterName: "string", version: "string", controllerRoleArn: "string", nodeRoleName: "string",
        interruptionQueueName: "string", nodePoolNames: "string[]", nodeClassNames: "string[]",
        teamRoleName: "string", teamNodeClassName: "string", teamNodePoolName: "string", languageCheck: "string",
    };
    const out: Record<string, unknown> = {};
    for (const [key, type] of Object.entries(want)) {
        const v = outputs[key]?.value;
        const ok = type === "string[]" ? Array.isArray(v) && v.every(x => typeof x === "string") : typeof v === type;
        if (!ok) {
            throw new Error(`output ${key}: ${JSON.stringify(v)} is not a ${type}`);
        }
        out[key] = v;
    }
    return out;
}

async function main(step: string): Promise<Record<string, unknown>> {
    const v: Variant = { batchExpireAfter: "720h", badOperator: false };
    switch (step) {
        case "preview":
            await (await stack(v)).preview({ onOutput: log });
            return {};
        case "up":
            return { outputs: typedOutputs((await (await stack(v)).up({ onOutput: log })).outputs) };
        case "refresh":
            await (await stack(v)).refresh({ onOutput: log });
            return {};
        case "check":
            await (await stack(v)).preview({ expectNoChanges: true, onOutput: log });
            return {};
        case "update":
            v.batchExpireAfter = "360h";
            return { outputs: typedOutputs((await (await stack(v)).up({ onOutput: log })).outputs) };
        case "destroy": {
            const s = await stack(v);
            await s.destroy({ onOutput: log });
            await s.workspace.removeStack("dev");
            return {};
        }
        case "bad":
            v.badOperator = true;
            try {
                await (await stack(v)).preview({ onOutput: log });
            } catch (e) {
                return { error: String(e) };
            }
            throw new Error("the preview with operator \"Inn\" succeeded");
        default:
            throw new Error(`unknown step ${step}`);
    }
}

const step = process.argv[2];
main(step).then(
    r => console.log(JSON.stringify({ step, ...r })),
    e => { console.error(e); process.exit(1); },
);
