package children

import (
	"slices"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/inputs"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// Registering the custom resources: the node classes and pools, after everything they need.

// createCustomResources creates the node classes and pools after deps: the releases and the
// node IAM (nodes must be able to join), so a destroy deletes them first, while Karpenter
// still runs with its permissions and can drain and terminate the nodes they own. Each pool
// depends on its class: a destroy deletes the pool (Karpenter terminates its nodes) before the
// class, whose finalizer waits for those nodes. Without it the engine may order them the other
// way — it takes a component's earlier children as dependencies of a resource that depends on
// the component, which happens when the Karpenter component is parented to the cluster it takes
// its inputs from — and the class's deletion then waits forever for nodes its pool keeps.
func (b *builder) createCustomResources(deps []pulumi.Resource) error {
	r := b.plan.Release
	classes := map[string]inputs.NodeClassSpec{}
	registered := map[string]pulumi.Resource{}
	for _, c := range b.plan.Classes {
		classes[c.Name] = c
		class, err := b.newCustomResource("-nodeclass-"+c.Name, r.NodeClass, c.Name, b.nodeClassSpec(c), deps)
		if err != nil {
			return err
		}
		registered[c.Name] = class
	}
	for _, p := range b.plan.Pools {
		ref := inputs.Deref(p.NodeClassRef, "")
		poolDeps := deps
		if class, ok := registered[ref]; ok {
			poolDeps = append(slices.Clone(deps), class)
		}
		if _, err := b.newCustomResource("-nodepool-"+p.Name, r.NodePool, p.Name, b.nodePoolSpec(p, classes[ref]), poolDeps); err != nil {
			return err
		}
	}
	return nil
}

// newCustomResource registers a NodePool, EC2NodeClass, Provisioner or AWSNodeTemplate. The
// v1 kinds alias their v1beta1 types: the API server serves one object under both versions,
// so an upgrade across the boundary must update it in place — replacing it would delete the
// live object (and drain its nodes) after creating its successor.
func (b *builder) newCustomResource(suffix string, kind catalog.ApiKind, name string, body map[string]any, deps []pulumi.Resource) (*Child, error) {
	// Pools and classes are cluster-scoped: one the adopted install has is imported by its name
	// (the kubernetes provider cannot read one that may not exist, so adopt names them).
	// (checkAdoptedDrift read them before any child.)
	installed := b.plan.Adopt.Installed(kind == b.plan.Release.NodePool, name)
	opts := append([]pulumi.ResourceOption{pulumi.DependsOn(deps)}, b.adoptingIf(installed, name)...)
	for _, older := range catalog.PreviousAPIVersions[kind] {
		opts = append(opts, pulumi.Aliases([]pulumi.Alias{{Type: pulumi.String(older.Token())}}))
	}
	metadata := pulumi.Map{"name": pulumi.String(name)}
	if installed {
		// The install applied it with kubectl, whose client-side apply owns every field it set
		// (field manager kubectl-client-side-apply): the component's server-side apply of a value
		// written otherwise (the guide's `cpu: 1000`, the component's "1000") would conflict and
		// fail the preview. Taking the object over, the component takes those fields.
		metadata["annotations"] = pulumi.StringMap{"pulumi.com/patchForce": pulumi.String("true")}
	}
	return b.newChild(kind.Token(), suffix, pulumi.Map{
		"apiVersion": pulumi.String(kind.ApiVersion),
		"kind":       pulumi.String(kind.Kind),
		"metadata":   metadata,
		"spec":       pulumi.ToMap(withUnknowns(body).(map[string]any)),
	}, opts...)
}

// withUnknowns turns the placeholders of values a preview does not know (inputs/unknown.go) back
// into unknown outputs, so the preview shows them as unknown.
func withUnknowns(v any) any {
	switch x := v.(type) {
	case string:
		if inputs.IsUnknown(x) {
			return pulumi.UnsafeUnknownOutput(nil)
		}
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if inputs.IsUnknown(k) {
				return pulumi.UnsafeUnknownOutput(nil) // the whole map was unknown
			}
			out[k] = withUnknowns(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = withUnknowns(e)
		}
		return out
	}
	return v
}
