package inputs

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
)

// validateAutoModePool applies Auto Mode's NodePool rules (catalog: autoModeRules): names EKS
// owns, its label keys, and the node lifetime limit.
func validateAutoModePool(field string, pool NodePoolSpec, rules *catalog.AutoModeRules) []error {
	var errs []error
	if slices.Contains(rules.ReservedPoolNames, pool.Name) {
		errs = append(errs, fmt.Errorf("%s.name: %q is an EKS built-in pool (enable it with the cluster's computeConfig.nodePools); choose another name", field, pool.Name))
	}
	for i, r := range pool.Requirements {
		errs = append(errs, checkAutoModeLabel(fmt.Sprintf("%s.requirements[%d].key", field, i), r.Key, rules))
	}
	for _, k := range slices.Sorted(maps.Keys(pool.Labels)) {
		errs = append(errs, checkAutoModeLabel(fmt.Sprintf("%s.labels[%q]", field, k), k, rules))
	}
	expire := Deref(pool.ExpireAfter, rules.DefaultExpireAfter)
	if expire == "Never" {
		return append(errs, fmt.Errorf("%s.expireAfter: EKS Auto Mode does not allow Never (nodes live at most %s, terminationGracePeriod included)", field, hours(rules.MaxLifetime)))
	}
	grace := rules.DefaultTerminationGrace
	if pool.TerminationGracePeriod != nil {
		grace, _ = time.ParseDuration(*pool.TerminationGracePeriod) // malformed ones are reported by ValidateNodePool
	}
	if life, err := time.ParseDuration(expire); err == nil && life+grace > rules.MaxLifetime {
		errs = append(errs, fmt.Errorf("%s.expireAfter: %s plus terminationGracePeriod %s is more than EKS Auto Mode's %s (21 days)",
			field, expire, hours(grace), hours(rules.MaxLifetime)))
	}
	return errs
}

// checkAutoModeLabel applies Auto Mode's label rules on top of Karpenter's: only the
// supported eks.amazonaws.com keys (the domain and its subdomains are restricted), no
// karpenter.k8s.aws keys (Auto Mode labels its nodes under eks.amazonaws.com instead).
func checkAutoModeLabel(field, key string, rules *catalog.AutoModeRules) error {
	if why, ok := rules.UnsupportedLabels[key]; ok {
		return fmt.Errorf("%s: %q is not supported by EKS Auto Mode: %s", field, key, why)
	}
	domain, name, hasDomain := strings.Cut(key, "/")
	switch {
	case !hasDomain:
		return nil
	case domain == "karpenter.k8s.aws" || strings.HasSuffix(domain, ".karpenter.k8s.aws"):
		if name == "ec2nodeclass" {
			name = "nodeclass"
		}
		if eks := "eks.amazonaws.com/" + name; slices.Contains(rules.LabelKeys, eks) {
			return fmt.Errorf("%s: %q is self-managed Karpenter's label; EKS Auto Mode labels its nodes %q", field, key, eks)
		}
		return fmt.Errorf("%s: %q is self-managed Karpenter's label and EKS Auto Mode has no equivalent", field, key)
	case (domain == "eks.amazonaws.com" || strings.HasSuffix(domain, ".eks.amazonaws.com")) && !slices.Contains(rules.LabelKeys, key):
		return fmt.Errorf("%s: label domain \"eks.amazonaws.com\" is restricted (subdomains too); allowed keys there: %s", field, strings.Join(rules.LabelKeys, ", "))
	}
	return nil
}

// hours prints a duration the way NodePools write them (336h, 24h, 1h30m).
func hours(d time.Duration) string {
	return strings.TrimSuffix(strings.TrimSuffix(d.String(), "0s"), "0m")
}

