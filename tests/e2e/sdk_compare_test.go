//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/lab"
)

// What the SDK programs' components received and registered, and their outputs, against the YAML
// program's (normalized for the names and issuer each run draws).

// checkSDKResult: the outputs, and in the API server the pools and classes of program-sdk.yaml with
// the batch pool's expireAfter.
func (w *world) checkSDKResult(t *testing.T, out map[string]any, batchExpireAfter string) {
	t.Helper()
	if got, want := strs(out["nodePoolNames"]), []string{"general", "batch"}; !reflect.DeepEqual(got, want) {
		t.Errorf("nodePoolNames = %q, want %q", got, want)
	}
	if got, want := strs(out["nodeClassNames"]), []string{"general"}; !reflect.DeepEqual(got, want) {
		t.Errorf("nodeClassNames = %q, want %q", got, want)
	}
	if str(out["teamNodePoolName"]) != "team-a-spot" || str(out["teamNodeClassName"]) != "team-a" {
		t.Errorf("team outputs: %v, %v", out["teamNodePoolName"], out["teamNodeClassName"])
	}
	ctx := context.Background()
	pools := w.Cluster.Dynamic.Resource(nodePoolGVR)
	for _, name := range []string{"general", "batch", "team-a-spot"} {
		pool, err := pools.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Errorf("NodePool %s: %v", name, err)
			continue
		}
		if name == "batch" {
			if got, _, _ := unstructured.NestedString(pool.Object, "spec", "template", "spec", "expireAfter"); got != batchExpireAfter {
				t.Errorf("NodePool batch: expireAfter %q, want %q", got, batchExpireAfter)
			}
		}
	}
	classes := w.Cluster.Dynamic.Resource(schema.GroupVersionResource{Group: "karpenter.k8s.aws", Version: "v1", Resource: "ec2nodeclasses"})
	for _, name := range []string{"general", "team-a"} {
		if _, err := classes.Get(ctx, name, metav1.GetOptions{}); err != nil {
			t.Errorf("EC2NodeClass %s: %v", name, err)
		}
	}
	// The class wired to the cluster the program made: its selector, tag and user data hold what
	// the preview did not know.
	general, err := classes.Get(ctx, "general", metav1.GetOptions{})
	if err != nil {
		return
	}
	terms, _, _ := unstructured.NestedSlice(general.Object, "spec", "subnetSelectorTerms")
	userData, _, _ := unstructured.NestedString(general.Object, "spec", "userData")
	tag, _, _ := unstructured.NestedString(general.Object, "spec", "tags", "cluster")
	if entry(entry(index(terms, 0), "tags"), "karpenter.sh/discovery") != "e2e-sdk-cluster" ||
		!strings.Contains(userData, "echo "+w.ControlPlane.URL+" >") || tag != "arn:aws:eks:us-west-2:123456789012:cluster/e2e-sdk-cluster" {
		t.Errorf("EC2NodeClass general: subnetSelectorTerms %v, userData %q, tags.cluster %q; want the cluster's name, endpoint and ARN", terms, userData, tag)
	}
}

// assertNothingCreatedSince: moto and the API server hold nothing new, and since mark the engine
// asked no plugin to create anything (a failed preview leaves no trace).
func (w *world) assertNothingCreatedSince(t *testing.T, mark int) {
	t.Helper()
	for _, l := range w.aws(t).Leftovers() {
		t.Errorf("moto holds %s", l)
	}
	w.assertCreatedSince(t, mark)
}

// grpcMark is the number of gRPC log entries so far: what a step sent comes after it.
func (w *world) grpcMark(t *testing.T) int {
	t.Helper()
	calls, err := w.Engine.GRPCCalls()
	if errors.Is(err, fs.ErrNotExist) {
		return 0 // nothing has run yet
	}
	if err != nil {
		t.Fatal(err)
	}
	return len(calls)
}

// constructs are the inputs of the Construct calls completed since mark, by "type name",
// normalized (see normalize).
func (w *world) constructs(t *testing.T, mark int, names map[string]string) map[string]any {
	t.Helper()
	calls, err := w.Engine.GRPCCalls()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]any{}
	for _, c := range lab.GRPCLog(calls[mark:]).Completed("ResourceProvider/Construct") {
		var req struct {
			Type, Name string
			Inputs     map[string]any
		}
		if err := c.Decode(&req); err != nil {
			t.Fatal(err)
		}
		if len(c.Errors) > 0 {
			t.Errorf("Construct %s %s failed: %q", req.Type, req.Name, c.Errors)
		}
		got[req.Type+" "+req.Name] = normalize(req.Inputs, names)
	}
	if len(got) != 3 {
		t.Errorf("want Construct calls for the Karpenter, NodeClass and NodePool components, got %d: %v", len(got), slices.Sorted(mapKeys(got)))
	}
	return got
}

