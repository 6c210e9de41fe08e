package children

import (
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/inputs"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/plan"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// InstallStandalone registers a NodePool or NodeClass resource (a plan of plan.ForNodePool or
// plan.ForNodeClass) and its one custom resource, with the component's builder reduced to what
// that needs. The custom resource waits for the resource's own dependencies (dependsOn): a
// component's children do not inherit them.
func InstallStandalone(ctx *pulumi.Context, token string, comp pulumi.ComponentResource, p *plan.Plan, opts []pulumi.ResourceOption) error {
	ro, err := pulumi.NewResourceOptions(opts...)
	if err != nil {
		return err
	}
	if err := RegisterComponent(ctx, token, p.Name, comp, opts...); err != nil {
		return err
	}
	Warn(ctx, comp, p)
	b := &builder{ctx: ctx, parent: comp, plan: p}
	b.gate = b.validateInputs()
	if p.Kind == plan.KindNodePool {
		pool := p.Pools[0]
		// No kubelet settings: before Karpenter 1.0 they live on the pool and come from its
		// class, which a standalone pool does not know.
		spec := b.nodePoolSpec(pool, inputs.NodeClassSpec{})
		if err := b.checkBounds(p.Release.NodePool, true, pool.Name, "", spec); err != nil {
			return err
		}
		_, err = b.newCustomResource("", p.Release.NodePool, pool.Name, spec, ro.DependsOn)
		return err
	}
	class := p.Classes[0]
	spec := b.nodeClassSpec(class)
	if err := b.checkBounds(p.Release.NodeClass, false, class.Name, "", spec); err != nil {
		return err
	}
	_, err = b.newCustomResource("", p.Release.NodeClass, class.Name, spec, ro.DependsOn)
	return err
}