// ValidateProvisioning checks the node pools and classes the way the Karpenter CRDs would
// (patterns, enums and CEL rules of the release's CRDs), so mistakes fail at preview with
// the field's name instead of at apply inside a Helm-managed cluster.
func ValidateProvisioning(pools, userPools []NodePoolSpec, classes []NodeClassSpec, rel catalog.Release) []error {
	var errs []error
	classNames := map[string]bool{}
	for i, c := range classes {
		field := fmt.Sprintf("nodeClasses[%d]", i)
		if classNames[c.Name] {
			errs = append(errs, fmt.Errorf("%s.name: duplicate node class name %q", field, c.Name))
		}
		classNames[c.Name] = true
		errs = append(errs, ValidateClass(field, c, rel)...)
	}
	poolNames := map[string]bool{}
	for i, pool := range pools {
		field := fmt.Sprintf("nodePools[%d]", i)
		if poolNames[pool.Name] {
			errs = append(errs, fmt.Errorf("%s.name: duplicate node pool name %q", field, pool.Name))
		}
		poolNames[pool.Name] = true
		errs = append(errs, ValidateNodePool(field, pool, rel)...)
		if pool.NodeClassRef == nil && len(userPools) == 0 {
			name := catalog.DefaultObjectName(rel)
			errs = append(errs, fmt.Errorf("defaultNodePool: the default pool needs a node class named %q when there are several (%s); name one %s, set nodePools, or set defaultNodePool to false",
				name, quotedNames(classNames), name))
		} else if pool.NodeClassRef == nil {
			errs = append(errs, fmt.Errorf("%s.nodeClassRef: required when there is more than one node class (%s)", field, quotedNames(classNames)))
		} else if !classNames[*pool.NodeClassRef] {
			errs = append(errs, fmt.Errorf("%s.nodeClassRef: %q names no node class; defined: %s", field, *pool.NodeClassRef, quotedNames(classNames)))
		}
	}
	return errs
}

var (
	durationPattern       = regexp.MustCompile(`^([0-9]+(s|m|h))+$`)
	budgetDurationPattern = regexp.MustCompile(`^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$`)
	budgetNodesPattern    = regexp.MustCompile(`^((100|[0-9]{1,2})%|[0-9]+)$`)
	quantityPattern       = regexp.MustCompile(`^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`)
	labelKeyPattern       = regexp.MustCompile(`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`)
	labelValuePattern     = regexp.MustCompile(`^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`)
)

// checkLabelKey applies the CRD's label-key rules. requirement keys may use the well-known
// Karpenter labels; node labels on a pool may not set karpenter.sh/nodepool.
func checkLabelKey(field, key string) error {
	if len(key) > 316 || !labelKeyPattern.MatchString(key) {
		return fmt.Errorf("%s: %q is not a valid label key", field, key)
	}
	if key == "kubernetes.io/hostname" || key == "karpenter.sh/nodepool" {
		return fmt.Errorf("%s: label %q is restricted (Karpenter sets it)", field, key)
	}
	domain, _, hasDomain := strings.Cut(key, "/")
	if !hasDomain {
		return nil
	}
	for restricted, allowed := range catalog.RestrictedLabelDomains {
		if strings.HasSuffix(domain, restricted) && !slices.Contains(allowed, key) {
			return fmt.Errorf("%s: label domain %q is restricted; allowed keys there: %s", field, restricted, strings.Join(allowed, ", "))
		}
	}
	return nil
}

