// Command pulumi-karpenter serves the karpenter provider from a checkout of this repository.
// PulumiPlugin.yaml (`runtime: go`) makes the repository root a source plugin, so
// `pulumi package add github.com/pulumi-karpenter/pulumi-karpenter@<version>` (or a Pulumi.yaml
// `packages:` entry naming the repository) builds this package and runs it. The released binary,
// with its `schema`, `render` and `--version` commands, is provider/cmd/pulumi-resource-karpenter.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider"
)

func main() {
	if err := provider.Serve(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}
