package provider

// karpenter:index:NodePool and karpenter:index:NodeClass: one Karpenter NodePool or
// EC2NodeClass declared outside the Karpenter component (another team, another stack). Their
// `spec` is the very type of an entry of the component's `nodePools`/`nodeClasses`, and they
// are validated, defaulted and rendered by the same code for the same Karpenter version; they
// create only the custom resource (no IAM, no Helm release).

import (
	"errors"
	"fmt"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/children"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/inputs"

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
	an.Describe(&p, "A Karpenter NodePool declared outside the `Karpenter` component, e.g. by another team or from another stack that reads the component's outputs through a StackReference. Creates only the custom resource: Karpenter (the component, or whoever installed it) must already run in the cluster, and the resource must be given the same kubernetes provider. Destroying it waits, like the component's pools, until Karpenter has drained and terminated the pool's nodes.")
	an.Describe(&p.NodePoolName, "Name of the NodePool object.")
	an.Describe(&p.Version, "The Karpenter version the pool was rendered for; empty with mode `autoMode`.")
}

// NewNodePool builds a NodePool resource.
func NewNodePool(ctx *pulumi.Context, name string, args inputs.NodePoolArgs, opts ...pulumi.ResourceOption) (*NodePool, error) {
	comp := &NodePool{}
	rel, err := children.ConstructStandalone(ctx, name, comp, args.Mode, args.Version, args.AllowUnverifiedVersion, children.Standalone{
		Token:  nodePoolToken,
		Kind:   func(rel catalog.Release) catalog.ApiKind { return rel.NodePool },
		Object: args.Spec.Name,
		Validate: func(rel catalog.Release) []error {
			errs := inputs.ValidateNodePool(field.NewPath("spec"), args.Spec, rel)
			if args.Spec.NodeClassRef == nil {
				errs = append(errs, fmt.Errorf("spec.nodeClassRef: required (the name of a %s in the cluster)", rel.NodeClass.Kind))
			}
			return errs
		},
		Warnings: func(rel catalog.Release) []string {
			return inputs.PoolWarnings(field.NewPath("spec"), args.Spec, nil, rel)
		},
		Pool: &args.Spec,
	}, opts)
	if err != nil {
		return nil, err
	}
	comp.NodePoolName = pulumi.String(args.Spec.Name).ToStringOutput()
	comp.Version = children.VersionOutput(rel)
	return comp, nil
}

// NodeClass is one EC2NodeClass (an AWSNodeTemplate before Karpenter 0.32).
type NodeClass struct {
	pulumi.ResourceState

	NodeClassName pulumi.StringOutput `pulumi:"nodeClassName"`
	Version       pulumi.StringOutput `pulumi:"version"`
}

func (c *NodeClass) Annotate(an infer.Annotator) {
	an.Describe(&c, "A Karpenter EC2NodeClass declared outside the `Karpenter` component, e.g. by another team or from another stack that reads the component's outputs through a StackReference. Creates only the custom resource (no IAM: its `role` is an existing node role, usually the component's `nodeRoleName`): Karpenter must already run in the cluster, and the resource must be given the same kubernetes provider.")
	an.Describe(&c.NodeClassName, "Name of the EC2NodeClass object.")
	an.Describe(&c.Version, "The Karpenter version the class was rendered for; empty with mode `autoMode`.")
}

// NewNodeClass builds a NodeClass resource.
func NewNodeClass(ctx *pulumi.Context, name string, args inputs.NodeClassArgs, opts ...pulumi.ResourceOption) (*NodeClass, error) {
	if args.ClusterName == nil {
		return nil, errors.New("clusterName: required (the name of the EKS cluster)")
	}
	c := args.Spec
	comp := &NodeClass{}
	rel, err := children.ConstructStandalone(ctx, name, comp, args.Mode, args.Version, args.AllowUnverifiedVersion, children.Standalone{
		Token:       nodeClassToken,
		Kind:        func(rel catalog.Release) catalog.ApiKind { return rel.NodeClass },
		Object:      c.Name,
		ClusterName: args.ClusterName,
		Checks: func(rel catalog.Release) []inputs.InputCheck {
			return append([]inputs.InputCheck{{Field: field.NewPath("clusterName"), Value: args.ClusterName.ToStringOutput().ToStringPtrOutput(), Check: inputs.CheckClusterName}}, inputs.ClassInputChecks(field.NewPath("spec"), c, rel)...)
		},
		Validate: func(rel catalog.Release) []error {
			errs := inputs.ValidateClass(field.NewPath("spec"), c, rel)
			if (rel.AutoMode != nil || rel.Has(catalog.FeatureNodeClassRole)) && c.Role == nil && c.InstanceProfile == nil {
				errs = append(errs, errors.New("spec.role: required unless instanceProfile is set (the node IAM role, e.g. the Karpenter component's nodeRoleName)"))
			}
			return errs
		},
		Warnings: func(rel catalog.Release) []string { return inputs.ClassWarnings(field.NewPath("spec"), c, rel) },
		Class:    &c,
	}, opts)
	if err != nil {
		return nil, err
	}
	comp.NodeClassName = pulumi.String(c.Name).ToStringOutput()
	comp.Version = children.VersionOutput(rel)
	return comp, nil
}
