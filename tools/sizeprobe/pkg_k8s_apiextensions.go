//go:build k8s_apiextensions

package main

import (
	apiextensions "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/apiextensions"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func init() {
	uses = append(uses, func(ctx *pulumi.Context, parent pulumi.Resource) error {
		_, err := apiextensions.NewCustomResource(ctx, "c", &apiextensions.CustomResourceArgs{ApiVersion: pulumi.String("a/v1"), Kind: pulumi.String("K")}, pulumi.Parent(parent))
		return err
	})
}
