package tests

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/harness"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestEveryCRDBoundRefusedAtPreview: for every bound the NodePool and EC2NodeClass CRDs of each
// v1 release the harness has state (provider/catalog/crdbounds.json, which TestCRDBoundsAreTheCRDs
// holds to the CRD files), a value outside it is refused by the component's render at that
// version, naming the input; and the same value in that render's object, created against the API
// server with that release's CRDs, gets a 422 naming the CRD field. So the component's check is
// the API server's, bound by bound, and a program cannot pass the preview with a value the `up`
// would fail on. (The v1beta1 and v1alpha5 kinds and Auto Mode's are held to their CRDs by
// provider/catalog's tests and crdbounds.json; their inputs map to other fields.)
func TestEveryCRDBoundRefusedAtPreview(t *testing.T) {
	t.Parallel()
	for _, version := range harness.KarpenterVersions {
		t.Run(version, func(t *testing.T) { boundsRefused(t, version) })
	}
}

func boundsRefused(t *testing.T, version string) {
	r := render(t, writeArgs(t, "base.json", map[string]any{"clusterName": "demo", "version": version,
		"oidcProviderArn": "arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/EXAMPLE"}))
	c, ctx := clusterWithCRDs(t, r)
	objects := map[string]*unstructured.Unstructured{}
	for kind, typ := range map[string]string{"NodePool": harness.NodePoolType, "EC2NodeClass": harness.NodeClassType} {
		res := r.OfType(typ)
		if len(res) == 0 {
			t.Fatalf("the default render has no %s", kind)
		}
		obj, err := harness.Object(res[0])
		if err != nil {
			t.Fatal(err)
		}
		objects[kind] = obj
	}

	cases := boundCases(t, version)
	if len(cases) < 50 {
		t.Fatalf("%d bounds in the %s CRDs; the walk found too few", len(cases), version)
	}
	for i, bc := range cases {
		t.Run(bc.kind+" "+bc.crdPath()+" "+bc.keyword, func(t *testing.T) {
			if why, ok := boundsNotSet[bc.kind+" "+bc.pattern()]; ok {
				t.Logf("not a value a program sets: %s", why)
				return
			}
			// The component refuses it, naming the input.
			inputs := map[string]any{"clusterName": "demo", "version": version, "oidcProviderArn": "arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/EXAMPLE",
				"nodeClasses": []any{map[string]any{"name": "default"}}, "nodePools": []any{map[string]any{"name": "default", "nodeClassRef": "default"}}}
			list, object := "nodeClasses", inputs["nodeClasses"].([]any)[0].(map[string]any)
			if bc.kind == "NodePool" {
				list, object = "nodePools", inputs["nodePools"].([]any)[0].(map[string]any)
			}
			inputTokens := bc.inputTokens()
			setAt(object, inputTokens, bc.value, true)
			re := renderError(t, writeArgs(t, "bound.json", inputs))
			if want := list + "[0]" + tokensPath(inputTokens); !strings.Contains(re.Stderr, want+":") && !strings.Contains(re.Stderr, want+"[") && !strings.Contains(re.Stderr, want+".") {
				t.Errorf("the component's refusal does not name %s:\n%s", want, re.Stderr)
			}

			// The API server refuses the same value.
			obj := objects[bc.kind].DeepCopy()
			obj.SetName(fmt.Sprintf("bound-%d", i))
			setAt(obj.Object, append([]string{"spec"}, bc.tokens...), bc.value, false)
			_, err := c.Create(ctx, obj)
			if err == nil {
				t.Fatalf("the API server accepted %s = %v: the component would refuse what works", bc.crdPath(), bc.value)
			}
			if code := statusCode(err); code != http.StatusUnprocessableEntity {
				t.Fatalf("got %d (%v), want 422", code, err)
			}
			if !strings.Contains(err.Error(), bc.crdPath()) {
				t.Errorf("422 for another reason:\n  got  %v\n  want one naming %s", err, bc.crdPath())
			}
		})
	}
}

