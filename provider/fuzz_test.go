package provider_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/argstest"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/rendertest"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/render/format"
)

// fieldError is how a rejection starts: the field's path (as in the schema, with list
// indexes), or the SDK's message naming the input it could not decode.
var fieldError = regexp.MustCompile(`^([a-zA-Z]+(\[\d+\]|\.[a-zA-Z0-9._-]+|\["[^"]*"\])*( \([^)]*\))?( key)?:|reading args:|.*copying input "[a-zA-Z]+")`)

// FuzzRender feeds arbitrary args to the component: it must either render a valid graph or
// reject the input with messages that name a field — never panic or hang.
func FuzzRender(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "args", "*"))
	for _, file := range seeds {
		data, err := os.ReadFile(file)
		if err == nil {
			f.Add(data)
		}
	}
	for _, s := range []string{
		argstest.DefaultArgs,
		`{"clusterName":"demo","controllerRoleArn":"arn:aws:iam::123456789012:role/r","version":"0.31.4","nodePools":[{"name":"a"},null]}`,
		`{"clusterName":"demo","oidcProviderArn":"x","nodeClasses":[{"name":"c","amiSelectorTerms":[{}]}],"nodePools":[{"name":"p","nodeClassRef":"c","requirements":[{"key":"","operator":"Gt","values":["-1"]}]}]}`,
		`{"clusterName":"demo","controllerIdentity":"podIdentity","discovery":{"subnetIds":[""]},"values":{"a":null}}`,
		`{"clusterName":7}`,
		`[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		args, err := rendertest.ParseArgs(data)
		if err != nil {
			assertNamesAField(t, err)
			return
		}
		out, err := rendertest.Render(context.Background(), args)
		if err != nil {
			assertNamesAField(t, err)
			return
		}
		assertValidGraph(t, out)
	})
}

func assertNamesAField(t *testing.T, err error) {
	t.Helper()
	for _, line := range strings.Split(err.Error(), "\n") {
		if !fieldError.MatchString(line) {
			t.Fatalf("rejection does not name a field: %q", line)
		}
	}
}

// assertValidGraph checks what a user could not apply: dependencies on nothing, duplicate
// names, orphans, oversized or malformed policies.
func assertValidGraph(t *testing.T, out *format.Rendered) {
	t.Helper()
	names := map[string]bool{}
	for _, r := range out.Resources {
		if names[r.Type+r.Name] {
			t.Fatalf("duplicate resource %s %s", r.Type, r.Name)
		}
		names[r.Name] = true
		if r.Parent != out.Component.Name {
			t.Fatalf("%s is not parented to the component", r.Name)
		}
	}
	for _, r := range out.Resources {
		for _, dep := range r.DependsOn {
			if !names[dep] {
				t.Fatalf("%s depends on %s, which was not rendered", r.Name, dep)
			}
		}
		if r.Type == "aws:iam/policy:Policy" {
			doc := r.Inputs["policy"].(string)
			var v map[string]any
			if err := json.Unmarshal([]byte(doc), &v); err != nil || len(doc) > catalog.MaxManagedPolicyLength {
				t.Fatalf("policy %s is invalid or too long (%d): %v", r.Name, len(doc), err)
			}
		}
	}
}
