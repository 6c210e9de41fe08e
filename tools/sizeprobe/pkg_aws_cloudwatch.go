//go:build aws_cloudwatch

package main

import (
	cloudwatch "github.com/pulumi/pulumi-aws/sdk/v6/go/aws/cloudwatch"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func init() {
	uses = append(uses, func(ctx *pulumi.Context, parent pulumi.Resource) error {
		_, err := cloudwatch.NewEventRule(ctx, "e", &cloudwatch.EventRuleArgs{}, pulumi.Parent(parent))
		return err
	})
}
