//go:build k8s_core

package main

import (
	corev1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/core/v1"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func init() {
	uses = append(uses, func(ctx *pulumi.Context, parent pulumi.Resource) error {
		_, err := corev1.NewConfigMapPatch(ctx, "p", &corev1.ConfigMapPatchArgs{}, pulumi.Parent(parent))
		return err
	})
}
