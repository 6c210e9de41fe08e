package lab

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/internal/repo"
)

// The inline program declares every child the component's render lists, with the same type,
// inputs, dependencies and provider; a `${` in an input reaches the engine as written.
func TestInlineProgramDeclaresEveryRenderedChild(t *testing.T) {
	tests, err := repo.TestsDir()
	if err != nil {
		t.Fatal(err)
	}
	// The default install's render, kept current by the provider's golden test.
	data, err := os.ReadFile(filepath.Join(tests, "..", "provider", "testdata", "golden", "default.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rendered renderedChildren
	if err := json.Unmarshal(data, &rendered); err != nil {
		t.Fatal(err)
	}
	// Custom resources are refused, naming why; the benchmark renders without them.
	if _, err := InlineProgram(MustJSON(rendered)); err == nil || !strings.Contains(err.Error(), "cannot be declared in a YAML program") {
		t.Errorf("a render with a NodePool: error %v, want it refused", err)
	}
	rendered.Resources = slices.DeleteFunc(rendered.Resources, func(r renderedChild) bool { return customResourceType(r.Type) })
	// A `${` in an input (a tag here) must reach the engine as written.
	rendered.Resources[0].Inputs["tags"] = map[string]any{"note": "${not-interpolated}"}
	program, err := InlineProgram(MustJSON(rendered))
	if err != nil {
		t.Fatal(err)
	}
	doc := readProgram(t, program)
	if got, want := len(doc.Resources), len(rendered.Resources)+2; got != want {
		t.Errorf("%d resources declared, want the %d children and two providers", got, want)
	}
	for _, r := range rendered.Resources {
		d, ok := doc.Resources[r.Name]
		if !ok {
			t.Errorf("%s: not declared", r.Name)
			continue
		}
		wantProvider := "${awsProvider}"
		if strings.HasPrefix(r.Type, "kubernetes:") {
			wantProvider = "${k8sProvider}"
		}
		if d.Type != r.Type || d.Options.Provider != wantProvider || len(d.Options.DependsOn) != len(r.DependsOn) {
			t.Errorf("%s: type %s provider %s %d dependencies; want %s %s %d", r.Name, d.Type, d.Options.Provider,
				len(d.Options.DependsOn), r.Type, wantProvider, len(r.DependsOn))
		}
		wantProps := escapeInterpolation(r.Inputs).(map[string]any)
		if r.Type == "aws:sqs/queuePolicy:QueuePolicy" {
			wantProps["queueUrl"] = "${karpenter-interruption.url}" // the queue's output, as the component wires it
		}
		want, got := MustJSON(wantProps), MustJSON(d.Properties)
		if string(want) != string(got) {
			t.Errorf("%s: properties\n got %s\nwant %s", r.Name, got, want)
		}
	}
	if !strings.Contains(program, "$${not-interpolated}") {
		t.Errorf("a `${` in an input is not escaped for pulumi-yaml:\n%s", program)
	}
}

func TestMaxInFlight(t *testing.T) {
	at := func(endMS, durMS int) GRPCCall {
		return GRPCCall{Timestamp: time.Unix(0, 0).Add(time.Duration(endMS) * time.Millisecond), Duration: time.Duration(durMS) * time.Millisecond}
	}
	for _, c := range []struct {
		name  string
		calls GRPCLog
		want  int
	}{
		{"none", nil, 0},
		{"one after another", GRPCLog{at(10, 10), at(20, 10), at(30, 10)}, 1},
		{"all at once", GRPCLog{at(10, 10), at(11, 10), at(12, 10)}, 3},
		{"two overlap, then one", GRPCLog{at(10, 10), at(15, 10), at(40, 5)}, 2},
	} {
		if got := MaxInFlight(c.calls); got != c.want {
			t.Errorf("%s: %d in flight, want %d", c.name, got, c.want)
		}
	}
}

// A fleet program declares, per cluster, a component and a standalone pool on that cluster's
// class, with names that do not collide in the one API server standing for the clusters.
func TestFleetProgram(t *testing.T) {
	oidc := map[string]string{}
	for i := range 3 {
		oidc[FleetMember(i)] = "arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/" + FleetMember(i)
	}
	program, err := FleetProgram(3, "oci://registry/karpenter", "1.15.2", &VPC{SubnetIDs: []string{"subnet-1"}, SecurityGroupID: "sg-1"}, oidc)
	if err != nil {
		t.Fatal(err)
	}
	doc := readProgram(t, program)
	names := map[string]bool{}
	for i := range 3 {
		m := FleetMember(i)
		c := doc.Resources[m]
		if c.Type != "karpenter:Karpenter" || doc.Resources[m+"-spot"].Type != "karpenter:NodePool" {
			t.Fatalf("%s: component %q, pool %q", m, c.Type, doc.Resources[m+"-spot"].Type)
		}
		for kind, n := range map[string]string{"namespace": c.Properties["namespace"].(string), "clusterName": c.Properties["clusterName"].(string),
			"fullnameOverride": c.Properties["values"].(map[string]any)["fullnameOverride"].(string)} {
			if names[kind+"="+n] {
				t.Errorf("%s: %s %q is another cluster's too", m, kind, n)
			}
			names[kind+"="+n] = true
		}
	}
	if got := len(doc.Resources); got != 2+1+2*3 {
		t.Errorf("%d resources, want providers, the CRD release and two per cluster", got)
	}
}

// yamlProgram is what the tests read of a YAML program: its resources.
type yamlProgram struct {
	Resources map[string]struct {
		Type       string         `json:"type"`
		Properties map[string]any `json:"properties"`
		Options    struct {
			Provider  string   `json:"provider"`
			DependsOn []string `json:"dependsOn"`
		} `json:"options"`
	} `json:"resources"`
}

func readProgram(t *testing.T, program string) yamlProgram {
	t.Helper()
	var doc yamlProgram
	if err := yaml.Unmarshal([]byte(program), &doc); err != nil {
		t.Fatalf("%v\n%s", err, program)
	}
	return doc
}
