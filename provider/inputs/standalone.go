package inputs

import (
	"fmt"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"

	"github.com/pulumi/pulumi-go-provider/infer"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
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

// describeVersion documents the mode and version inputs of a NodePool or NodeClass.
func describeVersion(an infer.Annotator, mode **Mode, version **string, allowUnverified **bool) {
	an.Describe(mode, "The Karpenter component's `mode`: `selfManaged` (a karpenter.k8s.aws EC2NodeClass) or `autoMode` (an EKS Auto Mode eks.amazonaws.com/v1 NodeClass, with Auto Mode's NodePool rules; no `version`). "+Default(catalog.DefaultMode))
	an.Describe(version, fmt.Sprintf("The Karpenter version installed in the cluster (the component's `version` output): decides the custom resource's API version and which fields it may set. Supported: %s. %s", catalog.SupportedRangeText(), Default(catalog.DefaultVersion)))
	an.Describe(allowUnverified, "Accept a `version` newer than the newest release this package has verified, as the component's `allowUnverifiedVersion` does. "+Default(catalog.DefaultAllowUnverifiedVersion))
}
