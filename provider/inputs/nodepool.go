package inputs

import (
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"

	"github.com/pulumi/pulumi-go-provider/infer"
)

// NodePoolSpec is the typed form of a Karpenter NodePool (karpenter.sh/v1).
type NodePoolSpec struct {
	Name                   string            `pulumi:"name"`
	NodeClassRef           *string           `pulumi:"nodeClassRef,optional"`
	Requirements           []Requirement     `pulumi:"requirements,optional"`
	Labels                 map[string]string `pulumi:"labels,optional" karpenter:"through"`
	Annotations            map[string]string `pulumi:"annotations,optional" karpenter:"through"`
	Taints                 []Taint           `pulumi:"taints,optional"`
	StartupTaints          []Taint           `pulumi:"startupTaints,optional"`
	ExpireAfter            *string           `pulumi:"expireAfter,optional"`
	TerminationGracePeriod *string           `pulumi:"terminationGracePeriod,optional"`
	Limits                 map[string]string `pulumi:"limits,optional"`
	Weight                 *int              `pulumi:"weight,optional"`
	Replicas               *int              `pulumi:"replicas,optional"`
	Disruption             *Disruption       `pulumi:"disruption,optional"`
}

func (p *NodePoolSpec) Annotate(a infer.Annotator) {
	a.Describe(&p, "A Karpenter NodePool: which nodes Karpenter may launch for pending pods, and how it disrupts them.")
	a.Describe(&p.Name, "Name of the NodePool object (a lowercase DNS label, at most 63 characters).")
	a.Describe(&p.NodeClassRef, "Name of the node class (an entry of `nodeClasses`) the pool's nodes use. Default: the only node class, when there is exactly one (the default class when `nodeClasses` is empty).")
	a.Describe(&p.Requirements, "Scheduling requirements on node labels (instance type, zone, capacity type, architecture...). Default: linux, amd64, on-demand, instance categories c/m/r, generation > 2 (with mode `autoMode`: amd64, on-demand, instance categories c/m/r, generation > 4).")
	a.Describe(&p.Labels, "Labels applied to every node of the pool.")
	a.Describe(&p.Annotations, "Annotations applied to every node of the pool.")
	a.Describe(&p.Taints, "Taints applied to every node of the pool.")
	a.Describe(&p.StartupTaints, "Taints applied at node start that a daemon is expected to remove (Karpenter does not wait for them when scheduling).")
	a.Describe(&p.ExpireAfter, "How long a node may live before Karpenter replaces it (e.g. `720h`), or `Never`. "+DefaultWith(catalog.DefaultExpireAfter, "`"+catalog.AutoModeGeneration.AutoMode.DefaultExpireAfter+"` with mode `autoMode`"))
	a.Describe(&p.TerminationGracePeriod, "How long Karpenter waits for pods to drain before forcefully terminating a node (e.g. `48h`).")
	a.Describe(&p.Limits, "Resource limits over all nodes of the pool, as Kubernetes quantities (e.g. `{\"cpu\": \"1000\", \"memory\": \"1000Gi\"}`); a static pool (`replicas`) takes only `nodes`.")
	a.Describe(&p.Weight, "Priority of the pool relative to other pools (1-100; higher first). Not supported on a static pool (`replicas`).")
	a.Describe(&p.Replicas, "Makes the pool static: Karpenter keeps exactly this many nodes (at least 0) instead of scaling with pod demand (alpha in Karpenter). A static pool takes no `weight`, no `limits` but `nodes`, and no `disruption.consolidationPolicy`/`consolidateAfter` (Karpenter ignores them). A pool cannot switch between static and dynamic: the API server refuses the update, so create a new pool instead. Karpenter 1.8+.")
	a.Describe(&p.Disruption, "How Karpenter consolidates the pool's nodes. Default: consolidation `"+catalog.DefaultConsolidation+"` after `"+catalog.DefaultConsolidateAfter+"` (see its fields).")
}

// Requirement is a node selector requirement Karpenter uses to pick instance types.
type Requirement struct {
	Key       string              `pulumi:"key"`
	Operator  RequirementOperator `pulumi:"operator"`
	Values    []string            `pulumi:"values,optional"`
	MinValues *int                `pulumi:"minValues,optional"`
}

func (r *Requirement) Annotate(a infer.Annotator) {
	a.Describe(&r, "A node selector requirement: which values of a node label Karpenter may choose.")

	a.Describe(&r.Key, "Node label key, e.g. `karpenter.sh/capacity-type` or `node.kubernetes.io/instance-type`.")
	a.Describe(&r.Operator, "How the label is matched.")
	a.Describe(&r.Values, "Values for `In`/`NotIn` (at least one for `In`); a single non-negative integer for `Gt`/`Lt`/`Gte`/`Lte`; none for `Exists`/`DoesNotExist`.")
	a.Describe(&r.MinValues, "Minimum number of distinct values Karpenter must be able to choose from (1-50, at most the number of values).")
}

// RequirementOperator is the operator of a Requirement.
type RequirementOperator string

