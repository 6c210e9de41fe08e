package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/harness"
)

// TestDemo runs `make demo`'s program end to end for each API generation and checks that it
// prints what the README promises: the releases, the controller wiring, and a
// `kubectl get -o wide` table per custom resource kind listing every pool and class the args
// name. The resource names (plurals) are the CRDs' own, as kubectl shows them.
func TestDemo(t *testing.T) {
	root, err := harness.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	// classes and pools: the `kubectl get` resources whose tables list the classes and pools.
	cases := []struct{ name, args, classes, pools string }{
		{"v1", filepath.Join(root, "examples", "render", "default.json"),
			"ec2nodeclasses.v1.karpenter.k8s.aws", "nodepools.v1.karpenter.sh"},
		{"v1beta1", filepath.Join(root, "tests", "testdata", "args", "rich-v1beta1.json"),
			"ec2nodeclasses.v1beta1.karpenter.k8s.aws", "nodepools.v1beta1.karpenter.sh"},
		{"v1alpha5", filepath.Join(root, "tests", "testdata", "args", "rich-v1alpha5.json"),
			"awsnodetemplates.v1alpha1.karpenter.k8s.aws", "provisioners.v1alpha5.karpenter.sh"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			if err := run(context.Background(), &out, root, tc.args); err != nil {
				t.Fatalf("demo failed: %v\n%s", err, out.String())
			}
			sections := splitSections(out.String())

			if rows := tableRows(t, sections, "helm list -A"); len(rows) == 0 {
				t.Errorf("helm list shows no release")
			}
			pools, classes := argNames(t, tc.args)
			for resource, want := range map[string][]string{tc.classes: classes, tc.pools: pools} {
				rows := tableRows(t, sections, "kubectl get "+resource+" -o wide")
				for _, name := range want {
					if !hasRow(rows, name) {
						t.Errorf("kubectl get %s: no row for %q in\n%s", resource, name, strings.Join(rows, "\n"))
					}
				}
			}
			if !strings.Contains(out.String(), "== Stopped the local API server") {
				t.Errorf("demo did not report stopping the API server")
			}
		})
	}
}

// splitSections maps each "== heading" of the demo's output to the lines under it.
func splitSections(out string) map[string][]string {
	sections := map[string][]string{}
	var current string
	for _, line := range strings.Split(out, "\n") {
		if h, ok := strings.CutPrefix(line, "== "); ok {
			current = h
			sections[current] = nil
			continue
		}
		if current != "" && strings.TrimSpace(line) != "" {
			sections[current] = append(sections[current], line)
		}
	}
	return sections
}

// tableRows returns the rows of the table under heading, after its NAME header.
func tableRows(t *testing.T, sections map[string][]string, heading string) []string {
	t.Helper()
	lines, ok := sections[heading]
	if !ok {
		t.Errorf("no section %q in the demo output", heading)
		return nil
	}
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "NAME ") {
		t.Errorf("section %q has no table (want a NAME header): %q", heading, lines)
		return nil
	}
	return lines[1:]
}

func hasRow(rows []string, name string) bool {
	for _, r := range rows {
		if f := strings.Fields(r); len(f) > 0 && f[0] == name {
			return true
		}
	}
	return false
}

// argNames reads the pool and class names the args file asks for; with none, the component's
// documented default pair is named "default".
func argNames(t *testing.T, file string) (pools, classes []string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var args struct {
		NodePools   []struct{ Name string } `json:"nodePools"`
		NodeClasses []struct{ Name string } `json:"nodeClasses"`
	}
	if err := json.Unmarshal(b, &args); err != nil {
		t.Fatal(err)
	}
	for _, p := range args.NodePools {
		pools = append(pools, p.Name)
	}
	for _, c := range args.NodeClasses {
		classes = append(classes, c.Name)
	}
	if len(pools) == 0 {
		pools = []string{"default"}
	}
	if len(classes) == 0 {
		classes = []string{"default"}
	}
	return pools, classes
}
