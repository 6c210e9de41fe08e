package catalog

import (
	"strings"
	"testing"
)

func never(any) bool { return false }

// Every snapshot decodes (its patterns compile with Go's regexp, as the API server's do), and
// each generation's kinds find theirs.
func TestEveryKindHasItsCRDBounds(t *testing.T) {
	if len(SpecBoundsSnapshots()) == 0 {
		t.Fatal("crdbounds.json has no snapshots")
	}
	for _, version := range []string{"0.19.0", "0.31.0", "0.32.0", "0.36.2", "0.37.1", "1.0.0", "1.8.6", "1.9.0", "1.14.3", "1.15.2"} {
		r, err := LookupRelease(version, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, kind := range []ApiKind{r.NodePool, r.NodeClass} {
			if r.SpecBounds(kind) == nil {
				t.Errorf("Karpenter %s: no CRD bounds for %s", version, kind.Token())
			}
		}
	}
	auto := AutoModeRelease()
	for _, kind := range []ApiKind{auto.NodePool, auto.NodeClass} {
		if s := auto.SpecBounds(kind); s == nil || !s.AutoMode {
			t.Errorf("Auto Mode: no Auto Mode CRD bounds for %s: %+v", kind.Token(), s)
		}
	}
}

// A release takes a snapshot of its minor, else the newest before it, else the oldest after it.
func TestSpecBoundsPickTheNearestRelease(t *testing.T) {
	for version, want := range map[string]string{"1.15.2": "1.15.2", "1.15.0": "1.15.2", "1.15.9": "1.15.2", "1.14.0": "1.14.1", "1.13.2": "1.8.6", "1.14.1": "1.14.1",
		"1.9.0": "1.8.6", "1.0.0": "1.0.8", "1.0.8": "1.0.8", "0.32.0": "0.36.2", "0.37.1": "0.36.2", "0.19.0": "0.31.0"} {
		r, err := LookupRelease(version, false)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.SpecBounds(r.NodePool); got == nil || got.Version != want {
			t.Errorf("Karpenter %s takes the NodePool bounds of %+v, want %s", version, got, want)
		}
	}
}

func TestBoundViolations(t *testing.T) {
	r, err := LookupRelease("1.15.2", false)
	if err != nil {
		t.Fatal(err)
	}
	pool := r.SpecBounds(r.NodePool).Spec
	spec := map[string]any{
		"weight": 101,
		"template": map[string]any{
			"metadata": map[string]any{"labels": map[string]string{"team": strings.Repeat("x", 64)}},
			"spec": map[string]any{
				"taints":       []any{map[string]any{"key": "dedicated", "effect": "NoSchedulee"}},
				"requirements": []any{map[string]any{"key": "k", "operator": "In", "values": []string{"a b"}, "minValues": 0}},
			},
		},
		"disruption": map[string]any{"budgets": []any{map[string]any{"nodes": "110%"}}},
	}
	// (The CRD puts a pattern on the requirement's values list itself, not on its items: the API
	// server applies string bounds to strings only, so "a b" passes, as here.)
	var got []string
	for _, v := range pool.Check(spec, never) {
		got = append(got, v.CRDPath()+": "+v.Message)
	}
	want := []string{
		`spec.disruption.budgets[0].nodes: "110%" does not match the pattern ^((100|[0-9]{1,2})%|[0-9]+)$`,
		`spec.template.metadata.labels.team: "` + strings.Repeat("x", 64) + `" is 64 characters, more than the 63 allowed`,
		`spec.template.spec.requirements[0].minValues: 0 is below the minimum 1`,
		`spec.template.spec.taints[0].effect: "NoSchedulee" is not one of NoSchedule, PreferNoSchedule, NoExecute`,
		`spec.weight: 101 is above the maximum 100`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// What is not known yet is not checked; a map that stands for one unknown is not counted.
	unknown := func(v any) bool { s, ok := v.(string); return ok && strings.HasPrefix(s, "unknown-") }
	spec = map[string]any{"weight": "unknown-1", "template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"unknown-2": "unknown-3"}}}}
	if v := pool.Check(spec, unknown); len(v) != 0 {
		t.Errorf("unknown values checked: %+v", v)
	}
	class := r.SpecBounds(r.NodeClass).Spec
	terms := make([]any, 31)
	for i := range terms {
		terms[i] = map[string]any{"id": "subnet-0123"}
	}
	if v := class.Check(map[string]any{"subnetSelectorTerms": terms}, never); len(v) != 1 || v[0].Message != "31 items, more than the 30 allowed" {
		t.Errorf("31 subnet terms: %+v", v)
	}
}

// A field the chosen snapshot lacks takes its bounds from a later one: 1.12 (the 1.8.6 CRDs)
// checks networkInterfaces, which 1.12.1 brought, with 1.14.1's bounds; a field 1.8.6 has keeps
// 1.8.6's.
func TestSpecBoundsTakeLaterFieldsFromLaterCRDs(t *testing.T) {
	r, err := LookupRelease("1.12.1", false)
	if err != nil {
		t.Fatal(err)
	}
	class := r.SpecBounds(r.NodeClass)
	if class.Version != "1.8.6" {
		t.Fatalf("1.12.1 takes the bounds of %s, want 1.8.6's", class.Version)
	}
	if v := class.Spec.Check(map[string]any{"networkInterfaces": make([]any, 151)}, never); len(v) != 1 || v[0].CRDPath() != "spec.networkInterfaces" {
		t.Errorf("151 network interfaces at 1.12.1: %+v", v)
	}
	pool := r.SpecBounds(r.NodePool).Spec
	if v := pool.Check(map[string]any{"disruption": map[string]any{"budgets": []any{map[string]any{"reasons": []any{"Unhealthy"}}}}}, never); len(v) != 1 {
		t.Errorf("an Unhealthy budget at 1.12.1 (1.15's reason; 1.8.6's enum has no such value): %+v", v)
	}
}
