package tests

import (
	"slices"
	"testing"
)

// TestStandaloneInstall installs the default render (the CRDs, Karpenter and the default pool
// and class), then renders of a karpenter:index:NodeClass and a karpenter:index:NodePool of
// their own, as a second stack adds them, against the 1.15.2 CRDs.
func TestStandaloneInstall(t *testing.T) {
	t.Parallel()
	c, ctx := cluster(t)
	install(t, ctx, c, render(t, args("default.json")))
	for file, want := range map[string]string{
		"nodeclass-team-a.json": "karpenter:index:NodeClass",
		"nodepool-team-a.json":  "karpenter:index:NodePool",
	} {
		r := render(t, args(file))
		if r.Component.Type != want || len(r.Resources) != 1 {
			t.Fatalf("render %s: component %s with %d resources, want %s with 1", file, r.Component.Type, len(r.Resources), want)
		}
		install(t, ctx, c, r)
	}
	if got := names(t, ctx, c, nodeClassGVR); !slices.Contains(got, "team-a") {
		t.Errorf("cluster EC2NodeClasses %v, want team-a among them", got)
	}
	if got := names(t, ctx, c, nodePoolsGVR); !slices.Contains(got, "team-a-spot") {
		t.Errorf("cluster NodePools %v, want team-a-spot among them", got)
	}
}
