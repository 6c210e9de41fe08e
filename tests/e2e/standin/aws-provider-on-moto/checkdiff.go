package main

import (
	"context"
	"sort"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// Check and Diff of the resource provider protocol (server.go has the provider and its
// configuration, crud.go the operations).

// ---- Check and Diff -----------------------------------------------------------------------

func (p *provider) Check(_ context.Context, req *pulumirpc.CheckRequest) (*pulumirpc.CheckResponse, error) {
	t, err := p.typeOf(req.GetUrn())
	if err != nil {
		return nil, err
	}
	news, err := unmarshal(req.GetNews())
	if err != nil {
		return nil, err
	}
	olds, err := unmarshal(req.GetOlds())
	if err != nil {
		return nil, err
	}
	delete(news, defaultsKey)
	failures := validate(t, news)
	if cl, err := p.clients(); err == nil {
		failures = append(failures, checkRegion(t, news, cl.region)...)
	}

	defaults := []resource.PropertyValue{}
	if t.autoname > 0 && !has(news, "name") && !has(news, "namePrefix") {
		name := req.GetName()
		if name == "" {
			name = resource.URN(req.GetUrn()).Name()
		}
		switch {
		case has(olds, "name") && defaulted(olds, "name"):
			// Keep the name generated before, as pulumi-aws does (the old inputs list it in
			// __defaults).
			news["name"] = olds["name"]
			defaults = append(defaults, sv("name"))
		case req.GetAutonaming() != nil && req.GetAutonaming().GetMode() == pulumirpc.CheckRequest_AutonamingOptions_DISABLE:
			// No name: terraform generates "terraform-<unique>" when the object is created.
		case req.GetAutonaming() != nil:
			news["name"] = sv(req.GetAutonaming().GetProposedName())
			defaults = append(defaults, sv("name"))
		default:
			// pulumi-aws's AutoName: the resource name, "-", 7 random hex digits, seeded by the
			// engine so previews and updates agree.
			n, err := resource.NewUniqueName(req.GetRandomSeed(), name+"-", 7, t.autoname, nil)
			if err != nil {
				failures = append(failures, failure("name", "%v", err))
			} else {
				news["name"] = sv(n)
				defaults = append(defaults, sv("name"))
			}
		}
	}
	news[defaultsKey] = resource.NewArrayProperty(defaults)
	ins, err := marshal(news)
	if err != nil {
		return nil, err
	}
	return &pulumirpc.CheckResponse{Inputs: ins, Failures: failures}, nil
}

// defaultsKey lists the inputs the provider filled in (pulumi-terraform-bridge's __defaults).
const defaultsKey = "__defaults"

func defaulted(in pmap, k string) bool {
	v := in[defaultsKey]
	if !v.IsArray() {
		return false
	}
	for _, e := range v.ArrayValue() {
		if e.IsString() && e.StringValue() == k {
			return true
		}
	}
	return false
}

// validate checks inputs as terraform's schema does: known keys, required keys, value kinds,
// then the type's own ValidateFuncs. Unknown values (a preview) pass; they are checked again
// when known.
func validate(t *rtype, in pmap) []*pulumirpc.CheckFailure {
	var out []*pulumirpc.CheckFailure
	for _, key := range sortedKeys(in.Mappable()) {
		k := resource.PropertyKey(key)
		spec, ok := t.inputs[key]
		v := plain(in[k])
		switch {
		case !ok:
			out = append(out, failure(key, "%s has no input %q (pulumi-aws %s)", t.token, key, awsVersion))
			continue
		case spec.unsupported && !v.IsNull():
			out = append(out, failure(key, "%s input %q is not supported by the %s", t.token, key, standIn))
			continue
		}
		if v.IsNull() || (unknown(v) && (spec.fields == nil || !v.IsObject())) {
			continue // a block with some attributes unknown is checked attribute by attribute
		}
		if want := kindOK(spec.kind, v); want != "" {
			out = append(out, failure(key, "%q must be %s, got %s", key, want, describe(v)))
			continue
		}
		if spec.fields != nil {
			out = append(out, validateBlock(t, key, spec.fields, v.ObjectValue())...)
		}
	}
	for _, key := range sortedKeys(t.inputs) {
		if t.inputs[key].required && !has(in, key) {
			out = append(out, failure(key, "Missing required argument: the %q property is required by %s", key, t.token))
		}
	}
	if has(in, "name") && has(in, "namePrefix") {
		out = append(out, failure("namePrefix", `"namePrefix": conflicts with name`))
	}
	if t.ops.check != nil {
		out = append(out, t.ops.check(in)...)
	}
	return out
}

// kindOK is "" when v has the kind, else what was expected.
func kindOK(k kind, v resource.PropertyValue) string {
	switch k {
	case kString:
		if !v.IsString() {
			return "a string"
		}
	case kInt:
		if !v.IsNumber() || v.NumberValue() != float64(int(v.NumberValue())) {
			return "an integer"
		}
	case kBool:
		if !v.IsBool() {
			return "a boolean"
		}
	case kStringMap:
		if !v.IsObject() {
			return "a map of strings"
		}
		for _, e := range v.ObjectValue() {
			if e = plain(e); !e.IsString() && !unknown(e) {
				return "a map of strings"
			}
		}
	case kStringList:
		if !v.IsArray() {
			return "a list of strings"
		}
		for _, e := range v.ArrayValue() {
			if e = plain(e); !e.IsString() && !unknown(e) {
				return "a list of strings"
			}
		}
	case kObjectList:
		if !v.IsArray() {
			return "a list of objects"
		}
	case kObject:
		if !v.IsObject() {
			return "an object"
		}
	}
	return ""
}

func unionKeys(a, b pmap) []string {
	keys := map[string]bool{}
	for k := range a {
		keys[string(k)] = true
	}
	for k := range b {
		keys[string(k)] = true
	}
	return sortedKeys(keys)
}

// equalInput compares an old and a new input value the way terraform plans: JSON documents
// as values, an absent value equal to the schema default.
func equalInput(spec prop, o, n resource.PropertyValue) bool {
	o, n = plain(o), plain(n)
	if unknown(n) {
		return false
	}
	if o.IsNull() && !spec.def.IsNull() {
		o = spec.def
	}
	if n.IsNull() && !spec.def.IsNull() {
		n = spec.def
	}
	if spec.json && o.IsString() && n.IsString() {
		return jsonEquivalent(o.StringValue(), n.StringValue())
	}
	if spec.same != nil && o.IsString() && n.IsString() {
		return spec.same(o.StringValue(), n.StringValue())
	}
	if spec.set {
		return valueEqual(o, n, true)
	}
	return o.DeepEquals(n)
}

// Diff compares the old inputs with the new ones. A change to a create-only property (resource_types.go)
// replaces the resource; when the resource's name was given explicitly (not auto-named), the
// replacement deletes the old object first, as pulumi-terraform-bridge's
// nameRequiresDeleteBeforeReplace (pkg/tfbridge/schema.go) decides: the new object could not
// be created under the same name while the old one exists.
// inputDiff is one input a plan changes, as terraform plans it.
type inputDiff struct {
	key     string
	replace bool
}

// diffInputs are the inputs whose change terraform would plan between the old inputs and the new
// (state: the old outputs, for nested blocks' computed parts), sorted: what Diff reports and what
// an Update's entry in the operation log names.
func diffInputs(t *rtype, olds, news, state pmap) []inputDiff {
	var out []inputDiff
	for _, key := range unionKeys(olds, news) {
		spec, ok := t.inputs[key]
		if !ok { // __defaults, or an output (old engines send outputs as olds)
			continue
		}
		k := resource.PropertyKey(key)
		if spec.computed && !has(news, key) && !unknown(news[k]) {
			continue // an Optional+Computed input left unset keeps what the provider computed
		}
		old := olds[k]
		if spec.fields != nil {
			old = withState(old, state[k])
		}
		if changed, replace := inputChange(spec, old, news[k]); changed {
			out = append(out, inputDiff{key: key, replace: replace})
		}
	}
	return out
}

func (p *provider) Diff(_ context.Context, req *pulumirpc.DiffRequest) (*pulumirpc.DiffResponse, error) {
	t, err := p.typeOf(req.GetUrn())
	if err != nil {
		return nil, err
	}
	olds, err := unmarshal(req.GetOldInputs())
	if err != nil {
		return nil, err
	}
	if req.GetOldInputs() == nil {
		if olds, err = unmarshal(req.GetOlds()); err != nil {
			return nil, err
		}
	}
	news, err := unmarshal(req.GetNews())
	if err != nil {
		return nil, err
	}
	state, err := unmarshal(req.GetOlds())
	if err != nil {
		return nil, err
	}
	resp := &pulumirpc.DiffResponse{
		Changes: pulumirpc.DiffResponse_DIFF_NONE, DetailedDiff: map[string]*pulumirpc.PropertyDiff{}, HasDetailedDiff: true,
	}
	for _, d := range diffInputs(t, olds, news, state) {
		kind := pulumirpc.PropertyDiff_UPDATE
		switch {
		case !has(olds, d.key):
			kind = pulumirpc.PropertyDiff_ADD
		case !has(news, d.key):
			kind = pulumirpc.PropertyDiff_DELETE
		}
		if d.replace {
			kind++ // the *_REPLACE kind follows each kind
			resp.Replaces = append(resp.Replaces, d.key)
		}
		resp.Diffs = append(resp.Diffs, d.key)
		resp.DetailedDiff[d.key] = &pulumirpc.PropertyDiff{Kind: kind, InputDiff: true}
	}
	if len(resp.Diffs) > 0 {
		resp.Changes = pulumirpc.DiffResponse_DIFF_SOME
	}
	if len(resp.Replaces) > 0 && t.autoname > 0 && has(news, "name") && !defaulted(news, "name") {
		resp.DeleteBeforeReplace = true
	}
	sort.Strings(resp.Replaces)
	return resp, nil
}
