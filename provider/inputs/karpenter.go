package inputs

import (
	"fmt"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"

	"github.com/pulumi/pulumi-go-provider/infer"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// Mode says who runs Karpenter.
type Mode string

const (
	ModeSelfManaged Mode = "selfManaged"
	ModeAutoMode    Mode = "autoMode"
)

func (Mode) Values() []infer.EnumValue[Mode] {
	return []infer.EnumValue[Mode]{
		{Name: "SelfManaged", Value: ModeSelfManaged, Description: "The component installs and runs Karpenter: controller and node IAM, interruption queue, Helm releases, NodePools and EC2NodeClasses."},
		{Name: "AutoMode", Value: ModeAutoMode, Description: "EKS Auto Mode runs Karpenter: the component creates the node role with its EC2 access entry, and Auto Mode NodeClasses (eks.amazonaws.com/v1) and NodePools."},
	}
}

// Deref is *p, or def when p is nil (an optional input's value or its default).
func Deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

// KarpenterArgs are the component's inputs. Fields a decision is made on at construct time
// (versions, names, enums, the provisioning lists) are plain; fields users typically wire from
// other resources (cluster name, ARNs, endpoint, tags) are Inputs so they may be unknown
// during preview. They are what the program wrote: an unset input is nil, and what it means is
// the plan's to resolve (package plan), from the catalog's defaults.
type KarpenterArgs struct {
	// Cluster.
	Mode                      *Mode                 `pulumi:"mode,optional"`
	ClusterName               pulumi.StringInput    `pulumi:"clusterName"`
	ClusterEndpoint           pulumi.StringPtrInput `pulumi:"clusterEndpoint,optional"`
	OidcProviderArn           pulumi.StringPtrInput `pulumi:"oidcProviderArn,optional"`
	ClusterAuthenticationMode *AuthenticationMode   `pulumi:"clusterAuthenticationMode,optional"`
	Version                   *string               `pulumi:"version,optional"`
	AllowUnverifiedVersion    *bool                 `pulumi:"allowUnverifiedVersion,optional"`
	KubernetesVersion         *string               `pulumi:"kubernetesVersion,optional"`
	ReadCluster               *bool                 `pulumi:"readCluster,optional"`
	Tags                      pulumi.StringMapInput `pulumi:"tags,optional"`

	// Controller.
	Namespace                  *string                       `pulumi:"namespace,optional"`
	ServiceAccountName         *string                       `pulumi:"serviceAccountName,optional"`
	ControllerIdentity         *ControllerIdentity           `pulumi:"controllerIdentity,optional"`
	CreatePodIdentityAgent     *bool                         `pulumi:"createPodIdentityAgent,optional"`
	ControllerRoleArn          pulumi.StringPtrInput         `pulumi:"controllerRoleArn,optional"`
	ControllerPolicyStatements []PolicyStatement             `pulumi:"controllerPolicyStatements,optional"`
	ControllerPolicyArns       map[string]pulumi.StringInput `pulumi:"controllerPolicyArns,optional"`

	// Nodes.
	NodeRoleArn                  pulumi.StringPtrInput         `pulumi:"nodeRoleArn,optional"`
	NodeRoleAdditionalPolicyArns map[string]pulumi.StringInput `pulumi:"nodeRoleAdditionalPolicyArns,optional"`
	CreateInstanceProfile        *bool                         `pulumi:"createInstanceProfile,optional"`
	NodeAccess                   *NodeAccess                   `pulumi:"nodeAccess,optional"`
	CreateSpotServiceLinkedRole  *bool                         `pulumi:"createSpotServiceLinkedRole,optional"`
	Discovery                    *Discovery                    `pulumi:"discovery,optional"`

	// Interruption handling.
	InterruptionHandling *bool `pulumi:"interruptionHandling,optional"`

	// Chart.
	ChartRepository           *string               `pulumi:"chartRepository,optional"`
	RepositoryUsername        pulumi.StringPtrInput `pulumi:"repositoryUsername,optional"`
	RepositoryPassword        pulumi.StringPtrInput `pulumi:"repositoryPassword,optional" provider:"secret"`
	ControllerImageRepository *string               `pulumi:"controllerImageRepository,optional"`
	InstallCrds               *bool                 `pulumi:"installCrds,optional"`
	ReleaseTimeout            *int                  `pulumi:"releaseTimeout,optional"`
	RetainCrdsOnDelete        *bool                 `pulumi:"retainCrdsOnDelete,optional"`
	Values                    pulumi.MapInput       `pulumi:"values,optional"`

	// Provisioning.
	DefaultNodePool *bool           `pulumi:"defaultNodePool,optional"`
	NodePools       []NodePoolSpec  `pulumi:"nodePools,optional"`
	NodeClasses     []NodeClassSpec `pulumi:"nodeClasses,optional"`

	// Moving a running install under the component.
	Adopt *Adoption `pulumi:"adopt,optional"`
}

// Annotate documents every input; the descriptions become the SDK docs in every language.
func (a *KarpenterArgs) Annotate(an infer.Annotator) {
	// The defaults the descriptions state: the catalog's, for the default version.
	rel, err := catalog.LookupRelease(catalog.DefaultVersion, false)
	if err != nil {
		panic(err) // the catalog's own default is always a release it knows
	}
	autoMode := catalog.AutoModeRelease()
	an.Describe(&a.Mode, "Who runs Karpenter. `selfManaged`: the component installs it. `autoMode`: EKS Auto Mode runs it, and the component creates only the node role (AmazonEKSWorkerNodeMinimalPolicy and AmazonEC2ContainerRegistryPullOnly), its EC2 access entry with the AmazonEKSAutoNodePolicy association, and Auto Mode NodeClasses and NodePools; inputs that configure the Karpenter install (version, controller, interruption, chart and CRD settings) then fail naming the field. "+Default(catalog.DefaultMode))
	an.Describe(&a.ClusterName, "Name of the EKS cluster Karpenter manages nodes for (1-100 characters: letters, digits, '-' and '_', starting with a letter or digit). Scopes the IAM policies, names the chart's `settings.clusterName` and the default subnet/security-group discovery tag.")
	an.Describe(&a.ClusterEndpoint, "The cluster's API server endpoint (https URL), passed as `settings.clusterEndpoint`. Default: the cluster's, read from EKS (`readCluster`); without it Karpenter discovers it with `eks:DescribeCluster`.")
	an.Describe(&a.OidcProviderArn, "ARN of the cluster's IAM OIDC provider (`arn:aws:iam::<account>:oidc-provider/<issuer>`). Required unless `controllerRoleArn` is given: the controller role trusts it for IRSA.")
	an.Describe(&a.ClusterAuthenticationMode, "The cluster's authentication mode. Default: the cluster's own, read from EKS (`readCluster`); set it only when the component does not read the cluster, and then `CONFIG_MAP` means no access entry (an aws-auth mapping instead). A value the cluster disagrees with fails naming both.")
	an.Describe(&a.Version, fmt.Sprintf("Karpenter chart version to install, or a Long-Term Support line, which installs its newest patch the component knows: %s. Drives the IAM policy shape, chart values and custom resource API versions; the `version` output is the release installed. Supported: %s. %s", catalog.LTSLinesText(), catalog.SupportedRangeText(), Default(catalog.DefaultVersion)))
	an.Describe(&a.AllowUnverifiedVersion, fmt.Sprintf("Install a `version` newer than the newest release this component has verified (%s), with that release's IAM policy, chart values and custom resource rules, instead of failing. Newer patches of a verified minor never need it; a new major version is refused either way. A preview warns while it is in effect. %s", catalog.DefaultVersion, Default(catalog.DefaultAllowUnverifiedVersion)))
	an.Describe(&a.KubernetesVersion, "The cluster's Kubernetes version (e.g. `1.33`), checked against Karpenter's compatibility matrix: a `version` that does not support it fails (Kubernetes 1.33 needs Karpenter 1.5 or later; Karpenter 1.5 and later run on Kubernetes 1.26 or later). Default: the cluster's own, read from EKS (`readCluster`); set it only when the component does not read the cluster. A value the cluster disagrees with fails naming both.")
	an.Describe(&a.ReadCluster, "Read the EKS cluster and the account through the aws provider before creating anything, and check the inputs against them: the authentication mode (node access follows it), the Kubernetes version (against `version`, and the AMI aliases), the OIDC provider (IRSA), the subnets and security groups each node class selects (in the cluster's VPC), the SSM parameters of each AMI alias, the EC2 Spot service-linked role when a pool allows Spot, and, for a new install with its own node role, the getting-started guide's node role for the cluster (a Karpenter already running there, which `adopt` takes over). Each problem fails naming the input, what was read and the fix, before any child is created: at preview for a cluster that exists, at `up` for one the same update creates. The settings the cluster decides (`clusterEndpoint` too, for the controller) follow it unless set. Set false where the deployer may not read these (it needs eks:DescribeCluster, iam:GetOpenIDConnectProvider, ec2:DescribeSubnets, ec2:DescribeSecurityGroups, ssm:GetParameter, iam:GetRole, sqs:GetQueueUrl, and eks:DescribeAccessEntry for a `nodeRoleArn` with `nodeAccess: none`; a read refused is a warning naming its action); then nothing is checked against the cluster and node access assumes an API_AND_CONFIG_MAP cluster unless `clusterAuthenticationMode` says otherwise. "+Default(catalog.DefaultReadCluster))
	an.Describe(&a.Tags, "Tags applied to every AWS resource the component creates, and put on every node class it creates (under the class's own `tags`, which win), so the instances, volumes and launch templates Karpenter launches for them carry them too. Changing them changes the node classes, which Karpenter treats as drift: it replaces the nodes. Keys Karpenter reserves (`kubernetes.io/cluster/*`, `karpenter.sh/nodepool`, `karpenter.sh/nodeclaim`, `karpenter.k8s.aws/ec2nodeclass`, `eks:eks-cluster-name`) fail. AWS's tag rules are checked before anything is created: no `aws:` prefix, keys of at most 128 and values of at most 256 letters, numbers, spaces and `_ . : / = + - @`, at most 49 tags (the component adds `pulumi-karpenter:component` to the access entries it makes for roles of yours, to tell them from another owner's), and at most 44 with a node class's own (Karpenter adds 6 to what it launches).")
	an.Describe(&a.Namespace, "Namespace of the Karpenter releases. "+DefaultWith(rel.DefaultNamespace, "`karpenter` for versions before 0.32, as their guides use"))
	an.Describe(&a.ServiceAccountName, "Name of the controller's Kubernetes service account. "+Default(catalog.DefaultServiceAccount))
	an.Describe(&a.ControllerIdentity, "How the controller gets AWS credentials: `irsa` (IAM roles for service accounts; the role trusts the cluster's OIDC provider and the service account is annotated), `podIdentity` (EKS Pod Identity; the role trusts pods.eks.amazonaws.com and the component creates the pod identity association), or `both` (trust both, to migrate from IRSA to Pod Identity without downtime). "+Default(catalog.DefaultControllerIdentity))
	an.Describe(&a.CreatePodIdentityAgent, "With `podIdentity`, install the `eks-pod-identity-agent` EKS add-on. When false, the component checks that the add-on is installed. "+Default(catalog.DefaultCreatePodIdentityAgent))
	an.Describe(&a.ControllerRoleArn, "ARN of an existing IAM role for the controller. When set, the component creates no controller IAM (no role, no policies) and annotates the service account with this role.")
	an.Describe(&a.ControllerPolicyStatements, "Extra IAM statements for the controller, added as one more managed policy attached to the controller role.")
	an.Describe(&a.ControllerPolicyArns, "Extra managed policies to attach to the controller role, keyed by a stable name (the key names the attachment, so reordering never detaches a policy).")
	an.Describe(&a.NodeRoleArn, "ARN of an existing IAM role for the nodes Karpenter launches. When set, the component creates no node role and no instance profile, and (self-managed) no access entry; node classes use this role. With mode `autoMode` the component still creates the role's EC2 access entry unless `nodeAccess` is `none` (set it when the role is the cluster's `computeConfig.nodeRoleArn`, whose entry EKS creates).")
	an.Describe(&a.NodeRoleAdditionalPolicyArns, "Extra managed policies to attach to the node role, keyed by a stable name (e.g. `{\"ebs\": \"arn:aws:iam::aws:policy/service-role/AmazonEBSCSIDriverPolicy\"}`).")
	an.Describe(&a.NodeAccess, "How nodes are allowed to join the cluster: `accessEntry` (an EKS access entry of type EC2_LINUX, or EC2_WINDOWS when a node class uses a Windows AMI), `awsAuth` (a mapping in kube-system/aws-auth), or `none`. With mode `autoMode`: `accessEntry` (an EC2 entry with the AmazonEKSAutoNodePolicy association for the node role and for each node class with its own role) or `none` (no entries at all: the roles already have them). "+DefaultWith(catalog.DefaultNodeAccess, "`awsAuth` for a `CONFIG_MAP` cluster, `none` with `nodeRoleArn`; with mode `autoMode` always `accessEntry`"))
	an.Describe(&a.CreateSpotServiceLinkedRole, "Create the account's `AWSServiceRoleForEC2Spot` service-linked role, which EC2 needs before the first Spot launch; where the account has it already, it is imported instead (the preview reads it). Kept on destroy: other workloads may use it. "+Default(catalog.DefaultCreateSpotServiceLinkedRole))
	an.Describe(&a.Discovery, "Subnets and security groups to tag `karpenter.sh/discovery: <clusterName>`, so node classes that select by the discovery tag (the default class does) find them.")
	an.Describe(&a.CreateInstanceProfile, "Create an instance profile for the node role (for node classes that set `instanceProfile`, or tools that need one). "+DefaultWith(catalog.DefaultCreateInstanceProfile(rel), fmt.Sprintf("`%v` with mode `autoMode`: EKS creates one from each NodeClass's role", catalog.DefaultCreateInstanceProfile(autoMode))))
	an.Describe(&a.InterruptionHandling, "Create the interruption queue and the EventBridge rules that feed it, and point Karpenter at it. "+Default(catalog.DefaultInterruptionHandling))
	an.Describe(&a.RepositoryUsername, "Username for a private HTTP(S) chart repository. Not for an `oci://` registry, whose credentials the kubernetes provider reads only from Helm's registry config: log in with `helm registry login <host>` where `pulumi up` runs (setting this with an `oci://` chartRepository fails naming the login). Not needed for public ECR.")
	an.Describe(&a.RepositoryPassword, "Password or token for a private HTTP(S) chart repository (stored as a secret). Not for an `oci://` registry (see repositoryUsername). Not needed for public ECR.")
	an.Describe(&a.ControllerImageRepository, "Controller image repository for clusters that pull from a mirror, e.g. `123456789012.dkr.ecr.us-west-2.amazonaws.com/karpenter/controller` (the chart's digest still pins the image). Default: the chart's own image repository.")
	an.Describe(&a.ChartRepository, "Where the charts come from: an OCI registry (`oci://...`), an HTTP(S) chart repository, or a local directory holding `karpenter/` and `karpenter-crd/`. "+Default(catalog.DefaultChartRepository))
	an.Describe(&a.ReleaseTimeout, "Seconds `pulumi up` waits for each Helm release's resources to become ready (the controller's Deployment available, its pods scheduled on the cluster's nodes) before failing with the kubernetes provider's message naming the release; a destroy waits as long for them to be gone. "+DefaultWith(catalog.ReleaseTimeout, "the kubernetes provider's: the component sets none"))
	an.Describe(&a.InstallCrds, "Install and upgrade the CRDs with the `karpenter-crd` chart. Set false only when something else manages Karpenter's CRDs. "+Default(catalog.DefaultInstallCrds))
	an.Describe(&a.RetainCrdsOnDelete, "Leave the `karpenter-crd` release, and so Karpenter's CRDs and every NodePool and NodeClaim, in the cluster when the component is deleted (Pulumi's retainOnDelete; nothing changes in the cluster when it is set). Set it before removing a self-managed install from a cluster that runs EKS Auto Mode, which shares `nodepools.karpenter.sh` and `nodeclaims.karpenter.sh` (docs/auto-mode.md, Migrating to EKS Auto Mode). "+Default(catalog.DefaultRetainCrdsOnDelete))
	an.Describe(&a.Values, "Extra Helm values for the `karpenter` chart, deep-merged over the values the component sets (`null` removes a key). The values the component sets from its inputs fail naming the input to use: the cluster name and endpoint, the interruption queue (unless `interruptionHandling` is false), the service account's name and role annotation, the default instance profile (before 0.32), and the image repository when `controllerImageRepository` is set.")
	an.Describe(&a.DefaultNodePool, "Create a default NodePool and node class when `nodePools` is empty: named `default` (an EC2NodeClass), or `auto-default` with mode `autoMode` (EKS owns the `default` NodeClass). "+Default(catalog.DefaultDefaultNodePool))
	an.Describe(&a.NodePools, "NodePools to create. A pool's `nodeClassRef` names an entry of `nodeClasses` (or the default class when `nodeClasses` is empty).")
	an.Describe(&a.Adopt, "Take over a running Karpenter install instead of creating one: each child is imported from what exists and updated in place, never replaced (see the Adoption type; unset, nothing is imported).")
	an.Describe(&a.NodeClasses, "Node classes to create: EC2NodeClasses, or EKS Auto Mode NodeClasses with mode `autoMode`. When empty and any pool is created, a default class is created: subnets and security groups tagged `karpenter.sh/discovery: <clusterName>`, the node role, and AMI alias `al2023@latest` (self-managed) or Auto Mode's documented defaults.")
}

// ControllerIdentity is how the controller authenticates to AWS.
type ControllerIdentity string

const (
	ControllerIdentityIRSA        ControllerIdentity = "irsa"
	ControllerIdentityPodIdentity ControllerIdentity = "podIdentity"
	ControllerIdentityBoth        ControllerIdentity = "both"
)

func (ControllerIdentity) Values() []infer.EnumValue[ControllerIdentity] {
	return []infer.EnumValue[ControllerIdentity]{
		{Name: "Irsa", Value: ControllerIdentityIRSA, Description: "IAM roles for service accounts (the cluster's OIDC provider)."},
		{Name: "PodIdentity", Value: ControllerIdentityPodIdentity, Description: "EKS Pod Identity."},
		{Name: "Both", Value: ControllerIdentityBoth, Description: "Trust both, to migrate from IRSA to Pod Identity."},
	}
}

// NodeAccess is how the nodes' role is allowed into the cluster.
type NodeAccess string

const (
	NodeAccessEntry   NodeAccess = "accessEntry"
	NodeAccessAwsAuth NodeAccess = "awsAuth"
	NodeAccessNone    NodeAccess = "none"
)

func (NodeAccess) Values() []infer.EnumValue[NodeAccess] {
	return []infer.EnumValue[NodeAccess]{
		{Name: "AccessEntry", Value: NodeAccessEntry, Description: "An EKS access entry (clusters in API or API_AND_CONFIG_MAP mode)."},
		{Name: "AwsAuth", Value: NodeAccessAwsAuth, Description: "A mapRoles entry in kube-system/aws-auth (clusters in CONFIG_MAP mode)."},
		{Name: "None", Value: NodeAccessNone, Description: "Nothing: the role already has access."},
	}
}

// Deferred are the component's Input-typed inputs, which the children take as Inputs and the
// gate checks once they resolve (doc.go, "Values not known at Construct"). Unset optional fields
// are nil.
type Deferred struct {
	ClusterName                                                      pulumi.StringInput
	ClusterEndpoint, OidcProviderArn, ControllerRoleArn, NodeRoleArn pulumi.StringPtrInput
	Tags                                                             pulumi.StringMapInput
	ControllerPolicyArns, NodeRoleAdditionalPolicyArns               map[string]pulumi.StringInput
	Discovery                                                        *Discovery
	RepositoryUsername, RepositoryPassword                           pulumi.StringPtrInput
	Values                                                           pulumi.MapInput
}

// Every description states an input's default in one form: "Default: `value`." (Default), with
// what else decides it in parentheses (DefaultWith), e.g. "Default: `true` (`false` with mode
// `autoMode`)." or, for a default another party applies because the component sets nothing,
// "Default: `180` (EC2's)." A default that is no single value (the cluster's, the subnet's) is
// prose after "Default: ". provider/defaults_test.go checks every stated value against what the
// component does; the values here are the catalog's, which the plan resolves unset inputs to.

// Default is the sentence stating an input's default value.
func Default(value any) string { return fmt.Sprintf("Default: `%v`.", value) }

// DefaultWith is Default with what else decides the default, or who applies it.
func DefaultWith(value any, more string) string {
	return fmt.Sprintf("Default: `%v` (%s).", value, more)
}

// Deferred are the component's inputs that may be unknown until they resolve.
func (a KarpenterArgs) Deferred() Deferred {
	return Deferred{
		ClusterName: a.ClusterName, ClusterEndpoint: a.ClusterEndpoint, OidcProviderArn: a.OidcProviderArn,
		ControllerRoleArn: a.ControllerRoleArn, NodeRoleArn: a.NodeRoleArn, Tags: a.Tags,
		ControllerPolicyArns: a.ControllerPolicyArns, NodeRoleAdditionalPolicyArns: a.NodeRoleAdditionalPolicyArns,
		Discovery: a.Discovery, RepositoryUsername: a.RepositoryUsername, RepositoryPassword: a.RepositoryPassword,
		Values: a.Values,
	}
}

// Discovery lists resources to tag for Karpenter's discovery.
type Discovery struct {
	SubnetIds        []pulumi.StringInput `pulumi:"subnetIds,optional" karpenter:"later"`
	SecurityGroupIds []pulumi.StringInput `pulumi:"securityGroupIds,optional" karpenter:"later"`
}

func (d *Discovery) Annotate(a infer.Annotator) {
	a.Describe(&d, "Resources the component tags `karpenter.sh/discovery: <clusterName>`.")

	a.Describe(&d.SubnetIds, "Subnets for the nodes (usually the cluster's private subnets). Tags are named by position: keep the order stable.")
	a.Describe(&d.SecurityGroupIds, "Security groups for the nodes (usually the cluster's node security group). Tags are named by position: keep the order stable.")
}

// AuthenticationMode is an EKS cluster's authentication mode.
type AuthenticationMode string

const (
	AuthenticationModeApi             AuthenticationMode = "API"
	AuthenticationModeApiAndConfigMap AuthenticationMode = "API_AND_CONFIG_MAP"
	AuthenticationModeConfigMap       AuthenticationMode = "CONFIG_MAP"
)

func (AuthenticationMode) Values() []infer.EnumValue[AuthenticationMode] {
	return []infer.EnumValue[AuthenticationMode]{
		{Name: "Api", Value: AuthenticationModeApi, Description: "Access entries only."},
		{Name: "ApiAndConfigMap", Value: AuthenticationModeApiAndConfigMap, Description: "Access entries and the aws-auth ConfigMap."},
		{Name: "ConfigMap", Value: AuthenticationModeConfigMap, Description: "The aws-auth ConfigMap only (no access entries)."},
	}
}

// enumType is a string enum of the schema.
type enumType[T any] interface {
	~string
	Values() []infer.EnumValue[T]
}

// EnumValues lists an enum's allowed values, for validation messages.
func EnumValues[T enumType[T]]() []string {
	var zero T
	var out []string
	for _, v := range zero.Values() {
		out = append(out, string(v.Value))
	}
	return out
}

// RoleMapping is an aws-auth mapRoles entry (the nodeRoleMapping output), with the field names of
// pulumi-eks's RoleMapping: its roleMappings input takes it as is.
type RoleMapping struct {
	RoleArn  string   `pulumi:"roleArn"`
	Username string   `pulumi:"username"`
	Groups   []string `pulumi:"groups"`
}

func (m *RoleMapping) Annotate(a infer.Annotator) {
	a.Describe(m, "An entry of `kube-system/aws-auth`'s `mapRoles`, with the field names of pulumi-eks's `RoleMapping`.")
	a.Describe(&m.RoleArn, "The IAM role mapped (`rolearn` in aws-auth).")
	a.Describe(&m.Username, "The Kubernetes username the role maps to: `system:node:{{EC2PrivateDNSName}}` for nodes.")
	a.Describe(&m.Groups, "The Kubernetes groups the role maps to: `system:bootstrappers` and `system:nodes` for nodes (and `eks:kube-proxy-windows` for Windows nodes).")
}
