//go:build aws_eks

package main

import (
	eks "github.com/pulumi/pulumi-aws/sdk/v6/go/aws/eks"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func init() {
	uses = append(uses, func(ctx *pulumi.Context, parent pulumi.Resource) error {
		_, err := eks.NewAccessEntry(ctx, "a", &eks.AccessEntryArgs{ClusterName: pulumi.String("c"), PrincipalArn: pulumi.String("p")}, pulumi.Parent(parent))
		return err
	})
}
