package catalog

// AWS's rules for tags, the same for every service the component tags (IAM, SQS, EventBridge,
// EKS, and EC2 through Karpenter): AWS General Reference, "Tagging your AWS resources" (tag naming
// limits and requirements), and IAM's "Tagging IAM resources", the strictest on characters.
const (
	MaxTagKeyLength    = 128
	MaxTagValueLength  = 256
	MaxTagsPerResource = 50
	// ReservedTagPrefix is AWS's own prefix, refused in keys in any case.
	ReservedTagPrefix = "aws:"
	// TagCharacters are the characters IAM, SQS and EventBridge accept in keys and values.
	TagCharacters = `letters, numbers, spaces and _ . : / = + - @`
)

// LaunchTags are the tags Karpenter (and EKS Auto Mode) put on every instance, volume and
// launch template besides a node class's own: Name, karpenter.sh/nodepool, karpenter.sh/nodeclaim,
// karpenter.k8s.aws/ec2nodeclass (Auto Mode: eks.amazonaws.com/nodeclass),
// kubernetes.io/cluster/<cluster> and eks:eks-cluster-name. A class's tags leave room for them
// within MaxTagsPerResource.
const LaunchTags = 6
