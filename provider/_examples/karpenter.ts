import * as pulumi from "@pulumi/pulumi";
import * as aws from "@pulumi/aws";
import * as k8s from "@pulumi/kubernetes";
import * as karpenter from "@pulumi-karpenter/karpenter";

// An existing EKS cluster: its name, IAM OIDC provider ARN and kubeconfig come from the stack's config.
const config = new pulumi.Config();

// Pass both providers: without them the component's children get default ones, built from the
// stack's aws:* and kubernetes:* config.
const awsProvider = new aws.Provider("aws", { region: new pulumi.Config("aws").require("region") });
const k8sProvider = new k8s.Provider("k8s", { kubeconfig: config.requireSecret("kubeconfig") });

// IAM, the interruption queue, the karpenter-crd and karpenter releases, and a default NodePool.
const karpenterInstall = new karpenter.Karpenter("karpenter", {
    clusterName: config.require("clusterName"),
    oidcProviderArn: config.require("oidcProviderArn"),
}, { providers: { aws: awsProvider, kubernetes: k8sProvider } });

export const nodeRoleName = karpenterInstall.nodeRoleName;