func (RequirementOperator) Values() []infer.EnumValue[RequirementOperator] {
	return []infer.EnumValue[RequirementOperator]{
		{Name: "In", Value: "In", Description: "The label value is one of `values`."},
		{Name: "NotIn", Value: "NotIn", Description: "The label value is none of `values`."},
		{Name: "Exists", Value: "Exists", Description: "The label is present."},
		{Name: "DoesNotExist", Value: "DoesNotExist", Description: "The label is absent."},
		{Name: "Gt", Value: "Gt", Description: "The label value is an integer greater than the single value."},
		{Name: "Lt", Value: "Lt", Description: "The label value is an integer less than the single value."},
		{Name: "Gte", Value: "Gte", Description: "The label value is an integer greater than or equal to the single value (Karpenter v1.9+)."},
		{Name: "Lte", Value: "Lte", Description: "The label value is an integer less than or equal to the single value (Karpenter v1.9+)."},
	}
}

// Taint is a Kubernetes node taint.
type Taint struct {
	Key    string      `pulumi:"key"`
	Value  *string     `pulumi:"value,optional" karpenter:"through"`
	Effect TaintEffect `pulumi:"effect"`
}

func (t *Taint) Annotate(a infer.Annotator) {
	a.Describe(&t, "A Kubernetes taint on the pool's nodes.")

	a.Describe(&t.Key, "Taint key.")
	a.Describe(&t.Value, "Taint value.")
	a.Describe(&t.Effect, "Taint effect.")
}

// TaintEffect is the effect of a Taint.
type TaintEffect string

func (TaintEffect) Values() []infer.EnumValue[TaintEffect] {
	return []infer.EnumValue[TaintEffect]{
		{Name: "NoSchedule", Value: "NoSchedule", Description: "Pods that do not tolerate the taint are not scheduled."},
		{Name: "PreferNoSchedule", Value: "PreferNoSchedule", Description: "The scheduler tries to avoid the node."},
		{Name: "NoExecute", Value: "NoExecute", Description: "Pods that do not tolerate the taint are evicted."},
	}
}

// Disruption configures consolidation and disruption budgets.
type Disruption struct {
	ConsolidationPolicy *ConsolidationPolicy `pulumi:"consolidationPolicy,optional"`
	ConsolidateAfter    *string              `pulumi:"consolidateAfter,optional"`
	Budgets             []Budget             `pulumi:"budgets,optional"`
}

func (d *Disruption) Annotate(a infer.Annotator) {
	a.Describe(&d, "How Karpenter consolidates a pool's nodes, and how many it may disrupt at once.")

	a.Describe(&d.ConsolidationPolicy, "Which nodes Karpenter may consolidate. "+Default(catalog.DefaultConsolidation))
	a.Describe(&d.ConsolidateAfter, "How long a node must be empty or underutilized before Karpenter consolidates it (e.g. `1m`), or `Never`. "+Default(catalog.DefaultConsolidateAfter))
	a.Describe(&d.Budgets, "Limits on how many nodes may be disrupted at once, optionally during a cron schedule.")
}

// ConsolidationPolicy says which nodes Karpenter may consolidate.
type ConsolidationPolicy string

func (ConsolidationPolicy) Values() []infer.EnumValue[ConsolidationPolicy] {
	return []infer.EnumValue[ConsolidationPolicy]{
		{Name: "WhenEmpty", Value: "WhenEmpty", Description: "Only nodes without workload pods."},
		{Name: "WhenEmptyOrUnderutilized", Value: "WhenEmptyOrUnderutilized", Description: "Empty nodes and nodes whose pods fit elsewhere more cheaply."},
		{Name: "Balanced", Value: "Balanced", Description: "Consolidate only when the savings outweigh the disruption (Karpenter v1.14+)."},
	}
}

// Budget limits how many of a pool's nodes may be disrupted at once.
type Budget struct {
	Nodes    *string  `pulumi:"nodes,optional"`
	Schedule *string  `pulumi:"schedule,optional"`
	Duration *string  `pulumi:"duration,optional"`
	Reasons  []string `pulumi:"reasons,optional"`
}

func (b *Budget) Annotate(a infer.Annotator) {
	a.Describe(&b, "A disruption budget: at most `nodes` disrupted at once, always or during a schedule.")

	a.Describe(&b.Nodes, "Maximum nodes disrupted at once: a count (`5`) or a percentage (`10%`). "+Default(catalog.DefaultBudgetNodes))
	a.Describe(&b.Schedule, "Cron schedule (5 fields, UTC, or a macro like `@daily`) when the budget starts being active. Requires `duration`.")
	a.Describe(&b.Duration, "How long the budget stays active after each `schedule` start (e.g. `8h`, `30m`). Requires `schedule`.")
	a.Describe(&b.Reasons, "Disruption reasons the budget applies to: `Empty`, `Drifted`, `Underutilized`, and `Unhealthy` (node repair, Karpenter 1.15+). Default: all reasons (Karpenter's).")
}
