package catalog

import "strings"

// Who else writes into what the component would write into. The component shares two kinds of
// object with other owners: the tags of the subnets and security groups given to `discovery`
// (an aws:ec2/tag:Tag per id) and kube-system/aws-auth's mapRoles (node access on a CONFIG_MAP
// cluster). An owner that manages the whole object takes it back with its next update — after a
// `pulumi refresh`, or with its next change — and Karpenter's nodes lose their network or their
// identity. These are the owners the component recognises; plan/owners.go refuses to share.

// IDKind is the kind of id a discovery list holds.
type IDKind string

const (
	SubnetIDs        IDKind = "subnet"
	SecurityGroupIDs IDKind = "security group"
)

// TagOwner is a resource type that manages the tags of the subnets or security groups it
// makes: pulumi-aws documents that an aws:ec2/tag:Tag on such an object "will cause a perpetual
// difference where the [owning] resource will try to remove the tag being added by the
// aws.ec2.Tag resource" (pulumi-aws, ec2.Tag). Inputs names, per kind of id, the owner's input
// that carries the discovery tag instead; a kind it does not make is absent.
type TagOwner struct {
	Type   string
	Inputs map[IDKind]string
	Source string
}

var TagOwners = []TagOwner{
	{Type: "aws:ec2/subnet:Subnet", Inputs: map[IDKind]string{SubnetIDs: "tags"}, Source: "pulumi-aws ec2.Tag"},
	{Type: "aws:ec2/defaultSubnet:DefaultSubnet", Inputs: map[IDKind]string{SubnetIDs: "tags"}, Source: "pulumi-aws ec2.Tag"},
	{Type: "aws:ec2/securityGroup:SecurityGroup", Inputs: map[IDKind]string{SecurityGroupIDs: "tags"}, Source: "pulumi-aws ec2.Tag"},
	{Type: "aws:ec2/defaultSecurityGroup:DefaultSecurityGroup", Inputs: map[IDKind]string{SecurityGroupIDs: "tags"}, Source: "pulumi-aws ec2.Tag"},
	// pulumi-eks makes security groups, never subnets (core.subnetIds are the VPC's, the default
	// VPC's without subnetIds): its cluster security group's tags are {Name, ...clusterSecurityGroupTags,
	// ...tags}, its node security group's {Name, kubernetes.io/cluster/<cluster>: owned,
	// ...nodeSecurityGroupTags, ...tags}.
	{Type: EKSComponentType, Inputs: map[IDKind]string{SecurityGroupIDs: "nodeSecurityGroupTags (its node security group; clusterSecurityGroupTags for the security group it makes for the cluster)"},
		Source: "pulumi-eks v4.3.0 nodejs/eks/cluster/cluster.ts:551-584, nodes/securitygroup.ts:104-203"},
	// awsx makes the VPC's subnets from subnetSpecs, each with its own tags.
	{Type: "awsx:ec2:Vpc", Inputs: map[IDKind]string{SubnetIDs: "subnetSpecs[].tags"}, Source: "awsx v3 ec2.Vpc, SubnetSpec.tags"},
}

// TagOwnerOf is the owner entry of a resource type for a kind of id, when that type manages the
// tags of ids of that kind.
func TagOwnerOf(resourceType string, kind IDKind) (input string, ok bool) {
	for _, o := range TagOwners {
		if o.Type == resourceType {
			input, ok = o.Inputs[kind]
			return input, ok
		}
	}
	return "", false
}

// EKSComponentType is pulumi-eks's cluster component.
const EKSComponentType = "eks:index:Cluster"

// EKSClusterType is the EKS cluster resource: a security group id that came through it
// (vpcConfig.clusterSecurityGroupId) is the one EKS made for the cluster, whose tags no resource
// of the program manages.
const EKSClusterType = "aws:eks/cluster:Cluster"

// AwsAuthOwner is a resource type that writes kube-system/aws-auth as a whole document of its
// own: pulumi-eks's Cluster makes it a kubernetes:core/v1:ConfigMap `<name>-nodeAccess` whose
// mapRoles is its roleMappings and instanceRoles, whenever the cluster's mode accepts aws-auth
// (unset, CONFIG_MAP and API_AND_CONFIG_MAP). Its next update writes that mapRoles back, and any
// role another tool mapped is gone. Mapping names the owner's input that maps a role instead.
type AwsAuthOwner struct {
	Type, Mapping, Source string
}

var AwsAuthOwners = []AwsAuthOwner{
	{Type: EKSComponentType, Mapping: "roleMappings or instanceRoles",
		Source: "pulumi-eks v4.3.0 nodejs/eks/cluster/cluster.ts:1001-1024, cluster/authenticationMode.ts:102-176"},
}

// AwsAuthOwnerOf is the owner entry of a resource type that writes aws-auth whole.
func AwsAuthOwnerOf(resourceType string) (AwsAuthOwner, bool) {
	for _, o := range AwsAuthOwners {
		if o.Type == resourceType {
			return o, true
		}
	}
	return AwsAuthOwner{}, false
}

// AwsAuthFieldManager is the field manager of the component's own aws-auth patch (the
// pulumi.com/patchFieldManager annotation; pulumi-kubernetes would otherwise pick a random
// `pulumi-kubernetes-<hex>` per resource), so the component tells its own ownership of mapRoles
// from another's.
const AwsAuthFieldManager = "pulumi-karpenter"

// DocumentManagers are the field managers that write their own whole document over the live one
// although their operation is Update: kubectl's client-side apply, from its last-applied
// configuration (Kubernetes documentation, "Server-Side Apply": "kubectl-client-side-apply").
// Any manager whose operation is Apply (server-side apply: pulumi-kubernetes, `kubectl apply
// --server-side`, Terraform's kubernetes_config_map_v1_data, Argo CD, Flux) does the same.
// Managers that read, change and write back (eksctl, EKS for managed node groups, `kubectl edit`)
// keep what others added.
var DocumentManagers = []string{"kubectl-client-side-apply"}

// AwsAuthRoleArn is a role's ARN as aws-auth's mapRoles takes it: without the role's path. EKS
// User Guide, "Create access entries": "If the ARN is for an IAM role, it can include a path.
// ARNs in aws-auth ConfigMap entries, can't include a path" (aws-iam-authenticator matches the
// role of the session, whose ARN has none). An access entry takes the ARN whole.
func AwsAuthRoleArn(arn string) string {
	prefix, resource, ok := strings.Cut(arn, ":role/")
	if !ok {
		return arn
	}
	return prefix + ":role/" + resource[strings.LastIndex(resource, "/")+1:]
}

// AccessEntryOwnerTag marks the EKS access entries the component makes, valued with the
// component's resource name. EKS allows one access entry per IAM principal on a cluster and
// names it by the principal alone ("You can't specify the same ARN in more than one access
// entry", CreateAccessEntry), and a node role of the user's often has one already: EKS makes one
// for a managed node group's role, an earlier install or a hand for others; creating a second
// fails the `up` (ResourceInUseException). Reading the entry that exists, the component tells its
// own (from an earlier `up`, which it keeps declaring) from another owner's (which it leaves to
// that owner) by this tag.
const AccessEntryOwnerTag = "pulumi-karpenter:component"
