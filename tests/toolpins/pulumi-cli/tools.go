//go:build tools

// Package tools records the Pulumi CLI command as a dependency of this module, and the SDK's
// version package, which the build stamps (-X .../go/common/version.Version=<pin>).
package tools

import (
	_ "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi"
	_ "github.com/pulumi/pulumi/sdk/v3/go/common/version"
)
