package children

import (
	"errors"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/inputs"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/plan"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// Standalone is what differs between a NodePool and a NodeClass resource.
type Standalone struct {
	Token  string
	Kind   func(catalog.Release) catalog.ApiKind
	Object string // the custom resource's name
	// ClusterName and checks: the Input-typed values, validated once they resolve.
	ClusterName pulumi.StringInput
	Checks      func(catalog.Release) []inputs.InputCheck
	Validate    func(catalog.Release) []error
	Warnings    func(catalog.Release) []string // nil: none
	// Pool or Class is the object: a pool renders without kubelet settings (before Karpenter
	// 1.0 they live on the pool and come from its class, which a standalone pool does not know).
	Pool  *inputs.NodePoolSpec
	Class *inputs.NodeClassSpec
}

// ConstructStandalone looks the release up, validates the plain inputs (bad input creates
// nothing), registers the component and its one custom resource, with the component's
// builder reduced to what that needs. The custom resource waits for the component's own
// dependencies (dependsOn): a component's children do not inherit them.
func ConstructStandalone(ctx *pulumi.Context, name string, comp pulumi.ComponentResource, mode *inputs.Mode, version *string, allowUnverified *bool, s Standalone, opts []pulumi.ResourceOption) (catalog.Release, error) {
	rel, err := plan.ReleaseForMode(mode, version, allowUnverified)
	if err != nil {
		return catalog.Release{}, err
	}
	// No component-name check: unlike the Karpenter component, these name no AWS resource.
	if err := errors.Join(s.Validate(rel)...); err != nil {
		return catalog.Release{}, err
	}
	ro, err := pulumi.NewResourceOptions(opts...)
	if err != nil {
		return catalog.Release{}, err
	}
	var warnings []string
	if s.Warnings != nil {
		warnings = s.Warnings(rel)
	}
	if err := RegisterComponent(ctx, s.Token, name, comp, opts...); err != nil {
		return catalog.Release{}, err
	}
	Warn(ctx, comp, rel, warnings)
	b := &builder{
		ctx:    ctx,
		parent: comp,
		plan:   &plan.Plan{Name: name, Release: rel, DefaultAmiAlias: catalog.DefaultAmiAliasOf(rel)},
		args:   inputs.KarpenterArgs{ClusterName: s.ClusterName},
		gate:   inputGate(stringChecks(checksOf(s.Checks, rel)), nil),
	}
	var body map[string]any
	if s.Pool != nil {
		body = b.nodePoolSpec(*s.Pool, inputs.NodeClassSpec{})
	} else {
		body = b.nodeClassSpec(*s.Class)
	}
	_, err = b.newCustomResource("", s.Kind(rel), s.Object, body, ro.DependsOn)
	return rel, err
}

func checksOf(checks func(catalog.Release) []inputs.InputCheck, rel catalog.Release) []inputs.InputCheck {
	if checks == nil {
		return nil
	}
	return checks(rel)
}
