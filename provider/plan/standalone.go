package plan

// Plans for karpenter:index:NodePool and karpenter:index:NodeClass: one custom resource declared
// outside the component, checked, defaulted and rendered by the same code as an entry of its
// nodePools or nodeClasses, for the same Karpenter version. They name no AWS resource, so no
// component-name check.

import (
	"fmt"
	"slices"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/inputs"
)

// standalonePath is where a standalone resource's object is: its `spec` input.
var standalonePath = field.NewPath("spec")

// ForNodePool validates a NodePool resource's inputs and plans its one pool.
func ForNodePool(name string, args inputs.NodePoolArgs) (*Plan, error) {
	rel, err := ReleaseForMode(args.Mode, args.Version, args.AllowUnverifiedVersion)
	if err != nil {
		return nil, err
	}
	errs := inputs.ValidateNodePool(standalonePath, args.Spec, rel)
	if args.Spec.NodeClassRef == nil {
		errs = append(errs, field.Required(standalonePath.Child("nodeClassRef"), fmt.Sprintf("(the name of a %s in the cluster)", rel.NodeClass.Kind)))
	}
	if err := field.Join(errs...); err != nil {
		return nil, err
	}
	p := standalonePlan(name, KindNodePool, rel)
	p.Pools = []inputs.NodePoolSpec{args.Spec}
	p.inputWarnings = inputs.PoolWarnings(standalonePath, args.Spec, nil, rel)
	completePools(p.Pools, rel)
	return p, nil
}

// ForNodeClass validates a NodeClass resource's inputs and plans its one class.
func ForNodeClass(name string, args inputs.NodeClassArgs) (*Plan, error) {
	if args.ClusterName == nil {
		return nil, field.Required(field.NewPath("clusterName"), "(the name of the EKS cluster)")
	}
	rel, err := ReleaseForMode(args.Mode, args.Version, args.AllowUnverifiedVersion)
	if err != nil {
		return nil, err
	}
	c := args.Spec
	errs := inputs.ValidateClass(standalonePath, c, rel)
	if (rel.IsAutoMode() || rel.Has(catalog.FeatureNodeClassRole)) && c.Role == nil && c.InstanceProfile == nil {
		errs = append(errs, field.Invalid(standalonePath.Child("role"), "required unless instanceProfile is set (the node IAM role, e.g. the Karpenter component's nodeRoleName)"))
	}
	if err := field.Join(errs...); err != nil {
		return nil, err
	}
	p := standalonePlan(name, KindNodeClass, rel)
	p.Classes = []inputs.NodeClassSpec{c}
	p.inputWarnings = inputs.ClassWarnings(standalonePath, c, rel)
	completeClasses(p.Classes, rel)
	p.Deferred = inputs.Deferred{ClusterName: args.ClusterName}
	return p, nil
}

func standalonePlan(name string, kind Kind, rel catalog.Release) *Plan {
	return &Plan{Name: name, Kind: kind, Release: rel, DefaultAmiAlias: catalog.DefaultAmiAliasOf(rel)}
}

// PoolPath and ClassPath are the input paths of the i-th pool and class: an entry of the
// component's lists, or a standalone resource's spec.
func (p *Plan) PoolPath(i int) *field.Path  { return p.objectPath("nodePools", i) }
func (p *Plan) ClassPath(i int) *field.Path { return p.objectPath("nodeClasses", i) }

// ObjectPath is the path of the pool (pool) or class named name.
func (p *Plan) ObjectPath(pool bool, name string) *field.Path {
	if pool {
		return p.PoolPath(slices.IndexFunc(p.Pools, func(s inputs.NodePoolSpec) bool { return s.Name == name }))
	}
	return p.ClassPath(slices.IndexFunc(p.Classes, func(s inputs.NodeClassSpec) bool { return s.Name == name }))
}

func (p *Plan) objectPath(list string, i int) *field.Path {
	if p.Kind != KindComponent {
		return standalonePath
	}
	return field.NewPath(list).Index(i)
}
