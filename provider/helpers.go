package provider

import "sort"

// Small generic helpers every file uses.

// deref is *p, or def when p is nil (an optional input's value or its default).
func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

// ptr is a pointer to v.
func ptr[T any](v T) *T { return &v }

// sortedKeys are a map's keys in order: everything the component renders from a map is
// emitted in this order, so renders are deterministic.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
