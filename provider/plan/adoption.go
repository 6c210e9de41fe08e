package plan

import (
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/inputs"
)

// resolveAdoption resolves adopt: the names of the running install's parts, which the children
// import instead of creating. Every name and import id is built from the cluster name, so it
// must be known when the component is constructed (a cluster that exists has a known name).
func (p *Plan) resolveAdoption(args inputs.KarpenterArgs) error {
	if args.Adopt == nil || p.Mode != inputs.ModeSelfManaged {
		return nil
	}
	cluster, ok := p.known.String("clusterName")
	if !ok {
		return field.Invalid(field.NewPath("adopt"), "needs clusterName known when the component is constructed: the names and ids of what it imports are the cluster's (a running install's cluster exists, so pass its name, not an output that a preview does not know)")
	}
	names := args.Adopt.Names(p.Release, cluster)
	p.Adopt = &names
	return nil
}
