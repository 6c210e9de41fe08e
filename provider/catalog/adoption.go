package catalog

import "fmt"

// What Karpenter's getting-started guide creates, by name, for a cluster: an install made that
// way is what `adopt` takes over by default. The node role, its instance profile (the Provisioner
// era), the controller policies and the interruption queue are the official CloudFormation
// template's (reference: cfn-v0.31 to cfn-v1.14, `RoleName`, `InstanceProfileName`,
// `ManagedPolicyName`, `QueueName`); the controller role is the one the guide's eksctl cluster
// config creates for the service account (`iam.podIdentityAssociations[].roleName`, and
// `iam.serviceAccounts[].roleName` in the IRSA-era guides): `<cluster>-karpenter`. The
// template's EventBridge rules have no name: CloudFormation names them
// `<stack>-<LogicalID>-<random>` (InterruptionRule.LogicalID), so they are given.

// GettingStarted are the getting-started install's names for one cluster.
type GettingStarted struct {
	NodeRole, InstanceProfile, ControllerRole, Queue string
}

// GettingStartedNames are the names the getting-started guide of release r gives cluster's
// install. From 0.32 the template creates no instance profile: InstanceProfile is then the one
// the templates before 0.32 created, which an install made before 0.32 and upgraded still has
// (an adoption reads whether it exists: its running nodes use it, so it keeps that name rather
// than being replaced by one of the component's).
func GettingStartedNames(r Release, cluster string) GettingStarted {
	profile := r.TemplateInstanceProfile
	if profile == "" {
		profile = preV032TemplateInstanceProfile
	}
	return GettingStarted{
		NodeRole:        GettingStartedNodeRole(cluster),
		InstanceProfile: fmt.Sprintf(profile, cluster),
		ControllerRole:  cluster + "-karpenter",
		Queue:           cluster,
	}
}

// GettingStartedNodeRole is the node role the getting-started guide makes for cluster (every
// template: `KarpenterNodeRole-${ClusterName}`).
func GettingStartedNodeRole(cluster string) string { return "KarpenterNodeRole-" + cluster }

// preV032TemplateInstanceProfile is the node instance profile of the templates before 0.32
// (cfn-v0.31 `InstanceProfileName`), with %s for the cluster name.
const preV032TemplateInstanceProfile = "KarpenterNodeInstanceProfile-%s"

// Helm's ownership metadata: Helm installs a release over an existing object only when the
// object carries these, naming that release (helm/pkg/action/validate.go, existingResourceConflict).
const (
	HelmManagedByLabel             = "app.kubernetes.io/managed-by"
	HelmManagedBy                  = "Helm"
	HelmReleaseNameAnnotation      = "meta.helm.sh/release-name"
	HelmReleaseNamespaceAnnotation = "meta.helm.sh/release-namespace"
)

// Karpenter replaces a node when its NodePool's or node class's drift hash changes (static
// drift). The hash covers the spec but the fields tagged `hash:"ignore"`, which Karpenter checks
// another way or not at all; an adopting update that changes a hashed field replaces every node
// of the object. Sources: karpenter-provider-aws pkg/apis/v1/ec2nodeclass.go (v1.0.8, v1.8.6,
// v1.15.1; v1beta1 in v0.36.2: the first three only) — the subnet, security group and capacity
// reservation selectors (drift by what they resolve to), ipPrefixCount, amiSelectorTerms (drift
// by the images it resolves to: DriftAMI, named separately below) and amiFamily (hashed as
// resolved); sigs.k8s.io/karpenter pkg/apis/v1/nodepool.go (v1.14.1, v1.15.0): NodePool.Hash
// hashes spec.template, whose spec.requirements and spec.resources are ignored (a node that no
// longer meets the requirements drifts by them instead).
var (
	NodeClassHashIgnored = []string{"subnetSelectorTerms", "securityGroupSelectorTerms", "capacityReservationSelectorTerms", "ipPrefixCount", "amiSelectorTerms", "amiFamily"}
	NodePoolHashed       = "template"
	NodePoolHashIgnored  = []string{"template.spec.requirements", "template.spec.resources"}
	// DriftAMI is the node class field whose change drifts the nodes when the images it resolves
	// to differ from the nodes' (the EC2NodeClass's status.amis).
	DriftAMI = "amiSelectorTerms"
)
