package tests

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/inputgen"
	"github.com/pulumi-karpenter/pulumi-karpenter/tests/harness"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/internal/repo"
)

// generatedTries is how many inputs are drawn per version; most are refused by render (naming
// a path), about one in ten renders, and at least generatedPools renders must carry drawn
// NodePools and node classes (not only the defaults) to the API server.
const (
	generatedTries = 400
	generatedPools = 8
)

// TestGeneratedRendersAreAcceptedByTheCRDsAndTheChart: inputs drawn from schema.json (provider/inputgen,
// seeded), rendered by the real provider binary for each Karpenter version the harness installs.
// Every render the component lets through must hold custom resources the version's CRDs admit
// (server-side dry run on the real API server: schema, patterns and CEL rules), and a controller
// release whose chart renders with its values (the chart's templates and its own checks), or
// `up` would fail with children half-created. A refusal names the seed that replays it.
func TestGeneratedRendersAreAcceptedByTheCRDsAndTheChart(t *testing.T) {
	schema, err := inputgen.LoadFile("../schema.json")
	if err != nil {
		t.Fatal(err)
	}
	bin, err := repo.ProviderBinary()
	if err != nil {
		t.Fatal(err)
	}
	for _, version := range append(slices.Clone(harness.KarpenterVersions), harness.BetaVersion) {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			c, ctx := cluster(t)
			base := render(t, writeArgs(t, "base.json", map[string]any{"clusterName": "demo", "controllerRoleArn": "arn:aws:iam::123456789012:role/c", "version": version}))
			crds, ok := base.Release("karpenter-crd")
			if !ok {
				t.Fatal("render has no karpenter-crd release")
			}
			if _, err := c.InstallRelease(ctx, crds); err != nil {
				t.Fatal(err)
			}
			accepted, withPools, objects := 0, 0, 0
			for seed := uint64(1); seed <= generatedTries; seed++ {
				inputs := schema.Seed(seed).Component(map[string]any{"version": version})
				r, err := harness.RunRender(bin, writeArgs(t, fmt.Sprintf("seed-%d.json", seed), inputs))
				var refused *harness.RenderError
				if errors.As(err, &refused) {
					continue // refused by the component, naming the path (provider/generate_test.go checks how)
				}
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				accepted++
				if _, ok := inputs["nodePools"]; ok {
					withPools++
				}
				// A chart from a local directory (a drawn chartRepository path) is the user's own.
				if controller, ok := r.Release("karpenter"); ok && controller.String("version") != "" {
					if err := c.TemplateRelease(ctx, controller); err != nil {
						args, _ := json.Marshal(inputs)
						t.Errorf("seed %d: the component rendered a controller release whose chart does not render: %v\ninputs: %s", seed, err, args)
					}
				}
				for _, res := range r.Resources {
					if !res.IsCustomResource() {
						continue
					}
					obj, err := harness.Object(res)
					if err != nil {
						t.Fatal(err)
					}
					objects++
					if err := c.CreateDryRun(ctx, obj); err != nil {
						args, _ := json.Marshal(inputs)
						t.Errorf("seed %d: the component rendered %s %s, which the %s CRDs refuse: %v\ninputs: %s",
							seed, obj.GetKind(), obj.GetName(), version, err, args)
					}
				}
			}
			t.Logf("Karpenter %s: %d of %d generated inputs rendered (%d with drawn pools and classes), %d custom resources admitted by the CRDs",
				version, accepted, generatedTries, withPools, objects)
			if withPools < generatedPools {
				t.Errorf("only %d renders with drawn pools and classes for %s; the generator should reach the API server more often", withPools, version)
			}
		})
	}
}

// writeArgs writes render args as JSON under the test's temp dir.
func writeArgs(t *testing.T, name string, inputs map[string]any) string {
	t.Helper()
	b, err := json.Marshal(inputs)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}