// boundsNotSet are the bounds on fields a program does not write (the component does), by kind
// and CRD path ("[]" for list items).
var boundsNotSet = map[string]string{
	"NodePool spec.template.spec.nodeClassRef.group": "the component writes the release's EC2NodeClass group",
}

// boundCase is one bound of a CRD field and a value outside it.
type boundCase struct {
	kind    string
	tokens  []string // below spec; "[]" is a list item (index 0)
	keyword string
	value   any
}

func (bc boundCase) pattern() string { return "spec" + tokensPath(bc.tokens) }

// crdPath is the field as the API server names it: spec.a[0].b, a map key after a dot.
func (bc boundCase) crdPath() string {
	var b strings.Builder
	b.WriteString("spec")
	for _, tok := range bc.tokens {
		if tok == "[]" {
			b.WriteString("[0]")
		} else {
			b.WriteString("." + strings.Trim(tok, "{}"))
		}
	}
	return b.String()
}

// inputTokens are the tokens of the input that sets the field: the NodePool input is flat (the
// template's metadata and spec), and the EC2NodeClass's ebs ids were named before the CRD's.
func (bc boundCase) inputTokens() []string {
	t := bc.tokens
	if bc.kind == "NodePool" && len(t) > 2 && t[0] == "template" {
		t = t[2:]
	}
	out := slices.Clone(t)
	for i, tok := range out {
		switch tok {
		case "kmsKeyID":
			out[i] = "kmsKeyId"
		case "snapshotID":
			out[i] = "snapshotId"
		}
	}
	return out
}

// tokensPath prints tokens as a path below an object: .a.b[].c (a map key in brackets).
func tokensPath(tokens []string) string {
	var b strings.Builder
	for _, tok := range tokens {
		switch {
		case tok == "[]":
			b.WriteString("[0]")
		case strings.HasPrefix(tok, "{"):
			b.WriteString("[" + strconv.Quote(strings.Trim(tok, "{}")) + "]")
		default:
			b.WriteString("." + tok)
		}
	}
	return b.String()
}

// validItems are list items valid on their own, for the lists whose count or item field a case
// needs; mapValue is a valid value of a map's entries.
var validItems = map[string]any{
	"budgets":                          map[string]any{"nodes": "10%"},
	"reasons":                          "Empty",
	"requirements":                     map[string]any{"key": "example.com/team", "operator": "Exists"},
	"values":                           "a",
	"taints":                           map[string]any{"key": "example.com/team", "effect": "NoSchedule"},
	"startupTaints":                    map[string]any{"key": "example.com/team", "effect": "NoSchedule"},
	"amiSelectorTerms":                 map[string]any{"id": "ami-0123456789abcdef0"},
	"blockDeviceMappings":              map[string]any{"deviceName": "/dev/xvdb", "ebs": map[string]any{"volumeSize": "20Gi"}},
	"capacityReservationSelectorTerms": map[string]any{"id": "cr-0123456789abcdef0"},
	"networkInterfaces":                map[string]any{"networkCardIndex": 0, "deviceIndex": 0, "interfaceType": "interface"},
	"subnetSelectorTerms":              map[string]any{"id": "subnet-0123456789abcdef0"},
	"securityGroupSelectorTerms":       map[string]any{"id": "sg-0123456789abcdef0"},
}

// boundCases walks the version's NodePool and EC2NodeClass bounds.
func boundCases(t *testing.T, version string) []boundCase {
	t.Helper()
	root, err := harness.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(harness.CRDBoundsFile)))
	if err != nil {
		t.Fatal(err)
	}
	var file struct{ Snapshots []harness.BoundsSnapshot }
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	var out []boundCase
	for _, s := range file.Snapshots {
		if s.Version != version || s.AutoMode || !slices.Contains([]string{"karpenter.sh/v1", "karpenter.k8s.aws/v1"}, s.APIVersion) {
			continue
		}
		walkBounds(t, s.Kind, nil, s.Spec, &out)
	}
	return out
}

