//go:build aws_index

package main

import (
	aws "github.com/pulumi/pulumi-aws/sdk/v6/go/aws"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func init() {
	uses = append(uses, func(ctx *pulumi.Context, parent pulumi.Resource) error {
		_, err := aws.GetPartition(ctx, nil, pulumi.Parent(parent))
		return err
	})
}
