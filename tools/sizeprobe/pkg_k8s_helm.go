//go:build k8s_helm

package main

import (
	helmv3 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/helm/v3"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func init() {
	uses = append(uses, func(ctx *pulumi.Context, parent pulumi.Resource) error {
		_, err := helmv3.NewRelease(ctx, "h", &helmv3.ReleaseArgs{Chart: pulumi.String("c")}, pulumi.Parent(parent))
		return err
	})
}
