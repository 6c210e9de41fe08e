package catalog

// InterruptionRule is an EventBridge rule that forwards an event Karpenter reacts to
// (a node about to go away) to the interruption queue.
type InterruptionRule struct {
	Suffix, Source, DetailType string
	// Enabled says whether the release has the rule; nil means always.
	Enabled func(Release) bool
}

// InterruptionRules follow the official template's rules, in its order.
var InterruptionRules = []InterruptionRule{
	{"-scheduled-change", "aws.health", "AWS Health Event", nil},
	{"-spot-interruption", "aws.ec2", "EC2 Spot Instance Interruption Warning", nil},
	{"-rebalance", "aws.ec2", "EC2 Instance Rebalance Recommendation", nil},
	{"-state-change", "aws.ec2", "EC2 Instance State-change Notification", nil},
	{"-capacity-reservation", "aws.ec2", "EC2 Capacity Reservation Instance Interruption Warning",
		func(r Release) bool { return r.Has(FeatureCapacityReservationRule) }},
}

// InterruptionQueueTargetID is the target id the official template uses on every rule.
const InterruptionQueueTargetID = "KarpenterInterruptionQueueTarget"
