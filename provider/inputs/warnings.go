package inputs

import (
	"slices"
	"strings"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"
)

// PoolWarnings are what a valid pool almost certainly did not mean: requirements no instance
// can meet, with the pool's class (nil when unknown, as for a standalone NodePool). Said on the
// component at every preview; the pool is created as written.
func PoolWarnings(path *field.Path, pool NodePoolSpec, class *NodeClassSpec, rel catalog.Release) []field.Warning {
	var out []field.Warning
	for i, r := range pool.Requirements {
		f := path.Child("requirements").Index(i)
		known, ok := catalog.WellKnownLabelValues[r.Key]
		if !ok {
			continue
		}
		var all []string
		for _, k := range known {
			if k.Since == "" || rel.Has(k.Since) {
				all = append(all, k.Value)
			}
		}
		if r.Operator == "NotIn" && !slices.ContainsFunc(all, func(v string) bool { return !slices.Contains(r.Values, v) }) {
			out = append(out, field.Warnf(f, "NotIn every value Karpenter sets on %s (%s): no instance matches, and the pool never launches a node", r.Key, strings.Join(all, ", ")))
		}
		if class == nil || r.Operator != "In" {
			continue
		}
		switch r.Key {
		case "karpenter.sh/capacity-type":
			if slices.Equal(r.Values, []string{"reserved"}) && len(class.CapacityReservationSelectorTerms) == 0 {
				out = append(out, field.Warnf(f, "only reserved capacity, and node class %q selects no capacity reservation (capacityReservationSelectorTerms): the pool never launches a node", class.Name))
			}
		case "kubernetes.io/os":
			family := class.ResolvedAmiFamily(catalog.DefaultAmiAliasOf(rel))
			if family == "" || family == "Custom" {
				continue // the AMI's OS cannot be told
			}
			os, system := "linux", "Linux"
			if strings.HasPrefix(family, "Windows") {
				os, system = "windows", "Windows"
			}
			if !slices.Contains(r.Values, os) {
				out = append(out, field.Warnf(f, "%s only, and node class %q launches %s (%s): the pool never launches a node", strings.Join(r.Values, ", "), class.Name, system, family))
			}
		}
	}
	return out
}