func ValidateNodePool(field string, pool NodePoolSpec, rel catalog.Release) []error {
	var errs []error
	errs = append(errs, CheckDNSLabel(field+".name", pool.Name))
	for i, r := range pool.Requirements {
		f := fmt.Sprintf("%s.requirements[%d]", field, i)
		errs = append(errs, validateRequirement(f, r)...)
		errs = append(errs, checkWellKnownValues(f, r, rel)...)
		errs = append(errs, rel.Require(f+".operator", slices.Contains([]RequirementOperator{"Gte", "Lte"}, r.Operator), catalog.FeatureGteLte))
		errs = append(errs, rel.Require(f+".minValues", r.MinValues != nil, catalog.FeatureMinValues))
	}
	if limit := 100; len(pool.Requirements) > limit || (!rel.Has(catalog.FeatureV1) && len(pool.Requirements) > 30) {
		if !rel.Has(catalog.FeatureV1) {
			limit = 30
		}
		errs = append(errs, fmt.Errorf("%s.requirements: at most %d requirements for %s", field, limit, rel))
	}
	for _, k := range slices.Sorted(maps.Keys(pool.Labels)) {
		errs = append(errs, checkLabelKey(fmt.Sprintf("%s.labels[%q]", field, k), k))
		if v := pool.Labels[k]; len(v) > 63 || !labelValuePattern.MatchString(v) {
			errs = append(errs, fmt.Errorf("%s.labels[%q]: %q is not a valid label value (at most 63 letters, digits, '-', '_' or '.')", field, k, v))
		}
	}
	for _, group := range []struct {
		name   string
		taints []Taint
	}{{"taints", pool.Taints}, {"startupTaints", pool.StartupTaints}} {
		for i, t := range group.taints {
			f := fmt.Sprintf("%s.%s[%d]", field, group.name, i)
			if len(t.Key) > 316 || !labelKeyPattern.MatchString(t.Key) {
				errs = append(errs, fmt.Errorf("%s.key: %q is not a valid taint key", f, t.Key))
			}
			if t.Value != nil && !labelValuePattern.MatchString(*t.Value) {
				errs = append(errs, fmt.Errorf("%s.value: %q is not a valid taint value", f, *t.Value))
			}
			errs = append(errs, CheckEnum(f+".effect", string(t.Effect), EnumValues[TaintEffect]()))
		}
	}
	if pool.ExpireAfter != nil && *pool.ExpireAfter != "Never" && !durationPattern.MatchString(*pool.ExpireAfter) {
		errs = append(errs, fmt.Errorf("%s.expireAfter: %q is not a duration like 720h or 30m, or Never", field, *pool.ExpireAfter))
	}
	if pool.TerminationGracePeriod != nil && !durationPattern.MatchString(*pool.TerminationGracePeriod) {
		errs = append(errs, fmt.Errorf("%s.terminationGracePeriod: %q is not a duration like 48h or 30m", field, *pool.TerminationGracePeriod))
	}
	errs = append(errs, rel.Require(field+".terminationGracePeriod", pool.TerminationGracePeriod != nil, catalog.FeatureV1))
	for _, k := range slices.Sorted(maps.Keys(pool.Limits)) {
		if !quantityPattern.MatchString(pool.Limits[k]) {
			errs = append(errs, fmt.Errorf("%s.limits[%q]: %q is not a Kubernetes quantity (e.g. 1000, 500m, 1000Gi)", field, k, pool.Limits[k]))
		}
	}
	errs = append(errs, checkRange(field+".weight", pool.Weight, 1, 100))
	errs = append(errs, validateStaticPool(field, pool, rel)...)
	if d := pool.Disruption; d != nil {
		if d.ConsolidationPolicy != nil {
			errs = append(errs, checkConsolidationPolicy(field+".disruption.consolidationPolicy", *d.ConsolidationPolicy, rel))
			// Before v1 only emptiness waits: consolidation of underused nodes has no delay.
			consolidates := *d.ConsolidationPolicy != "WhenEmpty"
			errs = append(errs, rel.Require(field+".disruption.consolidateAfter", consolidates && d.ConsolidateAfter != nil, catalog.FeatureV1))
		}
		errs = append(errs, rel.Require(field+".disruption.budgets", len(d.Budgets) > 0, catalog.FeatureBudgets))
		for i, b := range d.Budgets {
			errs = append(errs, rel.Require(fmt.Sprintf("%s.disruption.budgets[%d].reasons", field, i), len(b.Reasons) > 0, catalog.FeatureV1))
		}
		if d.ConsolidateAfter != nil && *d.ConsolidateAfter != "Never" && !durationPattern.MatchString(*d.ConsolidateAfter) {
			errs = append(errs, fmt.Errorf("%s.disruption.consolidateAfter: %q is not a duration like 1m or 30s, or Never", field, *d.ConsolidateAfter))
		}
		errs = append(errs, checkAtMost(field+".disruption.budgets", len(d.Budgets), 50, "budgets"))
		for i, b := range d.Budgets {
			errs = append(errs, validateBudget(fmt.Sprintf("%s.disruption.budgets[%d]", field, i), b, rel)...)
		}
	}
	if rel.AutoMode != nil {
		errs = append(errs, validateAutoModePool(field, pool, rel.AutoMode)...)
	}
	return errs
}

// checkConsolidationPolicy accepts the policies of the release's generation; v1beta1's
// WhenUnderutilized and v1's WhenEmptyOrUnderutilized are the same policy under two names.
func checkConsolidationPolicy(field string, policy ConsolidationPolicy, rel catalog.Release) error {
	if policy == "WhenUnderutilized" && rel.Has(catalog.FeatureV1) {
		return fmt.Errorf("%s: WhenUnderutilized was renamed WhenEmptyOrUnderutilized in Karpenter 1.0", field)
	}
	if policy == "Balanced" {
		return rel.Require(field, true, catalog.FeatureBalanced)
	}
	return CheckEnum(field, string(policy), rel.ConsolidationPolicies)
}

