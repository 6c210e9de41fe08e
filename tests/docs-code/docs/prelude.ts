// The one prelude of the documentation's TypeScript fragments (tests/docs-code/docs.sh).
//
// A fragment — a ```ts block without an import — is acceptable in README.md's "Options, with
// examples": each shows one input or option of the component in the middle of the Usage program the
// reader already has, and the section says which names it takes from that program. These are
// those names, with their types; docs.sh compiles every fragment as a module of its own that
// imports all of them, so a fragment that uses a name not declared here, or a value of the wrong
// type, fails. `declare`: tsc only checks types (--noEmit), nothing runs.
import * as pulumi from "@pulumi/pulumi";
import * as aws from "@pulumi/aws";
import * as awsx from "@pulumi/awsx";
import * as eks from "@pulumi/eks";
import * as k8s from "@pulumi/kubernetes";
import * as sdk from "@pulumi-karpenter/karpenter";

export { pulumi, aws, awsx, eks, k8s };

// README.md, Usage: the explicit aws provider and the pulumi-eks v4 cluster made with it.
export declare const awsProvider: aws.Provider;
export declare const cluster: eks.Cluster;
export const clusterName = cluster.eksCluster.name;
export const oidcProviderArn = cluster.oidcProviderArn;
// Both providers, as README.md's Usage says to pass them.
export const providers = { aws: awsProvider, kubernetes: cluster.provider };

// Resources of the user's program that some fragments name.
export declare const vpc: awsx.ec2.Vpc;
export declare const key: aws.kms.Key;
export declare const existingControllerRole: aws.iam.Role;
export declare const existingNodeRole: aws.iam.Role;
export declare const teamARole: aws.iam.Role;

// The SDK as fragments must use it: a Karpenter is given both providers (README.md, "Pass both
// providers"), so a fragment that leaves out `providers`, or one of the two, does not compile.
// Values only: a fragment that names a type of the SDK (karpenter.types...) needs it imported here.
type BothProviders = pulumi.ComponentResourceOptions & {
    providers: { aws: pulumi.ProviderResource; kubernetes: pulumi.ProviderResource };
};
export declare const karpenter: Omit<typeof sdk, "Karpenter"> & {
    Karpenter: new (name: string, args: sdk.KarpenterArgs, opts: BothProviders) => sdk.Karpenter;
};
