package harness

import (
	"fmt"
	"slices"
)

// edges returns, for each resource, the resources it must be created after: its dependsOn
// and its parent when the parent is itself a rendered resource (Pulumi creates a parent
// before its children and deletes it after them). A parent named like the component is the
// component, even if a child shares that logical name (URNs differ by type, names may not).
func (r *Render) edges() map[string][]string {
	names := map[string]bool{}
	for _, res := range r.Resources {
		names[res.Name] = true
	}
	deps := map[string][]string{}
	for _, res := range r.Resources {
		d := slices.Clone(res.DependsOn)
		if res.Parent != "" && res.Parent != r.Component.Name && names[res.Parent] {
			d = append(d, res.Parent)
		}
		deps[res.Name] = d
	}
	return deps
}

// CreateOrder is a topological order of the dependency graph; among resources whose
// dependencies are all met it keeps registration order, so the result is deterministic.
func (r *Render) CreateOrder() ([]Resource, error) {
	deps := r.edges()
	done := map[string]bool{}
	var order []Resource
	for len(order) < len(r.Resources) {
		progressed := false
		for _, res := range r.Resources {
			if done[res.Name] {
				continue
			}
			ready := true
			for _, d := range deps[res.Name] {
				if !done[d] {
					ready = false
					break
				}
			}
			if ready {
				done[res.Name] = true
				order = append(order, res)
				progressed = true
				break // restart from the first resource: earliest-registered ready resource first
			}
		}
		if !progressed {
			var stuck []string
			for _, res := range r.Resources {
				if !done[res.Name] {
					stuck = append(stuck, res.Name)
				}
			}
			return nil, fmt.Errorf("dependency cycle among %v", stuck)
		}
	}
	return order, nil
}

// DeleteOrder is the reverse of CreateOrder: how `pulumi destroy` would walk the resources
// if it deleted one at a time.
func (r *Render) DeleteOrder() ([]Resource, error) {
	order, err := r.CreateOrder()
	slices.Reverse(order)
	return order, err
}

// DependsOnTransitively reports whether a must be created after (and so deleted before) b
// along the rendered graph. Pulumi deletes unrelated resources in parallel, so only this
// relation — not positions in one particular order — guarantees a deletion sequence.
func (r *Render) DependsOnTransitively(a, b string) bool {
	deps := r.edges()
	seen := map[string]bool{}
	stack := []string{a}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, d := range deps[n] {
			if d == b {
				return true
			}
			if !seen[d] {
				seen[d] = true
				stack = append(stack, d)
			}
		}
	}
	return false
}
