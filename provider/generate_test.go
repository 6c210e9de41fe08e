package provider_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/inputgen"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/inputs"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/argstest"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/rendertest"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/render/format"
)

// Inputs drawn from schema.json (provider/inputgen) — right by type, often wrong by meaning —
// must each either fail naming a path, or render children within AWS's limits. Seeded and
// reproducible: a failure prints its seed; KARPENTER_GEN_SEED=<seed> replays that one case,
// KARPENTER_GEN_CASES=<n> runs more (make test runs the default), FuzzGeneratedInputs explores.

const defaultGeneratedCases = 1500

func TestGeneratedInputsFailNamingAPathOrRenderWithinLimits(t *testing.T) {
	schema := loadSchema(t)
	first, cases := uint64(1), uint64(defaultGeneratedCases)
	if s := os.Getenv("KARPENTER_GEN_SEED"); s != "" {
		first, _ = strconv.ParseUint(s, 10, 64)
		cases = 1
	} else if n := os.Getenv("KARPENTER_GEN_CASES"); n != "" {
		cases, _ = strconv.ParseUint(n, 10, 64)
	} else if testing.Short() {
		cases = 200
	}
	rendered, rejected := 0, 0
	for seed := first; seed < first+cases; seed++ {
		if checkGenerated(t, schema, seed) {
			rendered++
		} else {
			rejected++
		}
	}
	t.Logf("%d cases from seed %d: %d rendered, %d rejected naming a path", cases, first, rendered, rejected)
	if cases >= 100 && (rendered == 0 || rejected == 0) {
		t.Errorf("the generator should produce both valid and invalid inputs")
	}
}

// FuzzGeneratedInputs explores seeds beyond the test's range: `go test ./provider -fuzz
// FuzzGeneratedInputs` (a finding is a seed; KARPENTER_GEN_SEED replays it in the test).
func FuzzGeneratedInputs(f *testing.F) {
	schema := loadSchema(f)
	for _, seed := range []uint64{1, 3050, 16791} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, seed uint64) { checkGenerated(t, schema, seed) })
}

// checkGenerated renders the inputs a seed draws: they fail naming a path (false), or render
// children within AWS's limits (true).
func checkGenerated(t *testing.T, schema *inputgen.Schema, seed uint64) bool {
	t.Helper()
	args, _ := json.Marshal(schema.RenderArgs(seed))
	fail := func(format string, a ...any) {
		t.Fatalf("seed %d (replay: KARPENTER_GEN_SEED=%d go test ./provider -run TestGenerated): %s\ninputs: %s", seed, seed, fmt.Sprintf(format, a...), args)
	}
	parsed, err := rendertest.ParseArgs(args)
	if err != nil {
		fail("the generated args do not parse: %v", err)
	}
	out, err := rendertest.Render(context.Background(), parsed)
	if err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			if !rendertest.PathError.MatchString(line) {
				fail("a rejection does not start with the path of what it refuses: %q", line)
			}
		}
		return false
	}
	if msg := withinAWSLimits(out); msg != "" {
		fail("rendered, but AWS would refuse it: %s", msg)
	}
	return true
}

// loadSchema reads schema.json for the generator.
func loadSchema(tb testing.TB) *inputgen.Schema {
	tb.Helper()
	schema, err := inputgen.LoadFile("../schema.json")
	if err != nil {
		tb.Fatal(err)
	}
	return schema
}

// withinAWSLimits checks what AWS would refuse in a render: tags (the children's, and what a node
// class puts on its instances with Karpenter's own), and the physical names' lengths.
func withinAWSLimits(out *format.Rendered) string {
	nameLimits := map[string]int{"aws:iam/role:Role": 64, "aws:iam/policy:Policy": 128, "aws:sqs/queue:Queue": 80,
		"aws:cloudwatch/eventRule:EventRule": 64, "aws:iam/instanceProfile:InstanceProfile": 128}
	for _, r := range out.Resources {
		if name, ok := r.Inputs["name"].(string); ok && nameLimits[r.Type] > 0 && utf8.RuneCountInString(name) > nameLimits[r.Type] {
			return fmt.Sprintf("%s %s: name %q over %d characters", r.Type, r.Name, name, nameLimits[r.Type])
		}
		tags, limit := r.Inputs["tags"], catalog.MaxTagsPerResource
		if body, ok := r.Inputs["spec"].(map[string]any); ok && (strings.Contains(r.Type, "NodeClass") || strings.Contains(r.Type, "AWSNodeTemplate")) {
			tags, limit = body["tags"], inputs.ClassTagLimit
		}
		m, _ := tags.(map[string]any)
		plain := map[string]string{}
		for k, v := range m {
			s, _ := v.(string)
			plain[k] = s
		}
		if errs := inputs.CheckAWSTags(field.NewPath(r.Name, "tags"), plain, limit); len(errs) > 0 {
			return errs[0].Error()
		}
	}
	return ""
}

// Seeds past the default run found these (3050, 16791 of KARPENTER_GEN_CASES=30000): an
// amiFamily that is not a family was echoed raw by the kubelet and alias checks, breaking the
// one-problem-per-line message. Only amiFamily's own check names it now.
func TestABadAmiFamilyIsNamedOnce(t *testing.T) {
	msg := rendertest.Error(t, argstest.WithDefaults(t, `{"version": "1.15.1", "nodeClasses": [{"name": "default", "amiFamily": "#!/bin/bash\necho hi",
		"amiAlias": "windows2022@latest", "kubelet": {"additionalSettings": {"containerLogMaxSize": "50Mi"}, "clusterDNS": ["10.0.0.1", "10.0.0.2"]}}]}`))
	for _, line := range strings.Split(msg, "\n") {
		if !rendertest.PathError.MatchString(line) {
			t.Errorf("a line does not start with a path: %q (in %q)", line, msg)
		}
	}
	if !strings.Contains(msg, `nodeClasses[0].amiFamily: "#!/bin/bash\necho hi" is not one of`) {
		t.Errorf("amiFamily is not named: %s", msg)
	}
}
