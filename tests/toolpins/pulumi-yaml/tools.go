//go:build tools

// Package tools records the YAML language host command as a dependency of this module.
package tools

import _ "github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml"
