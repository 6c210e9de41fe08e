package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/tools/sdkgen"
)

var languages = map[string]sdkgen.Language{"go": {Generate: generateGo}}

const testSchema = "../sdkgen/testdata/schema.json"

// generate writes the Go SDK for the test schema after edit changes its decoded JSON.
func generate(t *testing.T, edit func(map[string]any)) (string, error) {
	t.Helper()
	raw, err := os.ReadFile(testSchema)
	if err != nil {
		t.Fatal(err)
	}
	var spec map[string]any
	if err := json.Unmarshal(raw, &spec); err != nil {
		t.Fatal(err)
	}
	edit(spec)
	dir := t.TempDir()
	if raw, err = json.Marshal(spec); err != nil {
		t.Fatal(err)
	}
	schemaPath := filepath.Join(dir, "schema.json")
	if err := os.WriteFile(schemaPath, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, sdkgen.Run(languages, sdkgen.Options{Schema: schemaPath, Out: dir}, []string{"go"})
}

// The go.mod written for a schema without supportPack is the one codegen writes with it.
func TestGoModMatchesSupportPack(t *testing.T) {
	withPack, err := generate(t, func(map[string]any) {})
	if err != nil {
		t.Fatal(err)
	}
	without, err := generate(t, func(s map[string]any) {
		delete(s, "meta")
		delete(s, "version")
	})
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(withPack, "go", "go.mod"))
	if err != nil {
		t.Fatalf("codegen wrote no go.mod in supportPack mode: %v", err)
	}
	got, err := os.ReadFile(filepath.Join(without, "go", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("go.mod without supportPack:\n%s\nwant (codegen, supportPack):\n%s", got, want)
	}
	if !strings.HasPrefix(string(got), "module github.com/pulumi-karpenter/pulumi-karpenter/sdk/go\n") {
		t.Errorf("unexpected module path in:\n%s", got)
	}
}

// A reference to another package's schema fails generation instead of reaching for a plugin.
func TestExternalReferenceRefused(t *testing.T) {
	_, err := generate(t, func(s map[string]any) {
		res := s["resources"].(map[string]any)["karpenter:index:Karpenter"].(map[string]any)
		res["properties"].(map[string]any)["role"] = map[string]any{
			"$ref": "/aws/v6.83.2/schema.json#/resources/aws:iam%2Frole:Role",
		}
	})
	if err == nil || !strings.Contains(err.Error(), `package "aws"`) {
		t.Fatalf("err = %v, want a refusal naming package \"aws\"", err)
	}
}
