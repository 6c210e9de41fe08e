package tests

import (
	"slices"
	"strings"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/harness"
)

// What the component renders with mode autoMode, installed on the CRDs the harness serves as EKS
// Auto Mode does (InstallAutoModeCRDs: the published NodeClass schema and upstream 1.2.1's NodePool
// with EKS's changes, plus the fields documented since; tests/testdata/automode): every
// object must be accepted and read back equal, and the render has no Helm release (installAutoMode
// refuses one).

// TestAutoModeEveryFieldInstalls renders automode-every-field.json, whose classes together set
// every spec field of the served Auto Mode NodeClass, checks that they do, and installs it.
func TestAutoModeEveryFieldInstalls(t *testing.T) {
	t.Parallel()
	file := args("automode-every-field.json")
	spec, err := harness.AutoModeNodeClassSpec()
	if err != nil {
		t.Fatal(err)
	}
	r := render(t, file)
	set := map[string]bool{}
	for _, res := range r.OfType(harness.AutoModeNodeClassType) {
		for _, p := range spec.SetLeaves("spec", res.Inputs["spec"]) {
			set[p] = true
		}
	}
	leaves := spec.Leaves("spec")
	for _, leaf := range leaves {
		if !set[leaf] {
			t.Errorf("no rendered Auto Mode NodeClass sets %s (set it in %s)", leaf, file)
		}
	}
	for _, p := range sortedKeys(set) {
		if !slices.Contains(leaves, p) {
			t.Errorf("the render sets %s, which the Auto Mode NodeClass does not have", p)
		}
	}
	_, _, _, applied := installAutoMode(t, file)
	classes := appliedOfType(applied, harness.AutoModeNodeClassType)
	pools := appliedOfType(applied, harness.NodePoolType)
	if len(classes) != 3 || len(pools) != 3 {
		t.Fatalf("installed %d NodeClasses and %d NodePools, want 3 and 3", len(classes), len(pools))
	}
	for name, a := range pools {
		if got := describe(field(a.Got, "spec", "template", "spec", "nodeClassRef", "group")); got != "eks.amazonaws.com" {
			t.Errorf("%s: nodeClassRef.group %s", name, got)
		}
	}
}

// The component's other Auto Mode shapes: the default install, the golden render's pools (GPU,
// spot, a static pool at the 504h limit) and the migration's Auto Mode component, and the
// standalone NodeClass and NodePool.
func TestAutoModeRendersInstall(t *testing.T) {
	t.Parallel()
	for _, file := range []string{
		args("automode-default.json"),
		"../provider/testdata/args/automode.yaml",
		args("automode-migration.json"),
		args("automode-nodeclass-team-a.json"),
		args("automode-nodepool-team-a.json"),
	} {
		t.Run(strings.TrimSuffix(file[strings.LastIndex(file, "/")+1:], ".json"), func(t *testing.T) {
			t.Parallel()
			_, _, r, applied := installAutoMode(t, file)
			for _, res := range r.Resources {
				if strings.HasPrefix(res.Type, "kubernetes:") && !slices.Contains([]string{harness.AutoModeNodeClassType, harness.NodePoolType}, res.Type) {
					t.Errorf("%s: an Auto Mode render creates %s", res.Name, res.Type)
				}
			}
			if len(appliedOfType(applied, harness.AutoModeNodeClassType))+len(appliedOfType(applied, harness.NodePoolType)) == 0 {
				t.Error("nothing installed")
			}
		})
	}
}
