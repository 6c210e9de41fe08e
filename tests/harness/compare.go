package harness

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
)

// Missing lists every place where want is not contained in got: each map key of want must be
// present in got with a contained value, lists must have equal length and contained elements,
// and scalars must be equal. Keys only in got (server defaults, metadata the server adds) are
// fine. Both sides are normalised through JSON first so int64 and float64 compare equal.
func Missing(want, got any) []string {
	var diffs []string
	missing(normalize(want), normalize(got), "", &diffs)
	return diffs
}

func missing(want, got any, path string, diffs *[]string) {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			*diffs = append(*diffs, fmt.Sprintf("%s: sent an object, read back %s", orRoot(path), show(got)))
			return
		}
		keys := make([]string, 0, len(w))
		for k := range w {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			gv, ok := g[k]
			if !ok {
				// An explicit null is dropped by the server (and by pulumi-kubernetes before
				// sending). Anything else that vanished was pruned as unknown to the schema.
				if w[k] == nil {
					continue
				}
				*diffs = append(*diffs, fmt.Sprintf("%s.%s: sent %s, missing in read-back", path, k, show(w[k])))
				continue
			}
			missing(w[k], gv, path+"."+k, diffs)
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			*diffs = append(*diffs, fmt.Sprintf("%s: sent %s, read back %s", orRoot(path), show(want), show(got)))
			return
		}
		for i := range w {
			missing(w[i], g[i], fmt.Sprintf("%s[%d]", path, i), diffs)
		}
	default:
		if !reflect.DeepEqual(want, got) {
			*diffs = append(*diffs, fmt.Sprintf("%s: sent %s, read back %s", orRoot(path), show(want), show(got)))
		}
	}
}

func normalize(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return v
	}
	return out
}

func orRoot(p string) string {
	if p == "" {
		return "."
	}
	return p
}

func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// UnknownValues lists the paths of rendered chart values that the chart's values.yaml does
// not declare: Helm accepts any values, so a key the chart's templates never read (a setting
// of another chart generation, a typo) would otherwise be ignored silently. Below a key whose
// default is an empty map or null (annotations, resources, tags) anything goes.
func UnknownValues(defaults, rendered map[string]any) []string {
	var out []string
	unknownValues(defaults, rendered, "", &out)
	sort.Strings(out)
	return out
}

func unknownValues(defaults, rendered map[string]any, path string, out *[]string) {
	for k, v := range rendered {
		p := k
		if path != "" {
			p = path + "." + k
		}
		d, ok := defaults[k]
		if !ok {
			*out = append(*out, p)
			continue
		}
		dm, dIsMap := d.(map[string]any)
		switch {
		case d == nil || (dIsMap && len(dm) == 0):
			// free-form
		case dIsMap:
			if vm, vIsMap := v.(map[string]any); vIsMap {
				unknownValues(dm, vm, p, out)
			} else if v != nil {
				*out = append(*out, p+" (the chart expects an object)")
			}
		}
	}
}
