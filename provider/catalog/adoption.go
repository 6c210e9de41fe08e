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
// install. InstanceProfile is "" where the template creates none.
func GettingStartedNames(r Release, cluster string) GettingStarted {
	names := GettingStarted{
		NodeRole:       "KarpenterNodeRole-" + cluster,
		ControllerRole: cluster + "-karpenter",
		Queue:          cluster,
	}
	if r.TemplateInstanceProfile != "" {
		names.InstanceProfile = fmt.Sprintf(r.TemplateInstanceProfile, cluster)
	}
	return names
}

// Helm's ownership metadata: Helm installs a release over an existing object only when the
// object carries these, naming that release (helm/pkg/action/validate.go, existingResourceConflict).
const (
	HelmManagedByLabel             = "app.kubernetes.io/managed-by"
	HelmManagedBy                  = "Helm"
	HelmReleaseNameAnnotation      = "meta.helm.sh/release-name"
	HelmReleaseNamespaceAnnotation = "meta.helm.sh/release-namespace"
)