func validateRequirement(field string, r Requirement) []error {
	var errs []error
	if err := checkLabelKey(field+".key", r.Key); err != nil && r.Key != "karpenter.sh/nodepool" {
		errs = append(errs, err)
	}
	if err := CheckEnum(field+".operator", string(r.Operator), EnumValues[RequirementOperator]()); err != nil {
		return append(errs, err)
	}
	for i, v := range r.Values {
		if len(v) > 63 || !labelValuePattern.MatchString(v) {
			errs = append(errs, fmt.Errorf("%s.values[%d]: %q is not a valid label value", field, i, v))
		}
	}
	switch r.Operator {
	case "In":
		if len(r.Values) == 0 {
			errs = append(errs, fmt.Errorf("%s.values: operator In needs at least one value", field))
		}
	case "Exists", "DoesNotExist":
		if len(r.Values) > 0 {
			errs = append(errs, fmt.Errorf("%s.values: operator %s takes no values", field, r.Operator))
		}
	case "Gt", "Lt", "Gte", "Lte":
		if len(r.Values) != 1 {
			errs = append(errs, fmt.Errorf("%s.values: operator %s needs exactly one value, a non-negative integer", field, r.Operator))
		} else if n, err := strconv.Atoi(r.Values[0]); err != nil || n < 0 {
			errs = append(errs, fmt.Errorf("%s.values[0]: operator %s needs a non-negative integer, not %q", field, r.Operator, r.Values[0]))
		}
	}
	if r.MinValues != nil {
		switch {
		case *r.MinValues < 1 || *r.MinValues > 50:
			errs = append(errs, fmt.Errorf("%s.minValues: %d is not between 1 and 50", field, *r.MinValues))
		case r.Operator == "In" && len(r.Values) < *r.MinValues:
			errs = append(errs, fmt.Errorf("%s.minValues: %d is more than the %d values given", field, *r.MinValues, len(r.Values)))
		}
	}
	return errs
}

