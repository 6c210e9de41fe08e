package main

import (
	"github.com/pulumi-karpenter/pulumi-karpenter/sdk/go/karpenter"
	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		// A cluster where Karpenter already runs: its name, the node role's name (the Karpenter
		// component's nodeRoleName output) and its kubeconfig come from the stack's config. Set
		// Version on both resources when the cluster runs another Karpenter version than the default.
		cfg := config.New(ctx, "")
		k8sProvider, err := kubernetes.NewProvider(ctx, "k8s", &kubernetes.ProviderArgs{
			Kubeconfig: cfg.RequireSecret("kubeconfig"),
		})
		if err != nil {
			return err
		}

		nodeClass, err := karpenter.NewNodeClass(ctx, "team-a", &karpenter.NodeClassArgs{
			ClusterName: pulumi.String(cfg.Require("clusterName")), // subnets and security groups by its discovery tag
			Spec: karpenter.NodeClassSpecArgs{
				Name: pulumi.String("team-a"),
				Role: pulumi.String(cfg.Require("nodeRoleName")),
			},
		}, pulumi.Provider(k8sProvider))
		if err != nil {
			return err
		}

		nodePool, err := karpenter.NewNodePool(ctx, "team-a", &karpenter.NodePoolArgs{
			Spec: karpenter.NodePoolSpecArgs{
				Name:         pulumi.String("team-a"),
				NodeClassRef: pulumi.String("team-a"),
				Limits:       pulumi.StringMap{"cpu": pulumi.String("100")},
			},
		}, pulumi.Provider(k8sProvider), pulumi.DependsOn([]pulumi.Resource{nodeClass}))
		if err != nil {
			return err
		}

		ctx.Export("nodePoolName", nodePool.NodePoolName)
		return nil
	})
}
