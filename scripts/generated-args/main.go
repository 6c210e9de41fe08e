// Command generated-args writes the render args of the component inputs provider/inputgen draws
// for seeds 1 to N, one file per seed (<dir>/seed-<n>.json), so that both binaries of
// scripts/render-compare.sh render the same inputs.
//
// Usage: go run ./scripts/generated-args -n N -out DIR [-schema schema.json]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/inputgen"
)

func main() {
	n := flag.Uint64("n", 3000, "how many seeds, from 1")
	out := flag.String("out", "", "directory to write the args files to")
	schemaFile := flag.String("schema", "schema.json", "the package schema the inputs are drawn from")
	flag.Parse()
	if err := write(*schemaFile, *out, *n); err != nil {
		fmt.Fprintln(os.Stderr, "generated-args:", err)
		os.Exit(1)
	}
}

func write(schemaFile, dir string, n uint64) error {
	if dir == "" {
		return fmt.Errorf("-out names the directory to write to")
	}
	schema, err := inputgen.LoadFile(schemaFile)
	if err != nil {
		return err
	}
	for seed := uint64(1); seed <= n; seed++ {
		data, err := json.Marshal(schema.RenderArgs(seed))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed-%d.json", seed)), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
