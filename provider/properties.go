package provider

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/property"
)

// No silent drops: the SDKs decode only the properties a type declares, so a misspelt key in a
// YAML program, a Python dict or a render args file would otherwise be dropped and the object
// would quietly behave differently. checkUnknownProperties walks the raw inputs against the
// Go types the schema is generated from and names every key they do not declare.

// checkUnknownProperties reports the inputs that t (a struct with `pulumi:"..."` tags) does
// not declare, by path, e.g. `nodePools[0].disruption.consolidationPolicyy`.
func checkUnknownProperties(inputs property.Map, t reflect.Type) error {
	var errs []error
	walkProperties("", property.New(inputs), t, &errs)
	return errors.Join(errs...)
}

func walkProperties(path string, v property.Value, t reflect.Type, errs *[]error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case v.IsComputed() || v.IsNull():
		// Unknown during a preview, or unset: nothing to check yet.
	case t.Kind() == reflect.Struct && v.IsMap():
		fields := declaredProperties(t)
		for _, key := range sortedKeys(v.AsMap().AsMap()) {
			field, ok := fields[key]
			if !ok {
				*errs = append(*errs, fmt.Errorf("%s: unknown property%s", joinPath(path, key), suggestion(key, fields)))
				continue
			}
			walkProperties(joinPath(path, key), v.AsMap().Get(key), field, errs)
		}
	case t.Kind() == reflect.Slice && v.IsArray():
		for i, elem := range v.AsArray().AsSlice() {
			walkProperties(fmt.Sprintf("%s[%d]", path, i), elem, t.Elem(), errs)
		}
	}
	// Everything else is a scalar, a free-form map (tags, values, kubelet additionalSettings)
	// or an Input the SDK passes through: no property names to check. Type mismatches are the
	// SDK's decoding errors.
}

// declaredProperties are a struct's schema property names and their types.
func declaredProperties(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("pulumi"), ",")
		if name != "" && f.IsExported() {
			out[name] = f.Type
		}
	}
	return out
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// suggestion names the declared property a misspelt key most likely meant: one that differs
// only in case, or by at most two edits.
func suggestion(key string, fields map[string]reflect.Type) string {
	best, bestDistance := "", 3
	for _, name := range sortedKeys(fields) {
		d := editDistance(strings.ToLower(key), strings.ToLower(name))
		if d < bestDistance {
			best, bestDistance = name, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s?)", best)
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
