//go:build tools

// Package tools records Karpenter's controller command as a dependency of this module.
package tools

import _ "github.com/aws/karpenter-provider-aws/cmd/controller"
