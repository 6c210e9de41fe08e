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

	p "github.com/pulumi/pulumi-go-provider"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider"
)

func main() {
	prov, err := provider.Provider()
	if err == nil {
		err = p.RunProvider(context.Background(), provider.Name, provider.Version, prov)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}
