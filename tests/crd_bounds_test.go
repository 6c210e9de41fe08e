package tests

import (
	"context"
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

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/internal/repo"
)

// TestEveryCRDBoundRefusedAtPreview: for every bound the NodePool and node class CRDs of each v1
// release the harness has, and of EKS Auto Mode, state (provider/catalog/crdbounds.json, which
// TestCRDBoundsAreTheCRDs holds to the CRD files), a value outside it is refused by the
// component's render at that version, naming the input; and the same value in that render's
// object, created against the API server with those CRDs, gets a 422 naming the CRD field. So the
// component's check is the API server's, bound by bound, and a program cannot pass the preview
// with a value the `up` would fail on. (The v1beta1 and v1alpha5 kinds are held to their CRDs by
// provider/catalog's tests and crdbounds.json: their inputs map to other fields.) It bites: without
// the component's CRD bounds check, the kubelet's typed ranges before 1.15, more than 100 labels
// and more than 50 budget reasons passed the render.
func TestEveryCRDBoundRefusedAtPreview(t *testing.T) {
	t.Parallel()
	oidc := "arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/EXAMPLE"
	for _, version := range harness.KarpenterVersions {
		t.Run(version, func(t *testing.T) {
			boundsRefused(t, boundsWorld{version: version, inputs: map[string]any{"version": version, "oidcProviderArn": oidc},
				types: map[string]string{"NodePool": harness.NodePoolType, "EC2NodeClass": harness.NodeClassType}, cluster: clusterWithCRDs})
		})
	}
	for _, g := range generations {
		t.Run(g.version, func(t *testing.T) {
			boundsRefused(t, boundsWorld{version: g.version, inputs: map[string]any{"version": g.version, "oidcProviderArn": oidc},
				types: map[string]string{kindOf(g.poolType): g.poolType, kindOf(g.classType): g.classType},
				cluster: func(t *testing.T, r *harness.Render) (*harness.Cluster, context.Context) {
					// Their CRDs come with the release (v1beta1: karpenter-crd; v1alpha5: the chart's crds/).
					c, ctx := cluster(t)
					install(t, ctx, c, r)
					return c, ctx
				}})
		})
	}
	t.Run("autoMode", func(t *testing.T) {
		boundsRefused(t, boundsWorld{autoMode: true, inputs: map[string]any{"mode": "autoMode"},
			types:   map[string]string{"NodePool": harness.NodePoolType, "NodeClass": harness.AutoModeNodeClassType},
			cluster: func(t *testing.T, _ *harness.Render) (*harness.Cluster, context.Context) { return autoModeCluster(t) }})
	})
}

// boundsWorld is a release (or Auto Mode) whose bounds are checked: the component inputs that
// select it, the rendered types of its kinds, and a cluster serving its CRDs.
type boundsWorld struct {
	version  string
	autoMode bool
	inputs   map[string]any
	types    map[string]string // kind -> rendered type token
	cluster  func(*testing.T, *harness.Render) (*harness.Cluster, context.Context)
}

// program is the world's inputs with one node class and one pool, both named bounds (Auto Mode
// keeps "default" for its built-in class).
func (w boundsWorld) program() map[string]any {
	in := map[string]any{"clusterName": "demo",
		"nodeClasses": []any{map[string]any{"name": "bounds"}}, "nodePools": []any{map[string]any{"name": "bounds", "nodeClassRef": "bounds"}}}
	for k, v := range w.inputs {
		in[k] = v
	}
	return in
}