var cronMacros = []string{"@annually", "@yearly", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"}

func validateBudget(field string, b Budget, rel catalog.Release) []error {
	var errs []error
	if b.Nodes != nil && !budgetNodesPattern.MatchString(*b.Nodes) {
		errs = append(errs, fmt.Errorf("%s.nodes: %q is not a node count (5) or percentage (10%%)", field, *b.Nodes))
	}
	if (b.Schedule == nil) != (b.Duration == nil) {
		errs = append(errs, fmt.Errorf("%s: schedule and duration must be set together (a schedule says when the budget starts, the duration how long it lasts)", field))
	}
	if b.Schedule != nil {
		if err := checkCron(*b.Schedule); err != nil {
			errs = append(errs, fmt.Errorf("%s.schedule: %w", field, err))
		}
	}
	if b.Duration != nil && !budgetDurationPattern.MatchString(*b.Duration) {
		errs = append(errs, fmt.Errorf("%s.duration: %q is not a duration in hours and minutes like 8h, 30m or 1h30m", field, *b.Duration))
	}
	for i, r := range b.Reasons {
		f := fmt.Sprintf("%s.reasons[%d]", field, i)
		if rel.AutoMode != nil {
			if r == "Unhealthy" {
				errs = append(errs, fmt.Errorf("%s: EKS Auto Mode names node repair NodeNotHealthy (Unhealthy is self-managed Karpenter 1.15's name)", f))
				continue
			}
			errs = append(errs, CheckEnum(f, r, rel.AutoMode.BudgetReasons))
			continue
		}
		if r == "Unhealthy" {
			errs = append(errs, rel.Require(f, true, catalog.FeatureUnhealthyBudgets))
			continue
		}
		errs = append(errs, CheckEnum(f, r, []string{"Underutilized", "Empty", "Drifted", "Unhealthy"}))
	}
	return errs
}

// cronFieldRanges are the minute, hour, day-of-month, month and day-of-week ranges.
var cronFieldRanges = [5][2]int{{0, 59}, {0, 23}, {1, 31}, {1, 12}, {0, 7}}

// checkCron accepts the standard 5-field cron syntax (numbers, *, ranges, steps and lists,
// month and weekday names) and the @ macros, as Kubernetes CronJobs do.
func checkCron(s string) error {
	if slices.Contains(cronMacros, s) {
		return nil
	}
	fields := strings.Fields(s)
	if len(fields) != 5 {
		return fmt.Errorf("%q is not a cron schedule: need 5 fields (minute hour day-of-month month day-of-week) or one of %s", s, strings.Join(cronMacros, ", "))
	}
	names := [5][]string{nil, nil, nil,
		{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"},
		{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}}
	for i, f := range fields {
		for _, part := range strings.Split(f, ",") {
			if err := checkCronPart(part, cronFieldRanges[i], names[i]); err != nil {
				return fmt.Errorf("%q is not a cron schedule: field %d (%s): %w", s, i+1, f, err)
			}
		}
	}
	return nil
}

func checkCronPart(part string, bounds [2]int, names []string) error {
	base, step, hasStep := strings.Cut(part, "/")
	if hasStep {
		if n, err := strconv.Atoi(step); err != nil || n < 1 {
			return fmt.Errorf("bad step %q", step)
		}
	}
	if base == "*" || base == "?" {
		return nil
	}
	lo, hi, isRange := strings.Cut(base, "-")
	value := func(v string) (int, error) {
		if i := slices.Index(names, strings.ToLower(v)); i >= 0 {
			return i + bounds[0], nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < bounds[0] || n > bounds[1] {
			return 0, fmt.Errorf("%q is outside %d-%d", v, bounds[0], bounds[1])
		}
		return n, nil
	}
	a, err := value(lo)
	if err != nil {
		return err
	}
	if isRange {
		b, err := value(hi)
		if err != nil {
			return err
		}
		if b < a {
			return fmt.Errorf("range %q runs backwards", base)
		}
	}
	return nil
}

// validateStaticPool checks a static pool (replicas): the CRD refuses weight and limits but
// nodes on it, and Karpenter ignores its consolidation settings, which would then be set for
// nothing.
func validateStaticPool(field string, pool NodePoolSpec, rel catalog.Release) []error {
	if pool.Replicas == nil {
		return nil
	}
	errs := []error{
		rel.Require(field+".replicas", true, catalog.FeatureStaticPools),
		checkAtLeast(field+".replicas", pool.Replicas, 0),
	}
	for _, k := range slices.Sorted(maps.Keys(pool.Limits)) {
		if k != "nodes" {
			errs = append(errs, fmt.Errorf("%s.limits[%q]: a static pool (replicas set) takes only the nodes limit", field, k))
		}
	}
	if pool.Weight != nil {
		errs = append(errs, fmt.Errorf("%s.weight: not supported on a static pool (replicas set)", field))
	}
	if d := pool.Disruption; d != nil {
		if d.ConsolidationPolicy != nil {
			errs = append(errs, fmt.Errorf("%s.disruption.consolidationPolicy: Karpenter ignores it on a static pool (replicas set); remove it", field))
		}
		if d.ConsolidateAfter != nil {
			errs = append(errs, fmt.Errorf("%s.disruption.consolidateAfter: Karpenter ignores it on a static pool (replicas set); remove it", field))
		}
	}
	return errs
}

// checkWellKnownValues refuses, for a well-known label (catalog.WellKnownLabelValues), a value
// Karpenter never sets: `In` it the pool would never launch a node, `NotIn` it excludes nothing.
// A value a later release sets names that release.
func checkWellKnownValues(field string, r Requirement, rel catalog.Release) []error {
	known, ok := catalog.WellKnownLabelValues[r.Key]
	if !ok || (r.Operator != "In" && r.Operator != "NotIn") {
		return nil
	}
	var names []string
	for _, k := range known {
		names = append(names, k.Value)
	}
	var errs []error
	for i, v := range r.Values {
		f := fmt.Sprintf("%s.values[%d]", field, i)
		j := slices.IndexFunc(known, func(k catalog.LabelValue) bool { return k.Value == v })
		switch {
		case j < 0:
			errs = append(errs, fmt.Errorf("%s: %q is not a value Karpenter sets on %s (%s), so the requirement can never match it", f, v, r.Key, strings.Join(names, ", ")))
		case known[j].Since != "":
			errs = append(errs, rel.Require(f, true, known[j].Since))
		}
	}
	return errs
}

// quotedNames lists names for a message, each quoted (a name may hold any character).
func quotedNames(names map[string]bool) string {
	var out []string
	for _, n := range slices.Sorted(maps.Keys(names)) {
		out = append(out, strconv.Quote(n))
	}
	return strings.Join(out, ", ")
}
