//go:build ignore

// generate writes the two files main.go embeds from the provider module's own JSON, as
// upstream's cmd/pulumi-resource-kubernetes/generate.go does: schema.json with "version" set to
// $VERSION, and terraform-mapping.json re-encoded. Usage: VERSION=4.25.0 go run generate.go
//
// Upstream decodes the schema into pulumi's schema.PackageSpec and encodes it again; setting the
// one key on the raw document keeps every other byte of meaning without compiling pulumi's
// code generators for it.
package main

import (
	"encoding/json"
	"log"
	"os"
	"os/exec"
	"path/filepath"
)

const providerModule = "github.com/pulumi/pulumi-kubernetes/provider/v4"

func main() {
	version := os.Getenv("VERSION")
	if version == "" {
		log.Fatal("generate.go: VERSION is not set")
	}
	// go mod download, not go list -m: on a fresh machine the zip is not in the module cache
	// yet, and go list -m then reports no directory rather than fetching it.
	out, err := exec.Command("go", "mod", "download", "-json", providerModule).Output()
	if err != nil {
		log.Fatalf("go mod download %s: %v", providerModule, err)
	}
	var module struct{ Dir, Error string }
	if err := json.Unmarshal(out, &module); err != nil || module.Dir == "" {
		log.Fatalf("go mod download %s: no module directory (%s%v)", providerModule, module.Error, err)
	}
	src := filepath.Join(module.Dir, "cmd", "pulumi-resource-kubernetes")

	var schema map[string]json.RawMessage
	read(filepath.Join(src, "schema.json"), &schema)
	v, _ := json.Marshal(version)
	schema["version"] = v
	write("schema-embed.json", schema)

	var mapping any
	read(filepath.Join(src, "terraform-mapping.json"), &mapping)
	write("terraform-mapping-embed.json", mapping)
}

func read(path string, v any) {
	data, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		log.Fatalf("%s: %v", path, err)
	}
}

func write(path string, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		log.Fatal(err)
	}
}
