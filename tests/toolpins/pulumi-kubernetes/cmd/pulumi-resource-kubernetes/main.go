// Command pulumi-resource-kubernetes is upstream's cmd/pulumi-resource-kubernetes/main.go of
// pulumi-kubernetes v4.25.0, built outside its repository: the same provider.Serve call with the
// two files upstream embeds. Those files are generated (schema-embed.json is the module's own
// cmd/pulumi-resource-kubernetes/schema.json with its version set, terraform-mapping-embed.json
// its terraform-mapping.json re-encoded) and are not in the module zip, so generate.go writes
// them here from the zip before the build (tests/e2e/install-e2e-deps.sh runs both).
package main

import (
	_ "embed"

	"github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/provider"
	"github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/version"
)

//go:embed schema-embed.json
var pulumiSchema []byte

//go:embed terraform-mapping-embed.json
var terraformMapping []byte

func main() {
	provider.Serve("kubernetes", version.Version, pulumiSchema, terraformMapping)
}
