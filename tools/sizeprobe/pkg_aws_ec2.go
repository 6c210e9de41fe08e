//go:build aws_ec2

package main

import (
	ec2 "github.com/pulumi/pulumi-aws/sdk/v6/go/aws/ec2"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func init() {
	uses = append(uses, func(ctx *pulumi.Context, parent pulumi.Resource) error {
		_, err := ec2.NewTag(ctx, "t", &ec2.TagArgs{Key: pulumi.String("k"), Value: pulumi.String("v"), ResourceId: pulumi.String("i")}, pulumi.Parent(parent))
		return err
	})
}
