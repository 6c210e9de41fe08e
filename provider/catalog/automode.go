package catalog

import "time"

// Auto Mode NodeClass defaults, as EKS documents them and its CRD fills them in; rendered
// explicitly so a preview shows what the nodes get.
const (
	AutoModeEphemeralSize          = "80Gi"
	AutoModeEphemeralIops          = 3000
	AutoModeEphemeralThroughput    = 125
	AutoModeNetworkPolicy          = "DefaultAllow"
	AutoModeNetworkPolicyEventLogs = "Disabled"
	AutoModeSnatPolicy             = "Random"
)

// AutoModeRules are what EKS Auto Mode serves and enforces where it differs from self-managed
// Karpenter, from the Amazon EKS User Guide ("UG <page>":
// https://docs.aws.amazon.com/eks/latest/userguide/<page>.html; when a field appeared: UG
// auto-change) and the 2024-12 NodeClass schema (tests/testdata/automode).
type AutoModeRules struct {
	// features are the upstream features Auto Mode serves: on NodePools, the 2024-12 schema's
	// (upstream v1.1–v1.2 with EKS's changes) plus replicas (2025-11) and Balanced (2026-07)
	// (UG create-node-pool); on NodeClasses, capacity reservation terms (2025-06, UG create-node-class, auto-networking). Anything else a pool
	// sets is refused, naming the field.
	features []Feature
	// The component's default pool and class: named apart from EKS's built-in pools
	// (system, general-purpose) and its reconciled `default` NodeClass, and from a
	// self-managed install's `default` pool, which shares the NodePool CRD during a migration.
	defaultName         string
	DefaultRequirements []LabelRequirement
	DefaultExpireAfter  string
	// The CRD's rule for eks.amazonaws.com classes: expireAfter + terminationGracePeriod at
	// most MaxLifetime (terminationGracePeriod defaults to DefaultTerminationGrace), and
	// expireAfter never Never (UG create-node-pool).
	MaxLifetime, DefaultTerminationGrace time.Duration
	BudgetReasons                        []string
	// LabelKeys: the eks.amazonaws.com keys pools may use (UG automode-learn-instances: documented, plus the ones the
	// schema admits); the rest of that domain, subdomains included, is restricted.
	LabelKeys []string
	// UnsupportedLabels: keys Auto Mode does not support, with what to do instead (UG automode-learn-instances).
	UnsupportedLabels map[string]string
	// EKS owns these names (UG create-node-class, auto-networking, set-builtin-node-pools).
	ReservedPoolNames, ReservedClassNames []string
	// The node role (UG auto-create-node-role) and its access entry (UG create-node-class, auto-cluster-iam-role).
	NodePolicies    []ManagedPolicy
	AccessEntryType string
	AccessPolicy    string
}

// ManagedPolicy is an AWS managed policy attached to a role, with its child-name suffix.
type ManagedPolicy struct{ Suffix, Name string }

// AutoModeGeneration is EKS Auto Mode as a generation of the catalog: there is no version to
// pick (AWS runs Karpenter), the NodePool API is upstream's v1, the node class is EKS's own.
var AutoModeGeneration = &Generation{
	Name:                  "autoMode",
	NodePool:              ApiKind{"karpenter.sh/v1", "NodePool"},
	NodeClass:             ApiKind{"eks.amazonaws.com/v1", "NodeClass"},
	ConsolidationPolicies: []string{"WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced"},
	AutoMode: &AutoModeRules{
		features: []Feature{FeatureBudgets, FeatureMinValues, FeatureV1, FeatureStaticPools, FeatureBalanced,
			FeatureCapacityReservationTerms, FeatureReservedCapacity},
		defaultName: "auto-default",
		// The built-in pools' selection (UG set-builtin-node-pools): on-demand C, M and R of generation 5 or newer,
		// with the architecture pinned like the self-managed default.
		DefaultRequirements: []LabelRequirement{
			{Key: "kubernetes.io/arch", Operator: "In", Values: []string{"amd64"}},
			{Key: "karpenter.sh/capacity-type", Operator: "In", Values: []string{"on-demand"}},
			{Key: "eks.amazonaws.com/instance-category", Operator: "In", Values: []string{"c", "m", "r"}},
			{Key: "eks.amazonaws.com/instance-generation", Operator: "Gt", Values: []string{"4"}},
		},
		DefaultExpireAfter:      "336h",
		MaxLifetime:             504 * time.Hour,
		DefaultTerminationGrace: 24 * time.Hour,
		BudgetReasons:           []string{"Underutilized", "Empty", "Drifted", "NodeNotHealthy"},
		LabelKeys: []string{
			"eks.amazonaws.com/compute-type", "eks.amazonaws.com/nodeclass",
			"eks.amazonaws.com/instance-hypervisor", "eks.amazonaws.com/instance-encryption-in-transit-supported",
			"eks.amazonaws.com/instance-category", "eks.amazonaws.com/instance-generation",
			"eks.amazonaws.com/instance-family", "eks.amazonaws.com/instance-size",
			"eks.amazonaws.com/instance-cpu", "eks.amazonaws.com/instance-cpu-manufacturer",
			"eks.amazonaws.com/instance-cpu-sustained-clock-speed-mhz", "eks.amazonaws.com/instance-memory",
			"eks.amazonaws.com/instance-ebs-bandwidth", "eks.amazonaws.com/instance-network-bandwidth",
			"eks.amazonaws.com/instance-gpu-name", "eks.amazonaws.com/instance-gpu-manufacturer",
			"eks.amazonaws.com/instance-gpu-count", "eks.amazonaws.com/instance-gpu-memory",
			"eks.amazonaws.com/instance-accelerator-name", "eks.amazonaws.com/instance-accelerator-manufacturer",
			"eks.amazonaws.com/instance-accelerator-count", "eks.amazonaws.com/instance-local-nvme",
			"eks.amazonaws.com/placement-group-id",
		},
		UnsupportedLabels: map[string]string{
			"kubernetes.io/os":                 "Auto Mode runs Linux nodes only; drop the requirement",
			"node.kubernetes.io/windows-build": "Auto Mode runs Linux nodes only; drop the requirement",
		},
		ReservedPoolNames:  []string{"system", "general-purpose"},
		ReservedClassNames: []string{"default"},
		NodePolicies:       []ManagedPolicy{{"-node-minimal", "AmazonEKSWorkerNodeMinimalPolicy"}, {"-node-ecr", "AmazonEC2ContainerRegistryPullOnly"}},
		AccessEntryType:    "EC2",
		AccessPolicy:       "AmazonEKSAutoNodePolicy",
	},
}
