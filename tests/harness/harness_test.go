package harness

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// These test the harness itself against a hand-written render (testdata/render/default.json),
// independent of the provider binary.

func fixture(t *testing.T) *Render {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "render", "default.json"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := ParseRender(b)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestMissing(t *testing.T) {
	sent := map[string]any{"spec": map[string]any{"a": 1, "l": []any{"x", map[string]any{"k": "v"}}, "n": nil}}
	cases := []struct {
		name string
		got  any
		want int
	}{
		{"identical, int64 vs float64", map[string]any{"spec": map[string]any{"a": int64(1), "l": []any{"x", map[string]any{"k": "v"}}}}, 0},
		{"server added fields", map[string]any{"status": 1, "spec": map[string]any{"a": 1.0, "b": 2, "l": []any{"x", map[string]any{"k": "v", "d": 1}}}}, 0},
		{"pruned field", map[string]any{"spec": map[string]any{"l": []any{"x", map[string]any{"k": "v"}}}}, 1},
		{"changed scalar and list", map[string]any{"spec": map[string]any{"a": 2, "l": []any{"x"}}}, 2},
	}
	for _, tc := range cases {
		if d := Missing(sent, tc.got); len(d) != tc.want {
			t.Errorf("%s: %d differences %v, want %d", tc.name, len(d), d, tc.want)
		}
	}
}

func TestOrder(t *testing.T) {
	r := fixture(t)
	order, err := r.DeleteOrder()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, res := range order {
		names = append(names, res.Name)
	}
	pos := func(n string) int { return strings.Index(strings.Join(names, " "), n+" ") }
	// The fixture wires pool -> class -> controller release -> crd release and the AWS side.
	for _, pair := range [][2]string{
		{"karpenter-nodepool-default", "karpenter-nodeclass-default"},
		{"karpenter-nodeclass-default", "karpenter "},
		{"karpenter ", "karpenter-crd"},
		{"karpenter ", "karpenter-controller-role"},
	} {
		if pos(strings.TrimSpace(pair[0])) > pos(strings.TrimSpace(pair[1])) {
			t.Errorf("delete order %v has %s after %s", names, pair[0], pair[1])
		}
	}
	if !r.DependsOnTransitively("karpenter-nodepool-default", "karpenter-controller-role") {
		t.Error("pool should depend on the controller role through the release")
	}
	if r.DependsOnTransitively("karpenter-controller-role", "karpenter-nodepool-default") {
		t.Error("dependency relation reversed")
	}
	cyclic := &Render{Resources: []Resource{{Name: "a", DependsOn: []string{"b"}}, {Name: "b", DependsOn: []string{"a"}}}}
	if _, err := cyclic.CreateOrder(); err == nil {
		t.Error("cycle not detected")
	}
}

func TestChartMapping(t *testing.T) {
	k := &Karpenter{Version: "1.14.1", Dir: "/m"}
	for ref, want := range map[string]string{
		"oci://public.ecr.aws/karpenter/karpenter":     "/m/charts/karpenter",
		"oci://public.ecr.aws/karpenter/karpenter-crd": "/m/charts/karpenter-crd",
		"oci://registry.example.com/mirror/karpenter":  "/m/charts/karpenter",
		"https://charts.example.com/karpenter":         "/m/charts/karpenter",
	} {
		if got, err := k.ChartDir(ref); err != nil || got != want {
			t.Errorf("ChartDir(%q) = %q, %v; want %q", ref, got, err, want)
		}
	}
	if _, err := k.ChartDir("oci://public.ecr.aws/karpenter/other"); err == nil {
		t.Error("a non-Karpenter chart must not map")
	}
}

// TestInstallFixture installs the fixture with each supported Karpenter version's charts and
// CRDs: the published chart version is stamped, the controller chart gets its CRDs back
// (restored from pkg/apis/crds) and the custom resources pass the real CRDs.
func TestInstallFixture(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Kubernetes API server")
	}
	for _, v := range KarpenterVersions {
		t.Run(v, func(t *testing.T) {
			r := fixture(t)
			for i := range r.Resources {
				if r.Resources[i].IsRelease() {
					r.Resources[i].Inputs["version"] = v
				}
			}
			ctx := context.Background()
			cp, err := Start(ctx, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(cp.Stop)
			c, err := NewCluster(cp)
			if err != nil {
				t.Fatal(err)
			}
			applied, err := c.Install(ctx, r)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, a := range applied {
				if a.Release != nil {
					got = append(got, a.Release.Chart.Metadata.Name+"-"+a.Release.Chart.Metadata.Version)
				}
			}
			if want := []string{"karpenter-crd-" + v, "karpenter-" + v}; !reflect.DeepEqual(got, want) {
				t.Errorf("installed charts %v, want %v", got, want)
			}
			k, err := LoadKarpenter(v)
			if err != nil {
				t.Fatal(err)
			}
			ch, err := k.LoadChart(DefaultChartRepository + "/karpenter")
			if err != nil {
				t.Fatal(err)
			}
			if len(ch.CRDObjects()) == 0 {
				t.Error("controller chart has no crds/ (the module zip drops them; LoadChart restores them)")
			}
			if _, err := c.Dynamic.Resource(crdGVR).Get(ctx, "nodepools.karpenter.sh", metav1.GetOptions{}); err != nil {
				t.Errorf("nodepools CRD: %v", err)
			}
		})
	}
}
