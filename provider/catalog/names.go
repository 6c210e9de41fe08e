package catalog

// AliasFamilies maps an AMI alias family to its amiFamily name.
var AliasFamilies = map[string]string{
	"al2": "AL2", "al2023": "AL2023", "bottlerocket": "Bottlerocket",
	"windows2019": "Windows2019", "windows2022": "Windows2022", "windows2025": "Windows2025",
}

// Label domains Karpenter reserves, with the keys it still lets pools use.
var RestrictedLabelDomains = map[string][]string{
	"karpenter.sh": {"karpenter.sh/capacity-type", "karpenter.sh/nodepool"},
	"karpenter.k8s.aws": {
		"karpenter.k8s.aws/instance-tenancy", "karpenter.k8s.aws/capacity-reservation-type",
		"karpenter.k8s.aws/capacity-reservation-id", "karpenter.k8s.aws/capacity-reservation-interruptible",
		"karpenter.k8s.aws/ec2nodeclass", "karpenter.k8s.aws/instance-encryption-in-transit-supported",
		"karpenter.k8s.aws/instance-category", "karpenter.k8s.aws/instance-hypervisor",
		"karpenter.k8s.aws/instance-family", "karpenter.k8s.aws/instance-generation",
		"karpenter.k8s.aws/instance-local-nvme", "karpenter.k8s.aws/instance-size",
		"karpenter.k8s.aws/instance-cpu", "karpenter.k8s.aws/instance-cpu-manufacturer",
		"karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz", "karpenter.k8s.aws/instance-memory",
		"karpenter.k8s.aws/instance-ebs-bandwidth", "karpenter.k8s.aws/instance-network-bandwidth",
		"karpenter.k8s.aws/instance-gpu-name", "karpenter.k8s.aws/instance-gpu-manufacturer",
		"karpenter.k8s.aws/instance-gpu-count", "karpenter.k8s.aws/instance-gpu-memory",
		"karpenter.k8s.aws/instance-accelerator-name", "karpenter.k8s.aws/instance-accelerator-manufacturer",
		"karpenter.k8s.aws/instance-accelerator-count", "karpenter.k8s.aws/instance-capability-flex",
		"karpenter.k8s.aws/placement-group-id", "karpenter.k8s.aws/placement-group-partition",
	},
}

// LabelValue is a value Karpenter sets on a well-known node label, and the feature of the
// release that first sets it ("" for every release).
type LabelValue struct {
	Value string
	Since Feature
}

// WellKnownLabelValues are the only values Karpenter sets on these labels (karpenter.sh and
// Kubernetes' well-known labels): a requirement `In` any other value matches no instance, and
// the pool never launches a node.
var WellKnownLabelValues = map[string][]LabelValue{
	"karpenter.sh/capacity-type": {{"spot", ""}, {"on-demand", ""}, {"reserved", FeatureReservedCapacity}},
	"kubernetes.io/arch":         {{"amd64", ""}, {"arm64", ""}},
	"kubernetes.io/os":           {{"linux", ""}, {"windows", ""}},
}

// AliasFamilyOf is the alias family of an amiFamily (`AL2023` → `al2023`), or "" for a family
// that has no alias (Custom, Ubuntu).
func AliasFamilyOf(amiFamily string) string {
	for alias, family := range AliasFamilies {
		if family == amiFamily {
			return alias
		}
	}
	return ""
}

// Child-name suffixes of the children whose AWS names have a length limit.
const (
	ControllerRoleSuffix = "-controller"
	NodeRoleSuffix       = "-node"
	QueueSuffix          = "-interruption"
)

// PhysicalNameHash is what the component appends to a child's AWS name: "-" and 7 hex
// characters (children.physicalName).
const PhysicalNameHash = 8

// PhysicalNameLimits are AWS's name limits of the children the component names, each with the
// longest suffix the component uses for that kind (IAM User Guide, "IAM object quotas": role
// names 64, policy names 128; EventBridge rule names 64; SQS queue names 80).
var PhysicalNameLimits = []struct {
	What   string
	Suffix string
	Limit  int
}{
	{"IAM role", ControllerRoleSuffix, 64},
	{"EventBridge rule", "-capacity-reservation", 64},
	{"SQS queue", QueueSuffix, 80},
	{"IAM policy", "-controller-resource-discovery", 128},
}
