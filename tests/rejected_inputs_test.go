package tests

import (
	"net/http"
	"strings"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/harness"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// badInputs are component inputs the CRDs (or the cluster) would reject. The component must
// refuse them itself: render exits 1 and names the offending field.
var badInputs = []struct {
	file   string
	fields []string // each must appear in the message
}{
	{"operator.json", []string{"operator", "Within"}},
	{"budget-schedule-without-duration.json", []string{"duration", "schedule"}},
	{"role-and-instance-profile.json", []string{"role", "instanceProfile"}},
	{"ami-alias-family.json", []string{"amiAlias", "ubuntu"}},
	{"nodeclassref-missing.json", []string{"nodeClassRef", "does-not-exist"}},
}

func TestBadInputsRejectedByComponent(t *testing.T) {
	for _, tc := range badInputs {
		t.Run(strings.TrimSuffix(tc.file, ".json"), func(t *testing.T) {
			re := renderError(t, args("bad/"+tc.file))
			if re.ExitCode != 1 {
				t.Errorf("exit code %d, want 1; stderr: %s", re.ExitCode, re.Stderr)
			}
			for _, f := range tc.fields {
				if !strings.Contains(re.Stderr, f) {
					t.Errorf("message does not name %q:\n%s", f, re.Stderr)
				}
			}
		})
	}
}

// TestBadInputsRejectedByAPIServer shows the component's checks are the API server's rules, not
// invented ones: the equivalent objects, created directly against the real CRDs, get a 422.
// A nodeClassRef to a missing class is the exception: the API server accepts it (it does not
// look across objects), so only the component catches it before nodes fail to launch.
func TestBadInputsRejectedByAPIServer(t *testing.T) {
	t.Parallel()
	r := render(t, args("default.json"))
	c, ctx := clusterWithCRDs(t, r)
	pools, classes := r.OfType(harness.NodePoolType), r.OfType(harness.NodeClassType)
	if len(pools) == 0 || len(classes) == 0 {
		t.Fatal("default render has no NodePool or EC2NodeClass to start from")
	}
	pool, err := harness.Object(pools[0])
	if err != nil {
		t.Fatal(err)
	}
	class, err := harness.Object(classes[0])
	if err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name   string
		base   *unstructured.Unstructured
		mutate func(o map[string]any)
		reject string // substring of the API server's message naming the rule; "" = accepted
	}{
		{"valid NodePool (control)", pool, func(map[string]any) {}, ""},
		{"valid EC2NodeClass (control)", class, func(map[string]any) {}, ""},
		{"requirement operator Within", pool, func(o map[string]any) {
			spec := o["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
			spec["requirements"] = []any{map[string]any{"key": "karpenter.sh/capacity-type", "operator": "Within", "values": []any{"spot"}}}
		}, `spec.template.spec.requirements[0].operator: Unsupported value: "Within"`},
		{"budget with schedule and no duration", pool, func(o map[string]any) {
			// consolidateAfter is set so that only the budget is wrong.
			o["spec"].(map[string]any)["disruption"] = map[string]any{
				"consolidationPolicy": "WhenEmptyOrUnderutilized",
				"consolidateAfter":    "1m",
				"budgets":             []any{map[string]any{"nodes": "0", "schedule": "0 9 * * mon-fri"}},
			}
		}, `spec.disruption.budgets: Invalid value: "array": 'schedule' must be set with 'duration'`},
		{"role and instanceProfile together", class, func(o map[string]any) {
			spec := o["spec"].(map[string]any)
			spec["role"] = "KarpenterNodeRole-demo"
			spec["instanceProfile"] = "KarpenterNodeInstanceProfile-demo"
		}, "must specify exactly one of ['role', 'instanceProfile']"},
		{"unknown AMI alias family", class, func(o map[string]any) {
			o["spec"].(map[string]any)["amiSelectorTerms"] = []any{map[string]any{"alias": "ubuntu@latest"}}
		}, "spec.amiSelectorTerms[0].alias: Invalid value: \"string\": family is not supported"},
		{"nodeClassRef to a missing class (accepted)", pool, func(o map[string]any) {
			spec := o["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
			spec["nodeClassRef"].(map[string]any)["name"] = "does-not-exist"
		}, ""},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := tc.base.DeepCopy()
			tc.mutate(obj.Object)
			obj.SetName(obj.GetName() + "-case" + string(rune('a'+i)))
			_, err := c.Create(ctx, obj)
			if tc.reject == "" {
				if err != nil {
					t.Fatalf("API server rejected it: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("API server accepted %s %s; the component's check would guard nothing real", obj.GetKind(), obj.GetName())
			}
			if code := statusCode(err); code != http.StatusUnprocessableEntity || !apierrors.IsInvalid(err) {
				t.Fatalf("got %d (%v), want 422 Invalid", code, err)
			}
			// The 422 must come from the rule in question, not from something else the
			// mutated object happens to lack.
			if !strings.Contains(err.Error(), tc.reject) {
				t.Fatalf("422 for another reason:\n  got  %v\n  want %s", err, tc.reject)
			}
			t.Logf("API server: %v", err)
		})
	}
}

func statusCode(err error) int32 {
	if s, ok := err.(apierrors.APIStatus); ok {
		return s.Status().Code
	}
	return 0
}