// children are the inputs in the state of every resource a component registered (its URN's type
// chain passes through one of the package's components), by URN, normalized.
func (w *world) children(t *testing.T, names map[string]string) map[string]any {
	t.Helper()
	stdout := w.must(t, "stack", "export", "--stack", lab.StackName)
	var export struct {
		Deployment struct{ Resources []lab.StateResource }
	}
	if err := json.Unmarshal([]byte(stdout), &export); err != nil {
		t.Fatal(err)
	}
	got := map[string]any{}
	for _, r := range export.Deployment.Resources {
		if regexp.MustCompile(`karpenter:index:(Karpenter|NodePool|NodeClass)\$`).MatchString(r.URN) {
			got[r.URN] = normalize(r.Inputs, names)
		}
	}
	if len(got) < 30 {
		t.Errorf("only %d children in the state", len(got))
	}
	return got
}

func mapKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// randomNames are the names of a run's roles created with a name prefix (a random suffix), by the
// placeholder normalize puts in their place.
func randomNames(outputs map[string]any) map[string]string {
	return map[string]string{str(outputs["clusterName"]): "<cluster>", str(outputs["teamRoleName"]): "<teamRole>"}
}

// oidcIssuerID is the id in an EKS cluster's OIDC issuer (oidc.eks.<region>.amazonaws.com/id/<32
// hex digits>), which each stack's cluster gets anew.
var oidcIssuerID = regexp.MustCompile(`(oidc\.eks\.[a-z0-9-]+\.amazonaws\.com/id/)[0-9A-F]{32}`)

// normalize makes two programs' values comparable: the roles' random names (randomNames) and the
// cluster's OIDC issuer id (EKS's, random per cluster: oidcIssuerID) become placeholders, every
// unknown — the plain sentinel or an output value without one — becomes <unknown>, and a known
// output value becomes its value (the languages wrap different inputs in output values: which
// ones is how each SDK serializes, not what the component receives).
func normalize(v any, names map[string]string) any {
	switch v := v.(type) {
	case string:
		if v == unknownSentinel {
			return "<unknown>"
		}
		for name, placeholder := range names {
			if name != "" {
				v = strings.ReplaceAll(v, name, placeholder)
			}
		}
		return oidcIssuerID.ReplaceAllString(v, "${1}<issuer-id>")
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = normalize(x, names)
		}
		return out
	case map[string]any:
		if v["4dabf18193072939515e22adb298388d"] == "d0e6a833031e9bbcd3f4e8bde6ca49a4" {
			if value, ok := v["value"]; ok {
				return normalize(value, names)
			}
			return "<unknown>"
		}
		out := map[string]any{}
		for k, x := range v {
			out[k] = normalize(x, names)
		}
		return out
	}
	return v
}

// javaPreview is YAML's preview Construct inputs as the Java program sends them: Java builds a map
// holding an output as one Output<Map<...>>, so at preview the pool's annotations and the class's
// tags are unknown as a whole where YAML sends the maps with an unknown value (the component takes
// both: their values only pass through).
func javaPreview(ref map[string]any) map[string]any {
	var copied map[string]any
	b, _ := json.Marshal(ref)
	_ = json.Unmarshal(b, &copied)
	k, _ := copied["karpenter:index:Karpenter karpenter"].(map[string]any)
	if pool, ok := index(k["nodePools"], 0).(map[string]any); ok {
		pool["annotations"] = "<unknown>"
	}
	if class, ok := index(k["nodeClasses"], 0).(map[string]any); ok {
		class["tags"] = "<unknown>"
	}
	return copied
}

// entry is m[k] of a map, or nil.
func entry(m any, k string) any {
	if mm, ok := m.(map[string]any); ok {
		return mm[k]
	}
	return nil
}

// normalizeOutputs: the outputs with the random names replaced (they differ between stacks).
func normalizeOutputs(out map[string]any) map[string]any {
	n := normalize(out, randomNames(out)).(map[string]any)
	delete(n, "languageCheck") // the languages' own export; YAML has none
	return n
}

// compareRuns reports every key whose value differs between a language's run and YAML's.
func compareRuns(t *testing.T, what string, got, want map[string]any) {
	t.Helper()
	keys := map[string]bool{}
	for k := range got {
		keys[k] = true
	}
	for k := range want {
		keys[k] = true
	}
	var names []string
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		g, inGot := got[k]
		y, inWant := want[k]
		switch {
		case !inGot:
			t.Errorf("%s: %s is missing (YAML has it)", what, k)
		case !inWant:
			t.Errorf("%s: %s is extra (YAML has none)", what, k)
		case !reflect.DeepEqual(g, y):
			gj, _ := json.MarshalIndent(g, "", "  ")
			yj, _ := json.MarshalIndent(y, "", "  ")
			t.Errorf("%s: %s differs from YAML's\n--- got ---\n%s\n--- YAML ---\n%s", what, k, gj, yj)
		}
	}
}
