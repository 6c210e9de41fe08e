package main

import (
	"sort"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// Nested blocks (kObject inputs with fields): terraform's MaxItems-1 blocks, which pulumi-aws
// presents as one object. Check validates them attribute by attribute and Diff compares them as
// terraform plans them: an unset Optional+Computed attribute keeps what the provider computed, an
// unset attribute with a Default compares as the Default, sets compare without order, and a change
// of a ForceNew attribute replaces the resource.

// validateBlock checks a block's attributes: known names, no computed-only ones, kinds, required
// ones, recursively.
func validateBlock(t *rtype, path string, fields map[string]field, m pmap) []*pulumirpc.CheckFailure {
	var out []*pulumirpc.CheckFailure
	for _, key := range sortedKeys(m.Mappable()) {
		v := plain(m[resource.PropertyKey(key)])
		f, ok := fields[key]
		at := path + "." + key
		switch {
		case !ok:
			out = append(out, failure(at, "%s has no input %q (pulumi-aws %s)", t.token, at, awsVersion))
			continue
		case v.IsNull():
			continue
		case f.unsupported:
			out = append(out, failure(at, "%s input %q is not supported by the %s", t.token, at, standIn))
			continue
		case f.output:
			// terraform: "Invalid Configuration for Read-Only Attribute".
			out = append(out, failure(at, "%q is computed by the provider: it cannot be set (Invalid Configuration for Read-Only Attribute)", at))
			continue
		case unknown(v):
			continue
		}
		if want := kindOK(f.kind, v); want != "" {
			out = append(out, failure(at, "%q must be %s, got %s", at, want, describe(v)))
			continue
		}
		if f.fields != nil {
			out = append(out, validateBlock(t, at, f.fields, v.ObjectValue())...)
		}
	}
	for _, key := range sortedKeys(fields) {
		if fields[key].required && !has(m, key) {
			out = append(out, failure(path+"."+key, "Missing required argument: %q is required by %s", path+"."+key, t.token))
		}
	}
	return out
}

// inputChange compares an old input value with a new one: whether it changed, and whether the
// change replaces the resource.
func inputChange(spec prop, o, n resource.PropertyValue) (changed, replace bool) {
	if spec.fields == nil {
		if equalInput(spec, o, n) {
			return false, false
		}
		changed, replace = true, spec.forceNew
	} else {
		o, n = plain(o), plain(n)
		switch {
		case unknown(n):
			changed, replace = true, spec.forceNew || hasForceNew(spec.fields)
		default:
			changed, replace = blockChange(spec.fields, objectOf(o), objectOf(n))
			replace = replace || (changed && spec.forceNew)
		}
	}
	if changed && !replace && spec.replaceIf != nil && spec.replaceIf(o, n) {
		replace = true
	}
	return changed, replace
}

func objectOf(v resource.PropertyValue) pmap {
	if v = plain(v); v.IsObject() {
		return v.ObjectValue()
	}
	return pmap{}
}

func hasForceNew(fields map[string]field) bool {
	for _, f := range fields {
		if f.forceNew || hasForceNew(f.fields) {
			return true
		}
	}
	return false
}

// blockChange compares two values of a block attribute by attribute.
func blockChange(fields map[string]field, o, n pmap) (changed, replace bool) {
	for name, f := range fields {
		if f.output || f.unsupported {
			continue
		}
		k := resource.PropertyKey(name)
		ov, nv := plain(o[k]), plain(n[k])
		if nv.IsNull() {
			if f.computed {
				continue
			}
			nv = f.def
		}
		if ov.IsNull() {
			ov = f.def
		}
		var c, r bool
		switch {
		case unknown(nv):
			c, r = true, f.forceNew || hasForceNew(f.fields)
		case f.fields != nil:
			c, r = blockChange(f.fields, objectOf(ov), objectOf(nv))
			r = r || (c && f.forceNew)
		default:
			c = !valueEqual(ov, nv, f.set)
			r = c && f.forceNew
		}
		changed, replace = changed || c, replace || r
	}
	return changed, replace
}

// valueEqual compares two plain values; sets compare without order, and an unset list equals an
// empty one, an unset string an empty one (terraform does not tell them apart: a block's string
// attribute left out of the configuration reads back as "").
func valueEqual(a, b resource.PropertyValue, set bool) bool {
	a, b = plain(a), plain(b)
	if emptyList(a) && emptyList(b) {
		return true
	}
	if emptyString(a) && emptyString(b) {
		return true
	}
	if set && a.IsArray() && b.IsArray() {
		a, b = sortedList(a), sortedList(b)
	}
	return a.DeepEquals(b)
}

func emptyList(v resource.PropertyValue) bool {
	return v.IsNull() || (v.IsArray() && len(v.ArrayValue()) == 0)
}

func sortedList(v resource.PropertyValue) resource.PropertyValue {
	items := append([]resource.PropertyValue(nil), v.ArrayValue()...)
	sort.SliceStable(items, func(i, j int) bool { return describe(items[i]) < describe(items[j]) })
	return resource.NewArrayProperty(items)
}

// withState lays an old block input over the block's state, so attributes the provider computed
// (and the program left unset) compare with what they are.
func withState(oldIn, state resource.PropertyValue) resource.PropertyValue {
	st, in := plain(state), plain(oldIn)
	if !st.IsObject() {
		return oldIn
	}
	out := st.ObjectValue().Copy()
	if in.IsObject() {
		for k, v := range in.ObjectValue() {
			if !plain(v).IsNull() {
				out[k] = v
			}
		}
	}
	return resource.NewObjectProperty(out)
}

func emptyString(v resource.PropertyValue) bool {
	return v.IsNull() || (v.IsString() && v.StringValue() == "")
}
