//go:build aws_iam

package main

import (
	iam "github.com/pulumi/pulumi-aws/sdk/v6/go/aws/iam"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func init() {
	uses = append(uses, func(ctx *pulumi.Context, parent pulumi.Resource) error {
		_, err := iam.NewRole(ctx, "r", &iam.RoleArgs{AssumeRolePolicy: pulumi.String("{}")}, pulumi.Parent(parent))
		return err
	})
}