func boundsRefused(t *testing.T, w boundsWorld) {
	r := render(t, writeArgs(t, "base.json", w.program()))
	c, ctx := w.cluster(t, r)
	objects := map[string]*unstructured.Unstructured{}
	for kind, typ := range w.types {
		res := r.OfType(typ)
		if len(res) == 0 {
			t.Fatalf("the render has no %s", kind)
		}
		obj, err := harness.Object(res[0])
		if err != nil {
			t.Fatal(err)
		}
		objects[kind] = obj
	}

	cases := boundCases(t, w)
	if len(cases) < 10 {
		t.Fatalf("%d bounds in the CRDs; the walk found too few", len(cases))
	}
	for i, bc := range cases {
		t.Run(bc.kind+" "+bc.crdPath()+" "+bc.keyword, func(t *testing.T) {
			for field, why := range boundsNotSet {
				if key := bc.kind + " " + bc.pattern(); key == field || strings.HasPrefix(key, field+".") {
					t.Logf("not a value a program sets: %s", why)
					return
				}
			}
			// The component refuses it, naming the input.
			inputs := w.program()
			list, inputTokens := bc.input()
			object := inputs[list].([]any)[0].(map[string]any)
			setAt(object, inputTokens, bc.value, true)
			withCompanion(object, inputTokens[0])
			re := renderError(t, writeArgs(t, "bound.json", inputs))
			if want := list + "[0]" + tokensPath(inputTokens); !strings.Contains(re.Stderr, want+":") && !strings.Contains(re.Stderr, want+"[") && !strings.Contains(re.Stderr, want+".") {
				t.Errorf("the component's refusal does not name %s:\n%s", want, re.Stderr)
			}

			// The API server refuses the same value.
			obj := objects[bc.kind].DeepCopy()
			obj.SetName(fmt.Sprintf("bound-%d", i))
			setAt(obj.Object, append([]string{"spec"}, bc.tokens...), bc.value, false)
			withCompanion(obj.Object["spec"].(map[string]any), bc.tokens[0])
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

// boundsNotSet are the bounds on fields a program does not write, by kind and CRD path ("[]" for
// list items).
var boundsNotSet = map[string]string{
	"NodePool spec.template.spec.nodeClassRef.group": "the component writes the release's EC2NodeClass group",
	"NodePool spec.template.spec.resources":          "v1beta1's pool resources are not an input (the CRD allows none: maxProperties 0)",
}

// kindOf is the kind of a rendered type token (kubernetes:<group>/<version>:<kind>).
func kindOf(token string) string { return token[strings.LastIndex(token, ":")+1:] }

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

// input is the list (nodePools, nodeClasses) and the tokens of the input that sets the field:
// the NodePool input is flat (the template's metadata and spec); a v1beta1 pool's and a
// Provisioner's kubelet settings, and a Provisioner's limits, are inputs of other names; the
// EC2NodeClass's ebs ids were named before the CRD's, and Auto Mode names the reservation owner
// otherwise than upstream.
func (bc boundCase) input() (list string, tokens []string) {
	t := slices.Clone(bc.tokens)
	list = "nodeClasses"
	if bc.kind == "NodePool" || bc.kind == "Provisioner" {
		list = "nodePools"
	}
	switch {
	case bc.kind == "NodePool" && len(t) > 2 && t[0] == "template" && t[2] == "kubelet":
		list, t = "nodeClasses", t[2:]
	case bc.kind == "NodePool" && len(t) > 2 && t[0] == "template":
		t = t[2:]
	case bc.kind == "NodePool" && len(t) == 2 && t[0] == "disruption" && t[1] == "expireAfter":
		t = t[1:]
	case bc.kind == "Provisioner" && t[0] == "kubeletConfiguration":
		list, t = "nodeClasses", append([]string{"kubelet"}, t[1:]...)
	case bc.kind == "Provisioner" && len(t) > 1 && t[0] == "limits" && t[1] == "resources":
		t = t[1:]
		t[0] = "limits"
	}
	for i, tok := range t {
		switch {
		case bc.kind == "EC2NodeClass" && tok == "kmsKeyID":
			t[i] = "kmsKeyId"
		case bc.kind == "EC2NodeClass" && tok == "snapshotID":
			t[i] = "snapshotId"
		case bc.kind == "NodeClass" && tok == "owner":
			t[i] = "ownerID" // Auto Mode's name; the typed term is upstream's
		}
	}
	return list, t
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
	"podSubnetSelectorTerms":           map[string]any{"id": "subnet-0123456789abcdef0"},
	"podSecurityGroupSelectorTerms":    map[string]any{"id": "sg-0123456789abcdef0"},
	"noProxy":                          "example.com",
}

// companions are fields that are set together (Auto Mode's pod ENI terms): setting one in a case
// sets the other to a valid item.
var companions = map[string]string{
	"podSubnetSelectorTerms":        "podSecurityGroupSelectorTerms",
	"podSecurityGroupSelectorTerms": "podSubnetSelectorTerms",
}

func withCompanion(object map[string]any, field string) {
	if other, ok := companions[field]; ok && object[other] == nil {
		object[other] = []any{deepCopy(validItems[other])}
	}
}

// boundCases walks the world's NodePool and node class bounds.
func boundCases(t *testing.T, w boundsWorld) []boundCase {
	t.Helper()
	root, err := repo.Root()
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
		if s.Version != w.version || s.AutoMode != w.autoMode || !slices.Contains(slices.Collect(maps.Values(w.types)), "kubernetes:"+s.APIVersion+":"+s.Kind) {
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
