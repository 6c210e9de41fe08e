package main

import (
	"github.com/pulumi-karpenter/pulumi-karpenter/sdk/go/karpenter"
	"github.com/pulumi/pulumi-aws/sdk/v6/go/aws"
	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		// An existing EKS cluster: its name, IAM OIDC provider ARN and kubeconfig come from the stack's config.
		cfg := config.New(ctx, "")

		// Pass both providers: without them the component's children get default ones, built
		// from the stack's aws:* and kubernetes:* config.
		awsProvider, err := aws.NewProvider(ctx, "aws", &aws.ProviderArgs{
			Region: pulumi.String(config.Require(ctx, "aws:region")),
		})
		if err != nil {
			return err
		}
		k8sProvider, err := kubernetes.NewProvider(ctx, "k8s", &kubernetes.ProviderArgs{
			Kubeconfig: cfg.RequireSecret("kubeconfig"),
		})
		if err != nil {
			return err
		}

		// IAM, the interruption queue, the karpenter-crd and karpenter releases, and a default NodePool.
		karpenterInstall, err := karpenter.NewKarpenter(ctx, "karpenter", &karpenter.KarpenterArgs{
			ClusterName:     pulumi.String(cfg.Require("clusterName")),
			OidcProviderArn: pulumi.String(cfg.Require("oidcProviderArn")),
		}, pulumi.Providers(awsProvider, k8sProvider))
		if err != nil {
			return err
		}

		ctx.Export("nodeRoleName", karpenterInstall.NodeRoleName)
		return nil
	})
}
