package main

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
)

// Helpers over resource.PropertyMap: the stand-in keeps every value in Pulumi's property model
// (unknowns included) and reads plain Go values out of it only when it calls moto.

type pmap = resource.PropertyMap

// plain unwraps a secret (the engine strips secrets because Configure says acceptSecrets=false,
// but a value may still arrive wrapped).
func plain(v resource.PropertyValue) resource.PropertyValue {
	for v.IsSecret() {
		v = v.SecretValue().Element
	}
	return v
}

// unknown reports whether v is (or contains) a value that is not known yet (a preview).
func unknown(v resource.PropertyValue) bool {
	return v.ContainsUnknowns()
}

// has reports whether the key is set to a non-null value (known or not).
func has(m pmap, k string) bool {
	v, ok := m[resource.PropertyKey(k)]
	return ok && !plain(v).IsNull()
}

// str is the known string value of m[k] ("" when absent or not a string).
func str(m pmap, k string) string {
	v := plain(m[resource.PropertyKey(k)])
	if v.IsString() {
		return v.StringValue()
	}
	return ""
}

// integer is the known numeric value of m[k] and whether it is set.
func integer(m pmap, k string) (int, bool) {
	v := plain(m[resource.PropertyKey(k)])
	if v.IsNumber() {
		return int(v.NumberValue()), true
	}
	return 0, false
}

// boolean is the known boolean value of m[k] and whether it is set.
func boolean(m pmap, k string) (bool, bool) {
	v := plain(m[resource.PropertyKey(k)])
	if v.IsBool() {
		return v.BoolValue(), true
	}
	return false, false
}

// stringMap is m[k] as a map of strings (tags).
func stringMap(m pmap, k string) map[string]string {
	v := plain(m[resource.PropertyKey(k)])
	out := map[string]string{}
	if !v.IsObject() {
		return out
	}
	for key, val := range v.ObjectValue() {
		if s := plain(val); s.IsString() {
			out[string(key)] = s.StringValue()
		}
	}
	return out
}

// stringList is m[k] as a list of strings.
func stringList(m pmap, k string) []string {
	v := plain(m[resource.PropertyKey(k)])
	var out []string
	if !v.IsArray() {
		return out
	}
	for _, e := range v.ArrayValue() {
		if s := plain(e); s.IsString() {
			out = append(out, s.StringValue())
		}
	}
	return out
}

// objectList is m[k] as a list of objects.
func objectList(m pmap, k string) []pmap {
	v := plain(m[resource.PropertyKey(k)])
	var out []pmap
	if !v.IsArray() {
		return out
	}
	for _, e := range v.ArrayValue() {
		if o := plain(e); o.IsObject() {
			out = append(out, o.ObjectValue())
		}
	}
	return out
}

func sv(s string) resource.PropertyValue { return resource.NewStringProperty(s) }
func nv(n int) resource.PropertyValue    { return resource.NewNumberProperty(float64(n)) }
func bv(b bool) resource.PropertyValue   { return resource.NewBoolProperty(b) }
func unknownValue() resource.PropertyValue {
	return resource.MakeComputed(resource.NewStringProperty(""))
}

func mapValue(m map[string]string) resource.PropertyValue {
	out := resource.PropertyMap{}
	for k, v := range m {
		out[resource.PropertyKey(k)] = sv(v)
	}
	return resource.NewObjectProperty(out)
}

func listValue(items []string) resource.PropertyValue {
	out := make([]resource.PropertyValue, 0, len(items))
	for _, s := range items {
		out = append(out, sv(s))
	}
	return resource.NewArrayProperty(out)
}

// jsonEquivalent reports whether two JSON documents are equal as values (as terraform's
// SuppressEquivalentPolicyDiffs / structure.NormalizeJsonString treat policies: key order and
// whitespace do not matter).
func jsonEquivalent(a, b string) bool {
	if a == b {
		return true
	}
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	if reflect.DeepEqual(x, y) {
		return true
	}
	px, py := policyForm(x), policyForm(y)
	return px != nil && py != nil && reflect.DeepEqual(px, py)
}

// policyForm is an IAM policy document (an object with a Statement) in the form terraform's
// SuppressEquivalentPolicyDiffs compares (github.com/hashicorp/awspolicyequivalence): a single
// action, resource, principal or condition value is a one-element list, lists are sets, and so
// are the statements. Any other document (an event pattern, a redrive policy) is nil.
func policyForm(doc any) any {
	m, ok := doc.(map[string]any)
	if !ok || m["Statement"] == nil {
		return nil
	}
	statements, ok := m["Statement"].([]any)
	if !ok {
		statements = []any{m["Statement"]}
	}
	var forms []string
	for _, st := range statements {
		s, ok := st.(map[string]any)
		if !ok {
			return nil
		}
		form := map[string]any{}
		for k, v := range s {
			switch k {
			case "Action", "NotAction", "Resource", "NotResource":
				form[k] = valueSet(v)
			case "Principal", "NotPrincipal", "Condition":
				form[k] = nestedSets(v)
			case "Sid":
				if v != "" {
					form[k] = v
				}
			default:
				form[k] = v
			}
		}
		b, _ := json.Marshal(form)
		forms = append(forms, string(b))
	}
	sort.Strings(forms)
	out := map[string]any{"Statement": forms}
	for k, v := range m {
		if k != "Statement" {
			out[k] = v
		}
	}
	return out
}

// valueSet is a value or list of values as a sorted list of their JSON forms.
func valueSet(v any) []string {
	list, ok := v.([]any)
	if !ok {
		list = []any{v}
	}
	var out []string
	for _, x := range list {
		b, _ := json.Marshal(x)
		out = append(out, string(b))
	}
	sort.Strings(out)
	return out
}

// nestedSets is a principal or condition block with every leaf value a set (valueSet); "*"
// as a whole principal stays as it is.
func nestedSets(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := map[string]any{}
	for k, x := range m {
		if inner, ok := x.(map[string]any); ok {
			out[k] = nestedSets(inner)
		} else {
			out[k] = valueSet(x)
		}
	}
	return out
}

// keepIfEquivalent is what terraform's verify.PolicyToSet does on read: keep the configured
// document when the one AWS returns is equivalent, so key order never shows as drift.
func keepIfEquivalent(configured, remote string) string {
	if configured != "" && jsonEquivalent(configured, remote) {
		return configured
	}
	return remote
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// tagDiff is what terraform's tag updaters do: keys to remove and keys to (re)set.
func tagDiff(olds, news map[string]string) (remove []string, set map[string]string) {
	set = map[string]string{}
	for _, k := range sortedKeys(olds) {
		if _, ok := news[k]; !ok {
			remove = append(remove, k)
		}
	}
	for _, k := range sortedKeys(news) {
		if ov, ok := olds[k]; !ok || ov != news[k] {
			set[k] = news[k]
		}
	}
	return remove, set
}

func describe(v resource.PropertyValue) string {
	v = plain(v)
	switch {
	case v.IsString():
		return fmt.Sprintf("%q", v.StringValue())
	case v.IsComputed():
		return "<unknown>"
	default:
		return fmt.Sprint(v.Mappable())
	}
}
