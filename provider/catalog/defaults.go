package catalog

import "slices"

// The component's defaults, and those that depend on the release.

const (
	DefaultServiceAccount   = "karpenter"
	DefaultChartRepository  = "oci://public.ecr.aws/karpenter"
	defaultNodeClassName    = "default" // and the default pool's name
	DiscoveryTag            = "karpenter.sh/discovery"
	defaultAmiAlias         = "al2023@latest"
	DefaultExpireAfter      = "720h"
	DefaultConsolidation    = "WhenEmptyOrUnderutilized"
	DefaultConsolidateAfter = "1m"
	DefaultPoolCPULimit     = "1000"
	// DefaultBudgetNodes is a disruption budget's nodes when it names none (Karpenter's CRD default).
	DefaultBudgetNodes = "10%"
	// DefaultStatementEffect is the effect of an extra controller policy statement that names none.
	DefaultStatementEffect = "Allow"
	// ReleaseTimeout is the kubernetes provider's wait for a Helm release's resources, in
	// seconds (pulumi-kubernetes' helm.sh/v3 Release `timeout`, 300 when unset): the component
	// sets no timeout unless releaseTimeout is given, so this is what applies.
	ReleaseTimeout = 300
)

// What an unset plain input of the Karpenter component means, named Default<input> (the plan
// resolves each one; the schema's descriptions state them). An enum's is its value as written:
// the enum types are the inputs package's.
const (
	DefaultMode                        = "selfManaged"
	DefaultAllowUnverifiedVersion      = false
	DefaultReadCluster                 = true
	DefaultControllerIdentity          = "irsa"
	DefaultCreatePodIdentityAgent      = false
	DefaultNodeAccess                  = "accessEntry"
	DefaultCreateSpotServiceLinkedRole = false
	DefaultInterruptionHandling        = true
	DefaultInstallCrds                 = true
	DefaultRetainCrdsOnDelete          = false
	DefaultDefaultNodePool             = true
)

// DefaultCreateInstanceProfile is createInstanceProfile unset: self-managed, an instance profile
// for the node role (Karpenter before 0.32 launches with it); not in Auto Mode, where EKS creates
// one from each NodeClass's role.
func DefaultCreateInstanceProfile(rel Release) bool { return !rel.IsAutoMode() }

// DefaultAmiAliasOf is the AMI alias of a class that names none: AL2023 where the release
// supports it, else AL2.
func DefaultAmiAliasOf(rel Release) string {
	if !slices.Contains(rel.AmiFamilies, "AL2023") || !rel.Has(FeatureAL2023) {
		return "al2@latest"
	}
	return defaultAmiAlias
}

// DefaultObjectName names the default pool and class: `default`, or Auto Mode's own name.
func DefaultObjectName(r Release) string {
	if r.IsAutoMode() {
		return r.AutoMode.defaultName
	}
	return defaultNodeClassName
}
