package children

// The typed nodePools render into the release's generation: NodePool v1 or v1beta1, or
// Provisioner (customresources.go registers them after the node classes). Fields a generation
// cannot express were rejected by validation, so rendering never drops a field; the plan's pools
// are complete (requirements, expireAfter and every disruption setting set), so rendering adds
// no default of its own.

import (
	"slices"
	"time"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/inputs"
)

// nodePoolSpec renders a pool; class is the node class it refers to (in v1beta1 and the
// Provisioner era the kubelet settings live on the pool, so they come from the class).
func (b *builder) nodePoolSpec(p inputs.NodePoolSpec, class inputs.NodeClassSpec) map[string]any {
	switch b.plan.Release.Name {
	case "v1alpha5":
		return b.provisionerSpec(p, class)
	case "v1beta1":
		return b.nodePoolSpecV1beta1(p, class)
	default:
		return b.nodePoolSpecV1(p)
	}
}

// nodePoolSpecV1 renders the karpenter.sh/v1 NodePool.
func (b *builder) nodePoolSpecV1(p inputs.NodePoolSpec) map[string]any {
	r := b.plan.Release
	template := map[string]any{
		"nodeClassRef": map[string]any{"group": r.NodeClass.Group(), "kind": r.NodeClass.Kind, "name": inputs.Deref(p.NodeClassRef, "")},
		"requirements": renderRequirements(p.Requirements),
		"expireAfter":  *p.ExpireAfter,
	}
	putTaints(template, "taints", p.Taints)
	putTaints(template, "startupTaints", p.StartupTaints)
	putString(template, "terminationGracePeriod", p.TerminationGracePeriod)

	body := map[string]any{"template": withMetadata(map[string]any{"spec": template}, p)}
	putStringMap(body, "limits", p.Limits)
	putInt(body, "weight", p.Weight)
	putInt(body, "replicas", p.Replicas)

	d := *p.Disruption
	// A static pool (replicas) ignores the consolidation settings; the defaults are written
	// anyway (before 1.15 the CRD requires consolidateAfter).
	disruption := map[string]any{
		"consolidationPolicy": string(*d.ConsolidationPolicy),
		"consolidateAfter":    *d.ConsolidateAfter,
	}
	putBudgets(disruption, d.Budgets, true)
	body["disruption"] = disruption
	return body
}

// nodePoolSpecV1beta1 renders the karpenter.sh/v1beta1 NodePool: expiry under disruption,
// kubelet on the pool, WhenUnderutilized instead of WhenEmptyOrUnderutilized (which takes no
// consolidateAfter).
func (b *builder) nodePoolSpecV1beta1(p inputs.NodePoolSpec, class inputs.NodeClassSpec) map[string]any {
	r := b.plan.Release
	template := map[string]any{
		"nodeClassRef": map[string]any{"apiVersion": r.NodeClass.ApiVersion, "kind": r.NodeClass.Kind, "name": inputs.Deref(p.NodeClassRef, "")},
		"requirements": renderRequirements(p.Requirements),
	}
	putTaints(template, "taints", p.Taints)
	putTaints(template, "startupTaints", p.StartupTaints)
	if class.Kubelet != nil {
		template["kubelet"] = renderKubelet(class.Kubelet)
	}

	body := map[string]any{"template": withMetadata(map[string]any{"spec": template}, p)}
	putStringMap(body, "limits", p.Limits)
	putInt(body, "weight", p.Weight)

	d := *p.Disruption
	disruption := map[string]any{"expireAfter": *p.ExpireAfter}
	if *d.ConsolidationPolicy == "WhenEmpty" {
		disruption["consolidationPolicy"] = "WhenEmpty"
		disruption["consolidateAfter"] = *d.ConsolidateAfter
	} else {
		disruption["consolidationPolicy"] = "WhenUnderutilized"
	}
	putBudgets(disruption, d.Budgets, false)
	body["disruption"] = disruption
	return body
}

// provisionerSpec renders the karpenter.sh/v1alpha5 Provisioner: consolidation is a switch,
// emptiness and expiry are TTLs in seconds, limits sit under resources.
func (b *builder) provisionerSpec(p inputs.NodePoolSpec, class inputs.NodeClassSpec) map[string]any {
	body := map[string]any{
		"providerRef":  map[string]any{"name": inputs.Deref(p.NodeClassRef, "")},
		"requirements": renderRequirements(p.Requirements),
	}
	putStringMap(body, "labels", p.Labels)
	putStringMap(body, "annotations", p.Annotations)
	putTaints(body, "taints", p.Taints)
	putTaints(body, "startupTaints", p.StartupTaints)
	if len(p.Limits) > 0 {
		resources := map[string]any{}
		putStringMap(resources, "resources", p.Limits)
		body["limits"] = resources
	}
	putInt(body, "weight", p.Weight)
	if expire := *p.ExpireAfter; expire != "Never" {
		body["ttlSecondsUntilExpired"] = seconds(expire)
	}
	d := *p.Disruption
	if *d.ConsolidationPolicy == "WhenEmpty" {
		if after := *d.ConsolidateAfter; after != "Never" {
			body["ttlSecondsAfterEmpty"] = seconds(after)
		}
	} else {
		body["consolidation"] = map[string]any{"enabled": true}
	}
	if class.Kubelet != nil {
		body["kubeletConfiguration"] = renderKubelet(class.Kubelet)
	}
	return body
}

// seconds converts a validated duration like 720h or 1m30s.
func seconds(d string) int {
	parsed, err := time.ParseDuration(d)
	if err != nil {
		panic("unvalidated duration " + d)
	}
	return int(parsed.Seconds())
}

func withMetadata(template map[string]any, p inputs.NodePoolSpec) map[string]any {
	metadata := map[string]any{}
	putStringMap(metadata, "labels", p.Labels)
	putStringMap(metadata, "annotations", p.Annotations)
	if len(metadata) > 0 {
		template["metadata"] = metadata
	}
	return template
}

func putBudgets(disruption map[string]any, budgets []inputs.Budget, withReasons bool) {
	if len(budgets) == 0 {
		return
	}
	out := make([]any, 0, len(budgets))
	for _, bu := range budgets {
		budget := map[string]any{"nodes": *bu.Nodes}
		putString(budget, "schedule", bu.Schedule)
		putString(budget, "duration", bu.Duration)
		if withReasons && len(bu.Reasons) > 0 {
			budget["reasons"] = slices.Clone(bu.Reasons)
		}
		out = append(out, budget)
	}
	disruption["budgets"] = out
}

func renderRequirements(reqs []inputs.Requirement) []any {
	out := make([]any, 0, len(reqs))
	for _, r := range reqs {
		req := map[string]any{"key": r.Key, "operator": string(r.Operator)}
		if len(r.Values) > 0 {
			req["values"] = slices.Clone(r.Values)
		}
		putInt(req, "minValues", r.MinValues)
		out = append(out, req)
	}
	return out
}

func putTaints(m map[string]any, key string, taints []inputs.Taint) {
	if len(taints) == 0 {
		return
	}
	out := make([]any, 0, len(taints))
	for _, t := range taints {
		taint := map[string]any{"key": t.Key, "effect": string(t.Effect)}
		putString(taint, "value", t.Value)
		out = append(out, taint)
	}
	m[key] = out
}
