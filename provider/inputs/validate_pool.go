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
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"
)

// validateAutoModePool applies Auto Mode's NodePool rules (catalog: autoModeRules): names EKS
// owns, its label keys, and the node lifetime limit.
func validateAutoModePool(path *field.Path, pool NodePoolSpec, rules *catalog.AutoModeRules) []error {
	var errs []error
	if slices.Contains(rules.ReservedPoolNames, pool.Name) {
		errs = append(errs, field.Invalidf(path.Child("name"), "%q is an EKS built-in pool (enable it with the cluster's computeConfig.nodePools)", pool.Name).
			WithHint("choose another name"))
	}
	for i, r := range pool.Requirements {
		errs = append(errs, checkAutoModeLabel(path.Child("requirements").Index(i).Child("key"), r.Key, rules))
	}
	for _, k := range slices.Sorted(maps.Keys(pool.Labels)) {
		errs = append(errs, checkAutoModeLabel(path.Child("labels").Key(k), k, rules))
	}
	expire := Deref(pool.ExpireAfter, rules.DefaultExpireAfter)
	if expire == "Never" {
		return append(errs, field.Invalidf(path.Child("expireAfter"), "EKS Auto Mode does not allow Never (nodes live at most %s, terminationGracePeriod included)", hours(rules.MaxLifetime)))
	}
	grace := rules.DefaultTerminationGrace
	if pool.TerminationGracePeriod != nil {
		grace, _ = time.ParseDuration(*pool.TerminationGracePeriod) // malformed ones are reported by ValidateNodePool
	}
	if life, err := time.ParseDuration(expire); err == nil && life+grace > rules.MaxLifetime {
		errs = append(errs, field.Invalidf(path.Child("expireAfter"), "%s plus terminationGracePeriod %s is more than EKS Auto Mode's %s (21 days)",
			expire, hours(grace), hours(rules.MaxLifetime)))
	}
	return errs
}

