//go:build aws_sqs

package main

import (
	sqs "github.com/pulumi/pulumi-aws/sdk/v6/go/aws/sqs"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func init() {
	uses = append(uses, func(ctx *pulumi.Context, parent pulumi.Resource) error {
		_, err := sqs.NewQueue(ctx, "q", &sqs.QueueArgs{}, pulumi.Parent(parent))
		return err
	})
}
