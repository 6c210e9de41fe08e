package catalog

// InterruptionRule is an EventBridge rule that forwards an event Karpenter reacts to
// (a node about to go away) to the interruption queue.
type InterruptionRule struct {
	// Key names the rule in inputs (adopt.interruptionRuleNames); LogicalID is the template's
	// resource, which CloudFormation puts in the rule's name (<stack>-<LogicalID>-<random>).
	Key, LogicalID             string
	Suffix, Source, DetailType string
	// Enabled says whether the release has the rule; nil means always.
	Enabled func(Release) bool
}

// InterruptionRules follow the official template's rules, in its order.
var InterruptionRules = []InterruptionRule{
	{"scheduledChange", "ScheduledChangeRule", "-scheduled-change", "aws.health", "AWS Health Event", nil},
	{"spotInterruption", "SpotInterruptionRule", "-spot-interruption", "aws.ec2", "EC2 Spot Instance Interruption Warning", nil},
	{"rebalance", "RebalanceRule", "-rebalance", "aws.ec2", "EC2 Instance Rebalance Recommendation", nil},
	{"stateChange", "InstanceStateChangeRule", "-state-change", "aws.ec2", "EC2 Instance State-change Notification", nil},
	{"capacityReservation", "CapacityReservationInterruptionRule", "-capacity-reservation", "aws.ec2", "EC2 Capacity Reservation Instance Interruption Warning",
		func(r Release) bool { return r.Has(FeatureCapacityReservationRule) }},
}

// RulesOf are the interruption rules the release has.
func RulesOf(r Release) []InterruptionRule {
	var out []InterruptionRule
	for _, rule := range InterruptionRules {
		if rule.Enabled == nil || rule.Enabled(r) {
			out = append(out, rule)
		}
	}
	return out
}

// InterruptionQueueTargetID is the target id the official template uses on every rule.
const InterruptionQueueTargetID = "KarpenterInterruptionQueueTarget"
