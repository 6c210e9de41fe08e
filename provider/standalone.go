package provider

// karpenter:index:NodePool and karpenter:index:NodeClass: one Karpenter NodePool or
// EC2NodeClass declared outside the Karpenter component (another team, another stack). Their
// `spec` is the very type of an entry of the component's `nodePools`/`nodeClasses`, and they
// are validated, defaulted and rendered by the same code for the same Karpenter version; they
// create only the custom resource (no IAM, no Helm release).

import (
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/children"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/inputs"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/plan"

	"github.com/pulumi/pulumi-go-provider/infer"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

const (
	nodePoolToken  = "karpenter:index:NodePool"
	nodeClassToken = "karpenter:index:NodeClass"
)

// NodePool is one Karpenter NodePool (a Provisioner before Karpenter 0.32).
type NodePool struct {
	pulumi.ResourceState

	NodePoolName pulumi.StringOutput `pulumi:"nodePoolName"`
	Version      pulumi.StringOutput `pulumi:"version"`
}

func (p *NodePool) Annotate(an infer.Annotator) {
	an.Describe(&p, "A Karpenter NodePool declared outside the `Karpenter` component, e.g. by another team or from another stack that reads the component's outputs through a StackReference. Creates only the custom resource: Karpenter (the component, or whoever installed it) must already run in the cluster, and the resource must be given the same kubernetes provider. Destroying it waits, like the component's pools, until Karpenter has drained and terminated the pool's nodes."+
		exampleUsage("standalone", "A team's NodeClass and NodePool in a cluster where Karpenter runs"))
	an.Describe(&p.NodePoolName, "Name of the NodePool object.")
	an.Describe(&p.Version, "The Karpenter version the pool was rendered for; empty with mode `autoMode`.")
}

// NewNodePool builds a NodePool resource.
func NewNodePool(ctx *pulumi.Context, name string, args inputs.NodePoolArgs, opts ...pulumi.ResourceOption) (*NodePool, error) {
	p, err := plan.ForNodePool(name, args)
	if err != nil {
		return nil, err
	}
	comp := &NodePool{}
	if err := children.InstallStandalone(ctx, nodePoolToken, comp, p, opts); err != nil {
		return nil, err
	}
	comp.NodePoolName = pulumi.String(args.Spec.Name).ToStringOutput()
	comp.Version = children.VersionOutput(p)
	return comp, nil
}

// NodeClass is one EC2NodeClass (an AWSNodeTemplate before Karpenter 0.32).
type NodeClass struct {
	pulumi.ResourceState

	NodeClassName pulumi.StringOutput `pulumi:"nodeClassName"`
	Version       pulumi.StringOutput `pulumi:"version"`
}

func (c *NodeClass) Annotate(an infer.Annotator) {
	an.Describe(&c, "A Karpenter EC2NodeClass declared outside the `Karpenter` component, e.g. by another team or from another stack that reads the component's outputs through a StackReference. Creates only the custom resource (no IAM: its `role` is an existing node role, usually the component's `nodeRoleName`): Karpenter must already run in the cluster, and the resource must be given the same kubernetes provider."+
		exampleUsage("standalone", "A team's NodeClass and NodePool in a cluster where Karpenter runs"))
	an.Describe(&c.NodeClassName, "Name of the EC2NodeClass object.")
	an.Describe(&c.Version, "The Karpenter version the class was rendered for; empty with mode `autoMode`.")
}

// NewNodeClass builds a NodeClass resource.
func NewNodeClass(ctx *pulumi.Context, name string, args inputs.NodeClassArgs, opts ...pulumi.ResourceOption) (*NodeClass, error) {
	p, err := plan.ForNodeClass(name, args)
	if err != nil {
		return nil, err
	}
	comp := &NodeClass{}
	if err := children.InstallStandalone(ctx, nodeClassToken, comp, p, opts); err != nil {
		return nil, err
	}
	comp.NodeClassName = pulumi.String(args.Spec.Name).ToStringOutput()
	comp.Version = children.VersionOutput(p)
	return comp, nil
}