// checkAutoModeLabel applies Auto Mode's label rules on top of Karpenter's: only the
// supported eks.amazonaws.com keys (the domain and its subdomains are restricted), no
// karpenter.k8s.aws keys (Auto Mode labels its nodes under eks.amazonaws.com instead).
func checkAutoModeLabel(path *field.Path, key string, rules *catalog.AutoModeRules) error {
	if why, ok := rules.UnsupportedLabels[key]; ok {
		return field.Invalidf(path, "%q is not supported by EKS Auto Mode: %s", key, why)
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
			return field.Invalidf(path, "%q is self-managed Karpenter's label; EKS Auto Mode labels its nodes %q", key, eks)
		}
		return field.Invalidf(path, "%q is self-managed Karpenter's label and EKS Auto Mode has no equivalent", key)
	case (domain == "eks.amazonaws.com" || strings.HasSuffix(domain, ".eks.amazonaws.com")) && !slices.Contains(rules.LabelKeys, key):
		return field.Invalidf(path, "label domain \"eks.amazonaws.com\" is restricted (subdomains too); allowed keys there: %s", strings.Join(rules.LabelKeys, ", "))
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
		path := field.NewPath("nodeClasses").Index(i)
		if classNames[c.Name] {
			errs = append(errs, field.Invalidf(path.Child("name"), "duplicate node class name %q", c.Name))
		}
		classNames[c.Name] = true
		errs = append(errs, ValidateClass(path, c, rel)...)
	}
	poolNames := map[string]bool{}
	for i, pool := range pools {
		path := field.NewPath("nodePools").Index(i)
		if poolNames[pool.Name] {
			errs = append(errs, field.Invalidf(path.Child("name"), "duplicate node pool name %q", pool.Name))
		}
		poolNames[pool.Name] = true
		errs = append(errs, ValidateNodePool(path, pool, rel)...)
		if pool.NodeClassRef == nil && len(userPools) == 0 {
			name := catalog.DefaultObjectName(rel)
			errs = append(errs, field.Invalidf(field.NewPath("defaultNodePool"), "the default pool needs a node class named %q when there are several (%s)", name, quotedNames(classNames)).
				WithHint(fmt.Sprintf("name one %s, set nodePools, or set defaultNodePool to false", name)))
		} else if pool.NodeClassRef == nil {
			errs = append(errs, field.Required(path.Child("nodeClassRef"), fmt.Sprintf("when there is more than one node class (%s)", quotedNames(classNames))))
		} else if !classNames[*pool.NodeClassRef] {
			errs = append(errs, field.Invalidf(path.Child("nodeClassRef"), "%q names no node class; defined: %s", *pool.NodeClassRef, quotedNames(classNames)))
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
func checkLabelKey(path *field.Path, key string) error {
	if len(key) > 316 || !labelKeyPattern.MatchString(key) {
		return field.Invalidf(path, "%q is not a valid label key", key)
	}
	if key == "kubernetes.io/hostname" || key == "karpenter.sh/nodepool" {
		return field.Invalidf(path, "label %q is restricted (Karpenter sets it)", key)
	}
	domain, _, hasDomain := strings.Cut(key, "/")
	if !hasDomain {
		return nil
	}
	for restricted, allowed := range catalog.RestrictedLabelDomains {
		if strings.HasSuffix(domain, restricted) && !slices.Contains(allowed, key) {
			return field.Invalidf(path, "label domain %q is restricted; allowed keys there: %s", restricted, strings.Join(allowed, ", "))
		}
	}
	return nil
}

func ValidateNodePool(path *field.Path, pool NodePoolSpec, rel catalog.Release) []error {
	var errs []error
	errs = append(errs, CheckDNSLabel(path.Child("name"), pool.Name))
	for i, r := range pool.Requirements {
		f := path.Child("requirements").Index(i)
		errs = append(errs, validateRequirement(f, r)...)
		errs = append(errs, checkWellKnownValues(f, r, rel)...)
		errs = append(errs, rel.Require(f.Child("operator"), slices.Contains([]RequirementOperator{"Gte", "Lte"}, r.Operator), catalog.FeatureGteLte))
		errs = append(errs, rel.Require(f.Child("minValues"), r.MinValues != nil, catalog.FeatureMinValues))
	}
	if limit := 100; len(pool.Requirements) > limit || (!rel.Has(catalog.FeatureV1) && len(pool.Requirements) > 30) {
		if !rel.Has(catalog.FeatureV1) {
			limit = 30
		}
		errs = append(errs, field.Invalidf(path.Child("requirements"), "at most %d requirements for %s", limit, rel))
	}
	for _, k := range slices.Sorted(maps.Keys(pool.Labels)) {
		f := path.Child("labels").Key(k)
		errs = append(errs, checkLabelKey(f, k))
		if v := pool.Labels[k]; len(v) > 63 || !labelValuePattern.MatchString(v) {
			errs = append(errs, field.Invalidf(f, "%q is not a valid label value (at most 63 letters, digits, '-', '_' or '.')", v))
		}
	}
	for _, group := range []struct {
		name   string
		taints []Taint
	}{{"taints", pool.Taints}, {"startupTaints", pool.StartupTaints}} {
		for i, t := range group.taints {
			f := path.Child(group.name).Index(i)
			if len(t.Key) > 316 || !labelKeyPattern.MatchString(t.Key) {
				errs = append(errs, field.Invalidf(f.Child("key"), "%q is not a valid taint key", t.Key))
			}
			if t.Value != nil && !labelValuePattern.MatchString(*t.Value) {
				errs = append(errs, field.Invalidf(f.Child("value"), "%q is not a valid taint value", *t.Value))
			}
			errs = append(errs, CheckEnum(f.Child("effect"), string(t.Effect), EnumValues[TaintEffect]()))
		}
	}
	if pool.ExpireAfter != nil && *pool.ExpireAfter != "Never" && !durationPattern.MatchString(*pool.ExpireAfter) {
		errs = append(errs, field.Invalidf(path.Child("expireAfter"), "%q is not a duration like 720h or 30m, or Never", *pool.ExpireAfter))
	}
	if pool.TerminationGracePeriod != nil && !durationPattern.MatchString(*pool.TerminationGracePeriod) {
		errs = append(errs, field.Invalidf(path.Child("terminationGracePeriod"), "%q is not a duration like 48h or 30m", *pool.TerminationGracePeriod))
	}
	errs = append(errs, rel.Require(path.Child("terminationGracePeriod"), pool.TerminationGracePeriod != nil, catalog.FeatureV1))
	for _, k := range slices.Sorted(maps.Keys(pool.Limits)) {
		if !quantityPattern.MatchString(pool.Limits[k]) {
			errs = append(errs, field.Invalidf(path.Child("limits").Key(k), "%q is not a Kubernetes quantity (e.g. 1000, 500m, 1000Gi)", pool.Limits[k]))
		}
	}
	errs = append(errs, checkRange(path.Child("weight"), pool.Weight, 1, 100))
	errs = append(errs, validateStaticPool(path, pool, rel)...)
	if d := pool.Disruption; d != nil {
		disruption := path.Child("disruption")
		if d.ConsolidationPolicy != nil {
			errs = append(errs, checkConsolidationPolicy(disruption.Child("consolidationPolicy"), *d.ConsolidationPolicy, rel))
			// Before v1 only emptiness waits: consolidation of underused nodes has no delay.
			consolidates := *d.ConsolidationPolicy != "WhenEmpty"
			errs = append(errs, rel.Require(disruption.Child("consolidateAfter"), consolidates && d.ConsolidateAfter != nil, catalog.FeatureV1))
		}
		errs = append(errs, rel.Require(disruption.Child("budgets"), len(d.Budgets) > 0, catalog.FeatureBudgets))
		for i, b := range d.Budgets {
			errs = append(errs, rel.Require(disruption.Child("budgets").Index(i).Child("reasons"), len(b.Reasons) > 0, catalog.FeatureV1))
		}
		if d.ConsolidateAfter != nil && *d.ConsolidateAfter != "Never" && !durationPattern.MatchString(*d.ConsolidateAfter) {
			errs = append(errs, field.Invalidf(disruption.Child("consolidateAfter"), "%q is not a duration like 1m or 30s, or Never", *d.ConsolidateAfter))
		}
		errs = append(errs, checkAtMost(disruption.Child("budgets"), len(d.Budgets), 50, "budgets"))
		for i, b := range d.Budgets {
			errs = append(errs, validateBudget(disruption.Child("budgets").Index(i), b, rel)...)
		}
	}
	if rel.IsAutoMode() {
		errs = append(errs, validateAutoModePool(path, pool, rel.AutoMode)...)
	}
	return errs
}

// checkConsolidationPolicy accepts the policies of the release's generation; v1beta1's
// WhenUnderutilized and v1's WhenEmptyOrUnderutilized are the same policy under two names.
func checkConsolidationPolicy(path *field.Path, policy ConsolidationPolicy, rel catalog.Release) error {
	if policy == "WhenUnderutilized" && rel.Has(catalog.FeatureV1) {
		return field.Invalid(path, "WhenUnderutilized was renamed WhenEmptyOrUnderutilized in Karpenter 1.0")
	}
	if policy == "Balanced" {
		return rel.Require(path, true, catalog.FeatureBalanced)
	}
	return CheckEnum(path, string(policy), rel.ConsolidationPolicies)
}

func validateRequirement(path *field.Path, r Requirement) []error {
	var errs []error
	if err := checkLabelKey(path.Child("key"), r.Key); err != nil && r.Key != "karpenter.sh/nodepool" {
		errs = append(errs, err)
	}
	if err := CheckEnum(path.Child("operator"), string(r.Operator), EnumValues[RequirementOperator]()); err != nil {
		return append(errs, err)
	}
	values := path.Child("values")
	for i, v := range r.Values {
		if len(v) > 63 || !labelValuePattern.MatchString(v) {
			errs = append(errs, field.Invalidf(values.Index(i), "%q is not a valid label value", v))
		}
	}
	switch r.Operator {
	case "In":
		if len(r.Values) == 0 {
			errs = append(errs, field.Invalid(values, "operator In needs at least one value"))
		}
	case "Exists", "DoesNotExist":
		if len(r.Values) > 0 {
			errs = append(errs, field.Invalidf(values, "operator %s takes no values", r.Operator))
		}
	case "Gt", "Lt", "Gte", "Lte":
		if len(r.Values) != 1 {
			errs = append(errs, field.Invalidf(values, "operator %s needs exactly one value, a non-negative integer", r.Operator))
		} else if n, err := strconv.Atoi(r.Values[0]); err != nil || n < 0 {
			errs = append(errs, field.Invalidf(values.Index(0), "operator %s needs a non-negative integer, not %q", r.Operator, r.Values[0]))
		}
	}
	if r.MinValues != nil {
		switch {
		case *r.MinValues < 1 || *r.MinValues > 50:
			errs = append(errs, field.Invalidf(path.Child("minValues"), "%d is not between 1 and 50", *r.MinValues))
		case r.Operator == "In" && len(r.Values) < *r.MinValues:
			errs = append(errs, field.Invalidf(path.Child("minValues"), "%d is more than the %d values given", *r.MinValues, len(r.Values)))
		}
	}
	return errs
}

var cronMacros = []string{"@annually", "@yearly", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"}

func validateBudget(path *field.Path, b Budget, rel catalog.Release) []error {
	var errs []error
	if b.Nodes != nil && !budgetNodesPattern.MatchString(*b.Nodes) {
		errs = append(errs, field.Invalidf(path.Child("nodes"), "%q is not a node count (5) or percentage (10%%)", *b.Nodes))
	}
	if (b.Schedule == nil) != (b.Duration == nil) {
		errs = append(errs, field.Invalid(path, "schedule and duration must be set together (a schedule says when the budget starts, the duration how long it lasts)"))
	}
	if b.Schedule != nil {
		if err := checkCron(*b.Schedule); err != nil {
			errs = append(errs, field.Invalid(path.Child("schedule"), err.Error()))
		}
	}
	if b.Duration != nil && !budgetDurationPattern.MatchString(*b.Duration) {
		errs = append(errs, field.Invalidf(path.Child("duration"), "%q is not a duration in hours and minutes like 8h, 30m or 1h30m", *b.Duration))
	}
	for i, r := range b.Reasons {
		f := path.Child("reasons").Index(i)
		if rel.IsAutoMode() {
			if r == "Unhealthy" {
				errs = append(errs, field.Invalid(f, "EKS Auto Mode names node repair NodeNotHealthy (Unhealthy is self-managed Karpenter 1.15's name)"))
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
func validateStaticPool(path *field.Path, pool NodePoolSpec, rel catalog.Release) []error {
	if pool.Replicas == nil {
		return nil
	}
	errs := []error{
		rel.Require(path.Child("replicas"), true, catalog.FeatureStaticPools),
		checkAtLeast(path.Child("replicas"), pool.Replicas, 0),
	}
	for _, k := range slices.Sorted(maps.Keys(pool.Limits)) {
		if k != "nodes" {
			errs = append(errs, field.Invalid(path.Child("limits").Key(k), "a static pool (replicas set) takes only the nodes limit"))
		}
	}
	if pool.Weight != nil {
		errs = append(errs, field.Invalid(path.Child("weight"), "not supported on a static pool (replicas set)"))
	}
	if d := pool.Disruption; d != nil {
		if d.ConsolidationPolicy != nil {
			errs = append(errs, field.Invalid(path.Child("disruption", "consolidationPolicy"), "Karpenter ignores it on a static pool (replicas set)").WithHint("remove it"))
		}
		if d.ConsolidateAfter != nil {
			errs = append(errs, field.Invalid(path.Child("disruption", "consolidateAfter"), "Karpenter ignores it on a static pool (replicas set)").WithHint("remove it"))
		}
	}
	return errs
}

// checkWellKnownValues refuses, for a well-known label (catalog.WellKnownLabelValues), a value
// Karpenter never sets: `In` it the pool would never launch a node, `NotIn` it excludes nothing.
// A value a later release sets names that release.
func checkWellKnownValues(path *field.Path, r Requirement, rel catalog.Release) []error {
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
		f := path.Child("values").Index(i)
		j := slices.IndexFunc(known, func(k catalog.LabelValue) bool { return k.Value == v })
		switch {
		case j < 0:
			errs = append(errs, field.Invalidf(f, "%q is not a value Karpenter sets on %s (%s), so the requirement can never match it", v, r.Key, strings.Join(names, ", ")))
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
