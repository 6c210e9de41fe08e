package provider

// karpenter:index:NodePool and karpenter:index:NodeClass: one Karpenter NodePool or
// EC2NodeClass declared outside the Karpenter component (another team, another stack). Their
// `spec` is the very type of an entry of the component's `nodePools`/`nodeClasses`, and they
// are validated, defaulted and rendered by the same code for the same Karpenter version; they
// create only the custom resource (no IAM, no Helm release).

import (
	"errors"
	"fmt"

	"github.com/pulumi/pulumi-go-provider/infer"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

const (
	nodePoolToken  = "karpenter:index:NodePool"
	nodeClassToken = "karpenter:index:NodeClass"
)

// NodePoolArgs are the inputs of a NodePool resource.
type NodePoolArgs struct {
	Spec                   NodePoolSpec `pulumi:"spec"`
	Mode                   *Mode        `pulumi:"mode,optional"`
	Version                *string      `pulumi:"version,optional"`
	AllowUnverifiedVersion *bool        `pulumi:"allowUnverifiedVersion,optional"`
}

func (a *NodePoolArgs) Annotate(an infer.Annotator) {
	an.Describe(&a.Spec, "The pool, exactly as an entry of the Karpenter component's `nodePools` (same fields, defaults and validation). `nodeClassRef` is required: the name of a node class in the cluster (one of the component's `nodeClassNames`, or a `NodeClass` resource's `nodeClassName`) — an EC2NodeClass, or with mode `autoMode` an Auto Mode NodeClass.")
	describeVersion(an, &a.Mode, &a.Version, &a.AllowUnverifiedVersion)
}

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
func NewNodePool(ctx *pulumi.Context, name string, args NodePoolArgs, opts ...pulumi.ResourceOption) (*NodePool, error) {
	comp := &NodePool{}
	rel, err := constructStandalone(ctx, name, comp, args.Mode, args.Version, args.AllowUnverifiedVersion, standalone{
		token:  nodePoolToken,
		kind:   func(rel release) apiKind { return rel.nodePool },
		object: args.Spec.Name,
		validate: func(rel release) []error {
			errs := validateNodePool("spec", args.Spec, rel)
			if args.Spec.NodeClassRef == nil {
				errs = append(errs, fmt.Errorf("spec.nodeClassRef: required (the name of a %s in the cluster)", rel.nodeClass.kind))
			}
			return errs
		},
		// Before Karpenter 1.0 the kubelet settings live on the pool and come from its class;
		// a standalone pool does not know its class, so it renders none.
		spec: func(b *builder) map[string]any { return b.nodePoolSpec(args.Spec, NodeClassSpec{}) },
	}, opts)
	if err != nil {
		return nil, err
	}
	comp.NodePoolName = pulumi.String(args.Spec.Name).ToStringOutput()
	comp.Version = rel.versionOutput()
	return comp, nil
}

// NodeClassArgs are the inputs of a NodeClass resource.
type NodeClassArgs struct {
	ClusterName            pulumi.StringInput `pulumi:"clusterName"`
	Spec                   NodeClassSpec      `pulumi:"spec"`
	Mode                   *Mode              `pulumi:"mode,optional"`
	Version                *string            `pulumi:"version,optional"`
	AllowUnverifiedVersion *bool              `pulumi:"allowUnverifiedVersion,optional"`
}

func (a *NodeClassArgs) Annotate(an infer.Annotator) {
	an.Describe(&a.ClusterName, "Name of the EKS cluster (the component's `clusterName`): subnets and security groups are selected by the tag `karpenter.sh/discovery: <clusterName>` when the spec selects none.")
	an.Describe(&a.Spec, "The class, exactly as an entry of the Karpenter component's `nodeClasses` (same fields, defaults and validation). `role` is required unless `instanceProfile` is set (from Karpenter 0.32; always in Auto Mode): give the component's `nodeRoleName` output. In Auto Mode that role needs an EC2 access entry with AmazonEKSAutoNodePolicy, which a `Karpenter` component with mode `autoMode` creates for its node role.")
	describeVersion(an, &a.Mode, &a.Version, &a.AllowUnverifiedVersion)
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
func NewNodeClass(ctx *pulumi.Context, name string, args NodeClassArgs, opts ...pulumi.ResourceOption) (*NodeClass, error) {
	if args.ClusterName == nil {
		return nil, errors.New("clusterName: required (the name of the EKS cluster)")
	}
	c := args.Spec
	comp := &NodeClass{}
	rel, err := constructStandalone(ctx, name, comp, args.Mode, args.Version, args.AllowUnverifiedVersion, standalone{
		token:       nodeClassToken,
		kind:        func(rel release) apiKind { return rel.nodeClass },
		object:      c.Name,
		clusterName: args.ClusterName,
		checks: func(rel release) []inputCheck {
			return append([]inputCheck{{"clusterName", args.ClusterName.ToStringOutput().ToStringPtrOutput(), checkClusterName}}, classInputChecks("spec", c, rel)...)
		},
		validate: func(rel release) []error {
			errs := validateClass("spec", c, rel)
			if (rel.autoMode != nil || rel.has(featureNodeClassRole)) && c.Role == nil && c.InstanceProfile == nil {
				errs = append(errs, errors.New("spec.role: required unless instanceProfile is set (the node IAM role, e.g. the Karpenter component's nodeRoleName)"))
			}
			return errs
		},
		warnings: func(rel release) []string { return classWarnings("spec", c, rel) },
		spec:     func(b *builder) map[string]any { return b.nodeClassSpec(c) },
	}, opts)
	if err != nil {
		return nil, err
	}
	comp.NodeClassName = pulumi.String(c.Name).ToStringOutput()
	comp.Version = rel.versionOutput()
	return comp, nil
}

// describeVersion documents the mode and version inputs of a NodePool or NodeClass.
func describeVersion(an infer.Annotator, mode **Mode, version **string, allowUnverified **bool) {
	an.Describe(mode, "The Karpenter component's `mode`: `selfManaged` (default; a karpenter.k8s.aws EC2NodeClass) or `autoMode` (an EKS Auto Mode eks.amazonaws.com/v1 NodeClass, with Auto Mode's NodePool rules; no `version`).")
	an.Describe(version, fmt.Sprintf("The Karpenter version installed in the cluster (the component's `version` output): decides the custom resource's API version and which fields it may set. Default: %s. Supported: %s.", defaultVersion, supportedRangeText()))
	an.Describe(allowUnverified, "Accept a `version` newer than the newest release this package has verified, as the component's `allowUnverifiedVersion` does. Default: false.")
}

// standalone is what differs between a NodePool and a NodeClass resource.
type standalone struct {
	token  string
	kind   func(release) apiKind
	object string // the custom resource's name
	// clusterName and checks: the Input-typed values, validated once they resolve.
	clusterName pulumi.StringInput
	checks      func(release) []inputCheck
	validate    func(release) []error
	warnings    func(release) []string // nil: none
	spec        func(*builder) map[string]any
}

// constructStandalone looks the release up, validates the plain inputs (bad input creates
// nothing), registers the component and its one custom resource, with the component's
// builder reduced to what that needs. The custom resource waits for the component's own
// dependencies (dependsOn): a component's children do not inherit them.
func constructStandalone(ctx *pulumi.Context, name string, comp pulumi.ComponentResource, mode *Mode, version *string, allowUnverified *bool, s standalone, opts []pulumi.ResourceOption) (release, error) {
	rel, err := releaseForMode(mode, version, allowUnverified)
	if err != nil {
		return release{}, err
	}
	// No component-name check: unlike the Karpenter component, these name no AWS resource.
	if err := errors.Join(s.validate(rel)...); err != nil {
		return release{}, err
	}
	ro, err := pulumi.NewResourceOptions(opts...)
	if err != nil {
		return release{}, err
	}
	var warnings []string
	if s.warnings != nil {
		warnings = s.warnings(rel)
	}
	if err := registerComponent(ctx, s.token, name, comp, rel, warnings, opts...); err != nil {
		return release{}, err
	}
	b := &builder{
		ctx:    ctx,
		parent: comp,
		plan:   &installPlan{name: name, release: rel, defaultAmiAlias: defaultAmiAliasOf(rel)},
		args:   KarpenterArgs{ClusterName: s.clusterName},
		gate:   inputGate(checksOf(s.checks, rel), nil, nil, nil),
	}
	_, err = b.newCustomResource("", s.kind(rel), s.object, s.spec(b), ro.DependsOn)
	return rel, err
}

func checksOf(checks func(release) []inputCheck, rel release) []inputCheck {
	if checks == nil {
		return nil
	}
	return checks(rel)
}
