package plan

import (
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/inputs"
)

// resolveAutoMode fills an Auto Mode plan: the node role (or nodeRoleArn) and its access; no
// controller, release or queue (checkInputs refuses every self-managed input that is set).
func (p *Plan) resolveAutoMode(args inputs.KarpenterArgs) {
	// Nodes of a custom NodeClass join only through an EC2 access entry, so the component
	// creates one even for nodeRoleArn: a role EKS already has an entry for (the cluster's
	// computeConfig.nodeRoleArn) fails loudly at create — set nodeAccess none then — where a
	// missing entry fails silently.
	p.NodeAccess = inputs.Deref(args.NodeAccess, catalog.DefaultNodeAccess)
}