func walkBounds(t *testing.T, kind string, tokens []string, n map[string]any, out *[]boundCase) {
	add := func(keyword string, value any) {
		*out = append(*out, boundCase{kind: kind, tokens: slices.Clone(tokens), keyword: keyword, value: value})
	}
	last := ""
	for i := len(tokens) - 1; i >= 0 && last == ""; i-- {
		if tokens[i] != "[]" && !strings.HasPrefix(tokens[i], "{") {
			last = tokens[i]
		}
	}
	num := func(k string) (float64, bool) { f, ok := n[k].(float64); return f, ok }
	if typ, _ := n["type"].(string); typ != "" && typ != "string" {
		// String bounds on a list (a requirement's values carry them) or a number do not apply.
		n = withoutKeys(n, "enum", "pattern", "maxLength", "minLength")
	}
	if enum, ok := n["enum"].([]any); ok {
		add("enum", "NotOneOf"+fmt.Sprint(len(enum)))
	}
	if p, ok := n["pattern"].(string); ok {
		re := regexp.MustCompile(p)
		for _, v := range []string{"not valid!", "x", "-", "0", "A_"} {
			if !re.MatchString(v) {
				add("pattern", v)
				break
			}
		}
	}
	if m, ok := num("maxLength"); ok {
		add("maxLength", strings.Repeat("a", int(m)+1))
	}
	if m, ok := num("minLength"); ok && m > 0 {
		add("minLength", "")
	}
	if m, ok := num("minimum"); ok {
		add("minimum", int(m)-1)
	}
	if m, ok := num("maximum"); ok && m < math.MaxInt32 {
		add("maximum", int(m)+1)
	}
	if m, ok := num("maxItems"); ok {
		item, known := validItems[last]
		if !known {
			t.Errorf("%s %s: maxItems %v, and no valid item of %s to fill it with (validItems)", kind, tokensPath(tokens), m, last)
		}
		add("maxItems", slices.Repeat([]any{item}, int(m)+1))
	}
	if m, ok := num("maxProperties"); ok {
		entries := map[string]any{}
		for i := range int(m) + 1 {
			entries["example.com/k"+strconv.Itoa(i)] = "v"
		}
		add("maxProperties", entries)
	}
	if props, ok := n["properties"].(map[string]any); ok {
		for _, name := range slices.Sorted(maps.Keys(props)) {
			walkBounds(t, kind, append(slices.Clone(tokens), name), props[name].(map[string]any), out)
		}
	}
	if items, ok := n["items"].(map[string]any); ok {
		walkBounds(t, kind, append(slices.Clone(tokens), "[]"), items, out)
	}
	if ap, ok := n["additionalProperties"].(map[string]any); ok {
		walkBounds(t, kind, append(slices.Clone(tokens), "{example.com/k}"), ap, out)
	}
}

func withoutKeys(n map[string]any, keys ...string) map[string]any {
	out := map[string]any{}
	for k, v := range n {
		if !slices.Contains(keys, k) {
			out[k] = v
		}
	}
	return out
}

// setAt puts value at tokens in obj, making what is missing on the way: a list gets one valid
// item (validItems) and its first item is the one changed. inputs: obj is component inputs, where
// a requirement's values replace its Exists (In needs values).
func setAt(obj map[string]any, tokens []string, value any, inputs bool) {
	cur := obj
	for i, tok := range tokens {
		lastTok := i == len(tokens)-1
		if strings.HasPrefix(tok, "{") {
			cur[strings.Trim(tok, "{}")] = value
			return
		}
		next := i + 1
		if lastTok {
			cur[tok] = value
			return
		}
		if tokens[next] == "[]" {
			list, _ := cur[tok].([]any)
			if len(list) == 0 {
				list = []any{deepCopy(validItems[tok])}
			}
			if next == len(tokens)-1 {
				list[0] = value
				cur[tok] = list
				return
			}
			item, _ := list[0].(map[string]any)
			item = deepCopy(item).(map[string]any)
			if tok == "requirements" && tokens[next+1] == "values" {
				item["operator"] = "In"
			}
			list[0] = item
			cur[tok] = list
			setAt(item, tokens[next+1:], value, inputs)
			return
		}
		child, _ := cur[tok].(map[string]any)
		if child == nil {
			child = map[string]any{}
		}
		cur[tok] = child
		cur = child
	}
}

func deepCopy(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}
