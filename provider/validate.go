package provider

// Checks on the inputs, each naming its field: the plain inputs (called while resolving the
// install plan) and the Input-typed values once they resolve (validateInputs, the gate every
// child waits on).

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// validateInputs checks the Input-typed values once they resolve. Its result gates every
// child: when a value is invalid, no child registers.
func (b *builder) validateInputs() pulumi.ResourceArrayOutput {
	args := b.args
	checks := []inputCheck{
		{"clusterName", args.ClusterName.ToStringOutput().ToStringPtrOutput(), checkClusterName},
		{"clusterEndpoint", args.ClusterEndpoint, checkEndpoint},
		{"oidcProviderArn", args.OidcProviderArn, checkArn("oidc-provider/")},
		{"controllerRoleArn", args.ControllerRoleArn, checkArn("role/")},
		{"nodeRoleArn", args.NodeRoleArn, checkArn("role/")},
	}
	for _, key := range sortedKeys(args.ControllerPolicyArns) {
		checks = append(checks, inputCheck{"controllerPolicyArns." + key, args.ControllerPolicyArns[key].ToStringOutput().ToStringPtrOutput(), checkArn("policy/")})
	}
	for _, key := range sortedKeys(args.NodeRoleAdditionalPolicyArns) {
		checks = append(checks, inputCheck{"nodeRoleAdditionalPolicyArns." + key, args.NodeRoleAdditionalPolicyArns[key].ToStringOutput().ToStringPtrOutput(), checkArn("policy/")})
	}
	if d := args.Discovery; d != nil {
		for i, id := range d.SubnetIds {
			checks = append(checks, inputCheck{fmt.Sprintf("discovery.subnetIds[%d]", i), id.ToStringOutput().ToStringPtrOutput(), checkID("subnet-")})
		}
		for i, id := range d.SecurityGroupIds {
			checks = append(checks, inputCheck{fmt.Sprintf("discovery.securityGroupIds[%d]", i), id.ToStringOutput().ToStringPtrOutput(), checkID("sg-")})
		}
	}
	for i, c := range b.plan.classes {
		checks = append(checks, classInputChecks(fmt.Sprintf("nodeClasses[%d]", i), c, b.plan.release)...)
	}

	chartValues := pulumi.MapInput(pulumi.Map{})
	if args.Values != nil {
		chartValues = args.Values
	}
	tags := pulumi.StringMapInput(pulumi.StringMap{})
	if args.Tags != nil {
		tags = args.Tags
	}
	principalFields, principals := b.autoModeAccessPrincipals()
	return inputGate(checks, []any{args.ClusterName.ToStringOutput(), chartValues.ToMapOutput(), pulumi.All(principals...), tags.ToStringMapOutput()},
		func(extra []any) []error {
			errs := validateChartValues(extra[1].(map[string]any), b.plan.release)
			errs = append(errs, checkComponentTags(extra[3].(map[string]string), b.plan)...)
			return append(errs, checkDistinctPrincipals(principalFields, extra[2].([]any))...)
		},
		// With valid inputs, the cluster-side check that needs them.
		func(extra []any) error { return b.checkPodIdentityAgent(extra[0].(string)) })
}

// reservedClassTag: Karpenter (or EKS Auto Mode) sets this tag on what it launches and refuses it
// in a node class's tags.
func reservedClassTag(rel release, key string) bool {
	reserved := reservedTagKeys
	if rel.autoMode != nil {
		reserved = autoModeReservedTags
	}
	return key == "" || slices.Contains(reserved, key) || strings.HasPrefix(key, "kubernetes.io/cluster")
}

// checkComponentTags: the component's tags go onto every node class it creates as well, so a
// key a node class may not carry fails here, before anything is created.
func checkComponentTags(tags map[string]string, p *installPlan) []error {
	if len(p.classes) == 0 {
		return nil
	}
	var errs []error
	for _, k := range sortedKeys(tags) {
		if reservedClassTag(p.release, k) {
			errs = append(errs, fmt.Errorf("tags: tag %q is reserved for Karpenter on what it launches, and the component puts its tags on every node class; set it on the resources that need it instead", k))
		}
	}
	return errs
}

// inputCheck validates one Input-typed string once it resolves.
type inputCheck struct {
	field string
	value pulumi.StringPtrInput
	fn    func(field, value string) error
}

// classInputChecks are the checks of a node class's Input-typed ids and names.
func classInputChecks(field string, c NodeClassSpec, rel release) []inputCheck {
	var checks []inputCheck
	if rel.autoMode != nil {
		checks = append(checks, inputCheck{field + ".role", c.Role, checkAutoModeRole})
	}
	for j, t := range c.PodSubnetSelectorTerms {
		checks = append(checks, inputCheck{fmt.Sprintf("%s.podSubnetSelectorTerms[%d].id", field, j), t.Id, checkID("subnet-")})
	}
	for j, t := range c.PodSecurityGroupSelectorTerms {
		checks = append(checks, inputCheck{fmt.Sprintf("%s.podSecurityGroupSelectorTerms[%d].id", field, j), t.Id, checkID("sg-")})
	}
	for j, t := range c.SubnetSelectorTerms {
		checks = append(checks, inputCheck{fmt.Sprintf("%s.subnetSelectorTerms[%d].id", field, j), t.Id, checkID("subnet-")})
	}
	for j, t := range c.SecurityGroupSelectorTerms {
		checks = append(checks, inputCheck{fmt.Sprintf("%s.securityGroupSelectorTerms[%d].id", field, j), t.Id, checkID("sg-")})
	}
	for j, t := range c.CapacityReservationSelectorTerms {
		checks = append(checks, inputCheck{fmt.Sprintf("%s.capacityReservationSelectorTerms[%d].id", field, j), t.Id, checkID("cr-")})
	}
	if s := c.PlacementGroupSelector; s != nil {
		checks = append(checks,
			inputCheck{field + ".placementGroupSelector.id", s.Id, checkID("pg-")},
			inputCheck{field + ".placementGroupSelector.name", s.Name, checkNotEmpty})
	}
	return checks
}

// inputGate resolves the checked values and extra values, and fails when a check or
// validate (given the resolved extra values) reports a problem; with none, then runs (may be
// nil). The result gates every child of a component.
func inputGate(checks []inputCheck, extra []any, validate func(extra []any) []error, then func(extra []any) error) pulumi.ResourceArrayOutput {
	var values []any
	var active []inputCheck
	for _, c := range checks {
		if c.value != nil {
			values = append(values, c.value.ToStringPtrOutput())
			active = append(active, c)
		}
	}
	values = append(values, extra...)
	return pulumi.All(values...).ApplyT(func(vals []any) ([]pulumi.Resource, error) {
		var errs []error
		for i, c := range active {
			if v := vals[i].(*string); v != nil {
				errs = append(errs, c.fn(c.field, *v))
			}
		}
		if validate != nil {
			errs = append(errs, validate(vals[len(active):])...)
		}
		if err := errors.Join(errs...); err != nil || then == nil {
			return []pulumi.Resource{}, err
		}
		return []pulumi.Resource{}, then(vals[len(active):])
	}).(pulumi.ResourceArrayOutput)
}

// EKS cluster names: 1-100 characters, alphanumerics, '-' and '_', starting alphanumeric.
var clusterNamePattern = regexp.MustCompile(`^[0-9A-Za-z][A-Za-z0-9\-_]{0,99}$`)

func checkClusterName(field, v string) error {
	if !clusterNamePattern.MatchString(v) {
		return fmt.Errorf("%s: %q is not a valid EKS cluster name (1-100 characters: letters, digits, '-' and '_', starting with a letter or digit)", field, v)
	}
	return nil
}

var idPattern = regexp.MustCompile(`^[a-z]+-[0-9a-z]+$`)

// checkID checks an EC2 id (subnet-..., sg-...).
func checkID(prefix string) func(field, v string) error {
	return func(field, v string) error {
		if !strings.HasPrefix(v, prefix) || !idPattern.MatchString(v) {
			return fmt.Errorf("%s: %q is not an id of the form %s<hex>", field, v, prefix)
		}
		return nil
	}
}

func checkNotEmpty(field, v string) error {
	if v == "" {
		return fmt.Errorf("%s: must not be empty", field)
	}
	return nil
}

func checkEndpoint(field, v string) error {
	u, err := url.Parse(v)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("%s: %q is not an https URL (the cluster's API server endpoint, e.g. https://ABCDEF.gr7.us-west-2.eks.amazonaws.com)", field, v)
	}
	return nil
}

// IAM ARNs: arn:<partition>:iam::<12-digit account>:<resource>.
var iamArnPattern = regexp.MustCompile(`^arn:aws(-cn|-us-gov|-iso|-iso-b|-iso-e|-iso-f|-eusc)?:iam::(\d{12}|aws):(.+)$`)

func checkArn(resourcePrefix string) func(field, v string) error {
	return func(field, v string) error {
		m := iamArnPattern.FindStringSubmatch(v)
		if m == nil || !strings.HasPrefix(m[3], resourcePrefix) || len(m[3]) == len(resourcePrefix) {
			return fmt.Errorf("%s: %q is not an IAM ARN of the form arn:<partition>:iam::<account>:%s<name>", field, v, resourcePrefix)
		}
		return nil
	}
}

func validateComponentName(name string) error {
	for _, l := range physicalNameLimits {
		if n := len(name) + len(l.suffix) + 8; n > l.limit {
			return fmt.Errorf("name: the component name %q is too long: the %s it names (%q + \"%s-<7 hex>\") would be %d characters, over AWS's limit of %d; use at most %d characters",
				name, l.what, name, l.suffix, n, l.limit, l.limit-len(l.suffix)-8)
		}
	}
	if !componentNamePattern.MatchString(name) {
		return fmt.Errorf("name: %q is not usable in AWS resource names (letters, digits, '-' and '_', starting with a letter or digit)", name)
	}
	return nil
}

func validateChartRepository(repo string) error {
	if strings.TrimSpace(repo) == "" {
		return errors.New("chartRepository: must not be empty (an oci:// registry, an https:// chart repository or a local directory)")
	}
	if strings.HasPrefix(repo, "oci://") || strings.HasPrefix(repo, "https://") || strings.HasPrefix(repo, "http://") {
		if u, err := url.Parse(repo); err != nil || u.Host == "" {
			return fmt.Errorf("chartRepository: %q is not a valid repository URL", repo)
		}
	}
	return nil
}

// checkOCICredentials refuses repository credentials for an OCI chart repository: the kubernetes
// provider's Release sends repositoryOpts.username/password to HTTP(S) chart repositories only;
// for an OCI registry its Helm reads credentials from the registry config that `helm registry
// login` writes (pulumi/pulumi-kubernetes#1914), so they would be dropped and the pull refused.
func checkOCICredentials(repo string, args KarpenterArgs) []error {
	if !strings.HasPrefix(repo, "oci://") {
		return nil
	}
	host := strings.TrimPrefix(repo, "oci://")
	if i := strings.Index(host, "/"); i >= 0 {
		host = host[:i]
	}
	var errs []error
	for _, in := range []struct {
		field string
		set   bool
	}{
		{"repositoryUsername", args.RepositoryUsername != nil},
		{"repositoryPassword", args.RepositoryPassword != nil},
	} {
		if in.set {
			errs = append(errs, fmt.Errorf("%s: the kubernetes provider does not send credentials to an OCI registry (pulumi/pulumi-kubernetes#1914); "+
				"run `helm registry login %s` where `pulumi up` runs (for ECR: `aws ecr get-login-password | helm registry login --username AWS --password-stdin %s`), "+
				"or set the kubernetes provider's helmReleaseSettings.registryConfigPath, and leave %s unset", in.field, host, host, in.field))
		}
	}
	return errs
}

var (
	dnsLabelPattern     = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	dnsSubdomainPattern = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	mapKeyPattern       = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9\-_.]*$`)
)

func checkDNSLabel(field, v string) error {
	if len(v) > 63 || !dnsLabelPattern.MatchString(v) {
		return fmt.Errorf("%s: %q is not a valid name (lowercase letters, digits and '-', at most 63 characters, starting and ending with a letter or digit)", field, v)
	}
	return nil
}

func checkDNSSubdomain(field, v string) error {
	if len(v) > 253 || !dnsSubdomainPattern.MatchString(v) {
		return fmt.Errorf("%s: %q is not a valid Kubernetes name (lowercase letters, digits, '-' and '.', at most 253 characters)", field, v)
	}
	return nil
}

// checkKey validates a map key that names a child resource.
func checkKey(field, key string) error {
	if !mapKeyPattern.MatchString(key) || len(key) > 40 {
		return fmt.Errorf("%s: key %q must be 1-40 letters, digits, '-', '_' or '.' (it names a Pulumi child resource)", field, key)
	}
	return nil
}

func checkEnum(field, v string, allowed []string) error {
	if !slices.Contains(allowed, v) {
		return fmt.Errorf("%s: %q is not one of %s", field, v, strings.Join(allowed, ", "))
	}
	return nil
}

var (
	sidPattern           = regexp.MustCompile(`^[A-Za-z0-9]*$`)
	iamActionPattern     = regexp.MustCompile(`^[a-z0-9-]+:[A-Za-z0-9*?]+$`)
	componentNamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9\-_]*$`)
)

func validatePolicyStatement(field string, st PolicyStatement) error {
	var errs []error
	if st.Sid != nil && !sidPattern.MatchString(*st.Sid) {
		errs = append(errs, fmt.Errorf("%s.sid: %q may contain only letters and digits", field, *st.Sid))
	}
	if st.Effect != nil {
		errs = append(errs, checkEnum(field+".effect", *st.Effect, []string{"Allow", "Deny"}))
	}
	if (len(st.Actions) == 0) == (len(st.NotActions) == 0) {
		errs = append(errs, fmt.Errorf("%s: set exactly one of actions and notActions", field))
	}
	if (st.Resources == nil) == (st.NotResources == nil) {
		errs = append(errs, fmt.Errorf("%s: set exactly one of resources and notResources", field))
	}
	for i, a := range append(slices.Clone(st.Actions), st.NotActions...) {
		if a != "*" && !iamActionPattern.MatchString(a) {
			errs = append(errs, fmt.Errorf("%s.actions[%d]: %q is not an IAM action (service:Action, wildcards allowed)", field, i, a))
		}
	}
	for i, c := range st.Conditions {
		if c.Test == "" || c.Variable == "" || len(c.Values) == 0 {
			errs = append(errs, fmt.Errorf("%s.conditions[%d]: test, variable and at least one value are required", field, i))
		}
	}
	return errors.Join(errs...)
}

// validateProvisioning checks the node pools and classes the way the Karpenter CRDs would
// (patterns, enums and CEL rules of the release's CRDs), so mistakes fail at preview with
// the field's name instead of at apply inside a Helm-managed cluster.
func validateProvisioning(p *installPlan) []error {
	var errs []error
	classNames := map[string]bool{}
	for i, c := range p.classes {
		field := fmt.Sprintf("nodeClasses[%d]", i)
		if classNames[c.Name] {
			errs = append(errs, fmt.Errorf("%s.name: duplicate node class name %q", field, c.Name))
		}
		classNames[c.Name] = true
		errs = append(errs, validateClass(field, c, p.release)...)
	}
	poolNames := map[string]bool{}
	for i, pool := range p.pools {
		field := fmt.Sprintf("nodePools[%d]", i)
		if poolNames[pool.Name] {
			errs = append(errs, fmt.Errorf("%s.name: duplicate node pool name %q", field, pool.Name))
		}
		poolNames[pool.Name] = true
		errs = append(errs, validateNodePool(field, pool, p.release)...)
		if pool.NodeClassRef == nil && len(p.userPools) == 0 {
			name := p.release.defaultObjectName()
			errs = append(errs, fmt.Errorf("defaultNodePool: the default pool needs a node class named %q when there are several (%s); name one %s, set nodePools, or set defaultNodePool to false",
				name, strings.Join(sortedKeys(classNames), ", "), name))
		} else if pool.NodeClassRef == nil {
			errs = append(errs, fmt.Errorf("%s.nodeClassRef: required when there is more than one node class (%s)", field, strings.Join(sortedKeys(classNames), ", ")))
		} else if !classNames[*pool.NodeClassRef] {
			errs = append(errs, fmt.Errorf("%s.nodeClassRef: %q names no node class; defined: %s", field, *pool.NodeClassRef, strings.Join(sortedKeys(classNames), ", ")))
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

// Label domains Karpenter reserves, with the keys it still lets pools use.
var restrictedLabelDomains = map[string][]string{
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
	for restricted, allowed := range restrictedLabelDomains {
		if strings.HasSuffix(domain, restricted) && !slices.Contains(allowed, key) {
			return fmt.Errorf("%s: label domain %q is restricted; allowed keys there: %s", field, restricted, strings.Join(allowed, ", "))
		}
	}
	return nil
}

func validateNodePool(field string, pool NodePoolSpec, rel release) []error {
	var errs []error
	errs = append(errs, checkDNSLabel(field+".name", pool.Name))
	for i, r := range pool.Requirements {
		f := fmt.Sprintf("%s.requirements[%d]", field, i)
		errs = append(errs, validateRequirement(f, r)...)
		errs = append(errs, rel.require(f+".operator", slices.Contains([]RequirementOperator{"Gte", "Lte"}, r.Operator), featureGteLte))
		errs = append(errs, rel.require(f+".minValues", r.MinValues != nil, featureMinValues))
	}
	if limit := 100; len(pool.Requirements) > limit || (!rel.has(featureV1) && len(pool.Requirements) > 30) {
		if !rel.has(featureV1) {
			limit = 30
		}
		errs = append(errs, fmt.Errorf("%s.requirements: at most %d requirements for %s", field, limit, rel))
	}
	for _, k := range sortedKeys(pool.Labels) {
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
			errs = append(errs, checkEnum(f+".effect", string(t.Effect), enumValues[TaintEffect]()))
		}
	}
	if pool.ExpireAfter != nil && *pool.ExpireAfter != "Never" && !durationPattern.MatchString(*pool.ExpireAfter) {
		errs = append(errs, fmt.Errorf("%s.expireAfter: %q is not a duration like 720h or 30m, or Never", field, *pool.ExpireAfter))
	}
	if pool.TerminationGracePeriod != nil && !durationPattern.MatchString(*pool.TerminationGracePeriod) {
		errs = append(errs, fmt.Errorf("%s.terminationGracePeriod: %q is not a duration like 48h or 30m", field, *pool.TerminationGracePeriod))
	}
	errs = append(errs, rel.require(field+".terminationGracePeriod", pool.TerminationGracePeriod != nil, featureV1))
	for _, k := range sortedKeys(pool.Limits) {
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
			errs = append(errs, rel.require(field+".disruption.consolidateAfter", consolidates && d.ConsolidateAfter != nil, featureV1))
		}
		errs = append(errs, rel.require(field+".disruption.budgets", len(d.Budgets) > 0, featureBudgets))
		for i, b := range d.Budgets {
			errs = append(errs, rel.require(fmt.Sprintf("%s.disruption.budgets[%d].reasons", field, i), len(b.Reasons) > 0, featureV1))
		}
		if d.ConsolidateAfter != nil && *d.ConsolidateAfter != "Never" && !durationPattern.MatchString(*d.ConsolidateAfter) {
			errs = append(errs, fmt.Errorf("%s.disruption.consolidateAfter: %q is not a duration like 1m or 30s, or Never", field, *d.ConsolidateAfter))
		}
		errs = append(errs, checkAtMost(field+".disruption.budgets", len(d.Budgets), 50, "budgets"))
		for i, b := range d.Budgets {
			errs = append(errs, validateBudget(fmt.Sprintf("%s.disruption.budgets[%d]", field, i), b, rel)...)
		}
	}
	if rel.autoMode != nil {
		errs = append(errs, validateAutoModePool(field, pool, rel.autoMode)...)
	}
	return errs
}

// checkConsolidationPolicy accepts the policies of the release's generation; v1beta1's
// WhenUnderutilized and v1's WhenEmptyOrUnderutilized are the same policy under two names.
func checkConsolidationPolicy(field string, policy ConsolidationPolicy, rel release) error {
	if policy == "WhenUnderutilized" && rel.has(featureV1) {
		return fmt.Errorf("%s: WhenUnderutilized was renamed WhenEmptyOrUnderutilized in Karpenter 1.0", field)
	}
	if policy == "Balanced" {
		return rel.require(field, true, featureBalanced)
	}
	allowed := make([]string, 0, len(rel.consolidationPolicies))
	for _, c := range rel.consolidationPolicies {
		allowed = append(allowed, string(c))
	}
	return checkEnum(field, string(policy), allowed)
}

func validateRequirement(field string, r Requirement) []error {
	var errs []error
	if err := checkLabelKey(field+".key", r.Key); err != nil && r.Key != "karpenter.sh/nodepool" {
		errs = append(errs, err)
	}
	if err := checkEnum(field+".operator", string(r.Operator), enumValues[RequirementOperator]()); err != nil {
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

func validateBudget(field string, b Budget, rel release) []error {
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
		if rel.autoMode != nil {
			if r == "Unhealthy" {
				errs = append(errs, fmt.Errorf("%s: EKS Auto Mode names node repair NodeNotHealthy (Unhealthy is self-managed Karpenter 1.15's name)", f))
				continue
			}
			errs = append(errs, checkEnum(f, r, rel.autoMode.budgetReasons))
			continue
		}
		if r == "Unhealthy" {
			errs = append(errs, rel.require(f, true, featureUnhealthyBudgets))
			continue
		}
		errs = append(errs, checkEnum(f, r, []string{"Underutilized", "Empty", "Drifted", "Unhealthy"}))
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

var (
	amiAliasPattern  = regexp.MustCompile(`^[a-zA-Z0-9]+@.+$`)
	amiIDPattern     = regexp.MustCompile(`^ami-[0-9a-z]+$`)
	volumeSizeRegexp = regexp.MustCompile(`^((?:[1-9][0-9]{0,3}|[1-4][0-9]{4}|[5][0-8][0-9]{3}|59000)Gi|(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|[6][0-3][0-9]{3}|64000)G|([1-9]||[1-5][0-7]|58)Ti|([1-9]||[1-5][0-9]|6[0-3]|64)T)$`)
	reservedTagKeys  = []string{"eks:eks-cluster-name", "karpenter.sh/nodepool", "karpenter.sh/nodeclaim", "karpenter.k8s.aws/ec2nodeclass"}
	kubeletEviction  = []string{"memory.available", "nodefs.available", "nodefs.inodesFree", "imagefs.available", "imagefs.inodesFree", "pid.available"}
	kubeletReserved  = []string{"cpu", "memory", "ephemeral-storage", "pid"}
)

// validateClass checks a node class of either kind: the fields its kind lacks, then its rules.
func validateClass(field string, c NodeClassSpec, rel release) []error {
	errs := checkClassKind(field, c, rel)
	if rel.autoMode != nil {
		return append(errs, validateAutoModeNodeClass(field, c, rel)...)
	}
	return append(errs, validateNodeClass(field, c, rel)...)
}

func validateNodeClass(field string, c NodeClassSpec, rel release) []error {
	var errs []error
	errs = append(errs, checkDNSLabel(field+".name", c.Name))
	if c.Role != nil && c.InstanceProfile != nil {
		errs = append(errs, fmt.Errorf("%s: role and instanceProfile are mutually exclusive (Karpenter either manages an instance profile for the role, or uses yours)", field))
	}
	errs = append(errs, rel.require(field+".role", c.Role != nil, featureNodeClassRole))
	errs = append(errs, rel.require(field+".instanceProfile", c.InstanceProfile != nil && rel.has(featureNodeClassRole), featureNodeClassProfile))
	errs = append(errs, rel.require(field+".associatePublicIPAddress", c.AssociatePublicIPAddress != nil, featureAssociatePublicIP))
	errs = append(errs, rel.require(field+".instanceStorePolicy", c.InstanceStorePolicy != nil, featureInstanceStorePolicy))
	errs = append(errs, rel.require(field+".enclaveOptions", c.EnclaveOptions != nil, featureEnclaveOptions))
	if !rel.has(featureNodeClassRole) {
		errs = append(errs, alphaSelectorErrors(field, c)...)
	}
	if c.AmiAlias != nil && len(c.AmiSelectorTerms) > 0 {
		errs = append(errs, fmt.Errorf("%s: amiAlias and amiSelectorTerms are mutually exclusive (an alias must be the only AMI selector term)", field))
	}
	aliases := 0
	if c.AmiAlias != nil {
		aliases++
		errs = append(errs, checkAmiAlias(field+".amiAlias", *c.AmiAlias, rel)...)
	}
	for i, t := range c.AmiSelectorTerms {
		f := fmt.Sprintf("%s.amiSelectorTerms[%d]", field, i)
		switch {
		case t.Alias != nil:
			aliases++
			if t.Id != nil || t.Name != nil || t.Owner != nil || t.Tags != nil || t.SsmParameter != nil {
				errs = append(errs, fmt.Errorf("%s: alias must be the only field of its term", f))
			}
			errs = append(errs, rel.require(f+".alias", true, featureV1))
			errs = append(errs, checkAmiAlias(f+".alias", *t.Alias, rel)...)
		case t.Id != nil:
			if t.Name != nil || t.Owner != nil || t.Tags != nil {
				errs = append(errs, fmt.Errorf("%s: id must not be combined with name, owner or tags", f))
			}
			if !amiIDPattern.MatchString(*t.Id) {
				errs = append(errs, fmt.Errorf("%s.id: %q is not an AMI id (ami-...)", f, *t.Id))
			}
		case t.Name == nil && t.Tags == nil && t.SsmParameter == nil:
			errs = append(errs, fmt.Errorf("%s: set one of alias, id, name, tags or ssmParameter", f))
		}
		errs = append(errs, rel.require(f+".ssmParameter", t.SsmParameter != nil, featureSSMParameter))
		errs = append(errs, checkSelectorTags(f+".tags", t.Tags)...)
	}
	if len(c.AmiSelectorTerms) > 1 && aliases > 0 {
		errs = append(errs, fmt.Errorf("%s.amiSelectorTerms: a term with alias must be the only term", field))
	}
	errs = append(errs, checkAtMost(field+".amiSelectorTerms", len(c.AmiSelectorTerms), 30, "terms"))
	if c.AmiFamily != nil {
		errs = append(errs, checkEnum(field+".amiFamily", *c.AmiFamily, rel.amiFamilies))
		errs = append(errs, rel.require(field+".amiFamily", *c.AmiFamily == "Windows2025", featureWindows2025))
		errs = append(errs, rel.require(field+".amiFamily", *c.AmiFamily == "AL2023", featureAL2023))
		errs = append(errs, checkAliasFamily(field+".amiFamily", *c.AmiFamily, c))
	} else if len(c.AmiSelectorTerms) > 0 && aliases == 0 {
		errs = append(errs, fmt.Errorf("%s.amiFamily: required when AMIs are selected without an alias (it tells Karpenter how to bootstrap them)", field))
	}
	errs = append(errs, validateClassSelection(field, c)...)
	for _, k := range sortedKeys(c.Tags) {
		if reservedClassTag(rel, k) {
			errs = append(errs, fmt.Errorf("%s.tags: tag %q is reserved for Karpenter", field, k))
		}
	}
	roots := 0
	for i, m := range c.BlockDeviceMappings {
		f := fmt.Sprintf("%s.blockDeviceMappings[%d]", field, i)
		if deref(m.RootVolume, false) {
			roots++
		}
		errs = append(errs, rel.require(f+".rootVolume", m.RootVolume != nil, featureRootVolume))
		if m.Ebs == nil {
			continue
		}
		if m.Ebs.VolumeSize == nil && m.Ebs.SnapshotId == nil {
			errs = append(errs, fmt.Errorf("%s.ebs: set volumeSize or snapshotId", f))
		}
		if m.Ebs.VolumeSize != nil && !volumeSizeRegexp.MatchString(*m.Ebs.VolumeSize) {
			errs = append(errs, fmt.Errorf("%s.ebs.volumeSize: %q is not a volume size like 100Gi (1Gi-59000Gi, 1G-64000G, 1Ti-58Ti)", f, *m.Ebs.VolumeSize))
		}
		if m.Ebs.VolumeType != nil {
			errs = append(errs, checkEnum(f+".ebs.volumeType", *m.Ebs.VolumeType, []string{"standard", "io1", "io2", "gp2", "sc1", "st1", "gp3"}))
		}
		if rate := m.Ebs.VolumeInitializationRate; rate != nil {
			errs = append(errs, rel.require(f+".ebs.volumeInitializationRate", true, featureVolumeInitializationRate))
			errs = append(errs, checkRange(f+".ebs.volumeInitializationRate", rate, 100, 300))
			if deref(m.Ebs.SnapshotId, "") == "" {
				errs = append(errs, fmt.Errorf("%s.ebs.volumeInitializationRate: needs snapshotId (it is the rate at which the snapshot's blocks are downloaded)", f))
			}
		}
	}
	errs = append(errs, checkAtMost(field+".blockDeviceMappings", len(c.BlockDeviceMappings), 50, "mappings"))
	if roots > 1 {
		errs = append(errs, fmt.Errorf("%s.blockDeviceMappings: at most one mapping may be the root volume", field))
	}
	if m := c.MetadataOptions; m != nil {
		for _, o := range []struct {
			name string
			v    *string
		}{{"httpEndpoint", m.HttpEndpoint}, {"httpProtocolIPv6", m.HttpProtocolIPv6}} {
			if o.v != nil {
				errs = append(errs, checkEnum(field+".metadataOptions."+o.name, *o.v, []string{"enabled", "disabled"}))
			}
		}
		if m.HttpTokens != nil {
			errs = append(errs, checkEnum(field+".metadataOptions.httpTokens", *m.HttpTokens, []string{"required", "optional"}))
		}
		errs = append(errs, checkRange(field+".metadataOptions.httpPutResponseHopLimit", m.HttpPutResponseHopLimit, 1, 64))
	}
	if k := c.Kubelet; k != nil {
		errs = append(errs, validateKubelet(field+".kubelet", k, c, rel)...)
	}
	if c.InstanceStorePolicy != nil {
		errs = append(errs, checkEnum(field+".instanceStorePolicy", *c.InstanceStorePolicy, []string{"RAID0"}))
	}
	errs = append(errs, validateLaunchOptions(field, c, rel)...)
	return errs
}

// validateClassSelection checks a node class's subnet and security group terms, which
// EC2NodeClasses and Auto Mode NodeClasses share.
func validateClassSelection(field string, c NodeClassSpec) []error {
	errs := validateIdOrTagsTerms(field+".subnetSelectorTerms", len(c.SubnetSelectorTerms), func(i int) (bool, map[string]string) {
		return c.SubnetSelectorTerms[i].Id != nil, c.SubnetSelectorTerms[i].Tags
	})
	errs = append(errs, checkAtMost(field+".securityGroupSelectorTerms", len(c.SecurityGroupSelectorTerms), 30, "terms"))
	for i, t := range c.SecurityGroupSelectorTerms {
		f := fmt.Sprintf("%s.securityGroupSelectorTerms[%d]", field, i)
		set := 0
		for _, present := range []bool{t.Id != nil, t.Name != nil, t.Tags != nil} {
			if present {
				set++
			}
		}
		if set != 1 {
			errs = append(errs, fmt.Errorf("%s: set exactly one of id, name and tags", f))
		}
		errs = append(errs, checkSelectorTags(f+".tags", t.Tags)...)
	}
	return errs
}

// validateIdOrTagsTerms checks selector terms that take an id or tags, one per term: subnets,
// and an Auto Mode class's pod subnets and pod security groups.
func validateIdOrTagsTerms(field string, n int, term func(int) (id bool, tags map[string]string)) []error {
	errs := []error{checkAtMost(field, n, 30, "terms")}
	for i := range n {
		f := fmt.Sprintf("%s[%d]", field, i)
		id, tags := term(i)
		if id == (tags != nil) {
			errs = append(errs, fmt.Errorf("%s: set exactly one of id and tags", f))
		}
		errs = append(errs, checkSelectorTags(f+".tags", tags)...)
	}
	return errs
}

// validateStaticPool checks a static pool (replicas): the CRD refuses weight and limits but
// nodes on it, and Karpenter ignores its consolidation settings, which would then be set for
// nothing.
func validateStaticPool(field string, pool NodePoolSpec, rel release) []error {
	if pool.Replicas == nil {
		return nil
	}
	errs := []error{
		rel.require(field+".replicas", true, featureStaticPools),
		checkAtLeast(field+".replicas", pool.Replicas, 0),
	}
	for _, k := range sortedKeys(pool.Limits) {
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

var ownerIDPattern = regexp.MustCompile(`^[0-9]{12}$`)

// validateLaunchOptions checks the fields that shape how a class's instances launch:
// capacity reservations, placement group, network interfaces and IP prefixes, connection
// tracking, CPU options and the fleet context. Input-typed ids are checked once they resolve
// (validateInputs).
func validateLaunchOptions(field string, c NodeClassSpec, rel release) []error {
	errs := []error{rel.require(field+".context", c.Context != nil, featureContext)}
	errs = append(errs, validateCapacityReservationTerms(field+".capacityReservationSelectorTerms", c.CapacityReservationSelectorTerms, rel)...)
	if s := c.PlacementGroupSelector; s != nil {
		errs = append(errs, rel.require(field+".placementGroupSelector", true, featurePlacementGroupSelector))
		if (s.Name == nil) == (s.Id == nil) {
			errs = append(errs, fmt.Errorf("%s.placementGroupSelector: set exactly one of name and id", field))
		}
	}
	errs = append(errs, validateNetworkInterfaces(field+".networkInterfaces", c.NetworkInterfaces, rel)...)
	if c.IpPrefixCount != nil {
		errs = append(errs, rel.require(field+".ipPrefixCount", true, featureIPPrefixCount))
		errs = append(errs, checkAtLeast(field+".ipPrefixCount", c.IpPrefixCount, 0))
	}
	if t := c.ConnectionTracking; t != nil {
		f := field + ".connectionTracking"
		errs = append(errs, rel.require(f, true, featureConnectionTracking))
		if t.TcpEstablishedTimeout == nil && t.UdpStreamTimeout == nil && t.UdpTimeout == nil {
			errs = append(errs, fmt.Errorf("%s: set at least one of tcpEstablishedTimeout, udpStreamTimeout and udpTimeout", f))
		}
		errs = append(errs,
			checkRange(f+".tcpEstablishedTimeout", t.TcpEstablishedTimeout, 60, 432000),
			checkRange(f+".udpStreamTimeout", t.UdpStreamTimeout, 60, 180),
			checkRange(f+".udpTimeout", t.UdpTimeout, 30, 60))
	}
	if o := c.CpuOptions; o != nil {
		errs = append(errs, rel.require(field+".cpuOptions", true, featureCpuOptions))
		if v := o.NestedVirtualization; v != nil {
			errs = append(errs, checkEnum(field+".cpuOptions.nestedVirtualization", string(*v), enumValues[NestedVirtualization]()))
		}
	}
	return errs
}

// validateCapacityReservationTerms applies the CRD's rules per term. (The CRD checks that id
// stands alone with self.all, so it only fires when every term combines id with another
// field; Karpenter documents id as exclusive in each term, which is what is checked here.)
func validateCapacityReservationTerms(field string, terms []CapacityReservationSelectorTerm, rel release) []error {
	if len(terms) == 0 {
		return nil
	}
	errs := []error{rel.require(field, true, featureCapacityReservationTerms), checkAtMost(field, len(terms), 30, "terms")}
	for i, t := range terms {
		f := fmt.Sprintf("%s[%d]", field, i)
		tags, criteria := len(t.Tags) > 0, t.InstanceMatchCriteria != nil
		switch {
		case t.Id != nil && (tags || t.OwnerID != nil || criteria):
			errs = append(errs, fmt.Errorf("%s: id stands alone in its term (not with tags, ownerID or instanceMatchCriteria)", f))
		case t.Id == nil && !tags && !criteria:
			errs = append(errs, fmt.Errorf("%s: set id, tags or instanceMatchCriteria", f))
		}
		if t.OwnerID != nil && !ownerIDPattern.MatchString(*t.OwnerID) {
			errs = append(errs, fmt.Errorf("%s.ownerID: %q is not an AWS account id (12 digits)", f, *t.OwnerID))
		}
		if criteria {
			errs = append(errs, rel.require(f+".instanceMatchCriteria", true, featureInstanceMatchCriteria))
			errs = append(errs, checkEnum(f+".instanceMatchCriteria", string(*t.InstanceMatchCriteria), enumValues[InstanceMatchCriteria]()))
		}
		errs = append(errs, checkSelectorTags(f+".tags", t.Tags)...)
	}
	return errs
}

// validateNetworkInterfaces applies the CRD's rules: the primary interface is included, each
// networkCardIndex/deviceIndex pair is used once, and a network card has at most one
// efa-only interface.
func validateNetworkInterfaces(field string, interfaces []NetworkInterface, rel release) []error {
	if len(interfaces) == 0 {
		return nil
	}
	return append([]error{rel.require(field, true, featureNetworkInterfaces)}, networkInterfaceShapeErrors(field, interfaces)...)
}

// networkInterfaceShapeErrors are the interface rules EC2NodeClasses and Auto Mode NodeClasses
// share.
func networkInterfaceShapeErrors(field string, interfaces []NetworkInterface) []error {
	errs := []error{checkAtMost(field, len(interfaces), 150, "interfaces")}
	primary := false
	used := map[[2]int]bool{}
	efaCards := map[int]bool{}
	for i, n := range interfaces {
		f := fmt.Sprintf("%s[%d]", field, i)
		errs = append(errs,
			checkAtLeast(f+".networkCardIndex", &n.NetworkCardIndex, 0),
			checkAtLeast(f+".deviceIndex", &n.DeviceIndex, 0),
			checkEnum(f+".interfaceType", string(n.InterfaceType), enumValues[NetworkInterfaceType]()))
		pair := [2]int{n.NetworkCardIndex, n.DeviceIndex}
		if used[pair] {
			errs = append(errs, fmt.Errorf("%s: networkCardIndex %d, deviceIndex %d is used by another interface", f, n.NetworkCardIndex, n.DeviceIndex))
		}
		used[pair] = true
		if n.InterfaceType == "efa-only" {
			if efaCards[n.NetworkCardIndex] {
				errs = append(errs, fmt.Errorf("%s: network card %d already has an efa-only interface (at most one per card)", f, n.NetworkCardIndex))
			}
			efaCards[n.NetworkCardIndex] = true
		}
		primary = primary || (pair == [2]int{0, 0} && n.InterfaceType == "interface")
	}
	if !primary {
		errs = append(errs, fmt.Errorf("%s: must include the primary interface (networkCardIndex 0, deviceIndex 0, interfaceType interface)", field))
	}
	return errs
}

// checkRange checks an optional integer against the CRD's minimum and maximum.
func checkRange(field string, v *int, lo, hi int) error {
	if v != nil && (*v < lo || *v > hi) {
		return fmt.Errorf("%s: %d is not between %d and %d", field, *v, lo, hi)
	}
	return nil
}

// checkAtMost checks a list's (or map's) length against the CRD's maxItems (maxProperties).
func checkAtMost(field string, n, most int, what string) error {
	if n > most {
		return fmt.Errorf("%s: at most %d %s", field, most, what)
	}
	return nil
}

// checkAtLeast checks an optional integer against the CRD's minimum.
func checkAtLeast(field string, v *int, lo int) error {
	if v != nil && *v < lo {
		return fmt.Errorf("%s: %d is less than %d", field, *v, lo)
	}
	return nil
}

// checkAliasFamily applies the CRD's rule: with an alias, amiFamily is the alias's family or
// Custom.
func checkAliasFamily(field, amiFamily string, c NodeClassSpec) error {
	alias := c.alias()
	if alias == nil || amiFamily == "Custom" {
		return nil
	}
	family, _, _ := strings.Cut(*alias, "@")
	if want, known := aliasFamilies[family]; known && want != amiFamily {
		return fmt.Errorf("%s: %s does not match the alias %q; use %s or Custom", field, amiFamily, *alias, want)
	}
	return nil
}

// checkAmiAlias checks `<family>@<version>`. Before v1 there are no aliases: an alias for a
// family's latest AMI becomes that amiFamily, which selects its latest EKS-optimized AMI.
func checkAmiAlias(field, alias string, rel release) []error {
	if !amiAliasPattern.MatchString(alias) {
		return []error{fmt.Errorf("%s: %q is not an AMI alias <family>@<version> (e.g. al2023@latest)", field, alias)}
	}
	family, version, _ := strings.Cut(alias, "@")
	name, known := aliasFamilies[family]
	if !known || !slices.Contains(rel.amiFamilies, name) {
		var families []string
		for _, f := range sortedKeys(aliasFamilies) {
			if slices.Contains(rel.amiFamilies, aliasFamilies[f]) {
				families = append(families, f)
			}
		}
		return []error{fmt.Errorf("%s: unknown AMI alias family %q; Karpenter %s knows %s", field, family, rel.version, strings.Join(families, ", "))}
	}
	if err := errors.Join(rel.require(field, name == "Windows2025", featureWindows2025), rel.require(field, name == "AL2023", featureAL2023)); err != nil {
		return []error{err}
	}
	if strings.HasPrefix(family, "windows") && version != "latest" {
		return []error{fmt.Errorf("%s: Windows aliases only support @latest", field)}
	}
	if !rel.has(featureV1) && version != "latest" {
		return []error{rel.require(field+" (a pinned AMI version)", true, featureV1)}
	}
	return nil
}

// alphaSelectorErrors reports selector terms v1alpha1 cannot express: its selectors are one
// map of tags, or a list of ids.
func alphaSelectorErrors(field string, c NodeClassSpec) []error {
	var errs []error
	check := func(name string, ids, tagTerms, nameTerms int) {
		if nameTerms > 0 {
			errs = append(errs, fmt.Errorf("%s.%s: selecting by name needs Karpenter %s (the Provisioner era selects by tags or ids)", field, name, featureSince[featureNodeClassRole]))
		}
		if tagTerms > 1 || (tagTerms == 1 && ids > 0) {
			errs = append(errs, fmt.Errorf("%s.%s: several terms (alternatives) need Karpenter %s; the Provisioner era takes one tag map or only ids", field, name, featureSince[featureNodeClassRole]))
		}
	}
	count := func(id bool, tags map[string]string) (int, int) {
		if id {
			return 1, 0
		}
		if tags != nil {
			return 0, 1
		}
		return 0, 0
	}
	var ids, tags int
	for _, t := range c.SubnetSelectorTerms {
		i, tg := count(t.Id != nil, t.Tags)
		ids, tags = ids+i, tags+tg
	}
	check("subnetSelectorTerms", ids, tags, 0)
	ids, tags = 0, 0
	names := 0
	for _, t := range c.SecurityGroupSelectorTerms {
		i, tg := count(t.Id != nil, t.Tags)
		ids, tags = ids+i, tags+tg
		if t.Name != nil {
			names++
		}
	}
	check("securityGroupSelectorTerms", ids, tags, names)
	if len(c.AmiSelectorTerms) > 1 {
		for _, t := range c.AmiSelectorTerms {
			if t.Id == nil {
				errs = append(errs, fmt.Errorf("%s.amiSelectorTerms: several terms need Karpenter %s; the Provisioner era takes one term or only ids", field, featureSince[featureNodeClassRole]))
				break
			}
		}
	}
	return errs
}

func checkSelectorTags(field string, tags map[string]string) []error {
	errs := []error{checkAtMost(field, len(tags), 20, "tags")}
	for _, k := range sortedKeys(tags) {
		if k == "" || tags[k] == "" {
			errs = append(errs, fmt.Errorf("%s: empty tag keys and values are not allowed (use \"*\" to match any value)", field))
		}
	}
	return errs
}

func validateKubelet(field string, k *KubeletConfiguration, c NodeClassSpec, rel release) []error {
	var errs []error
	errs = append(errs, rel.require(field+".additionalSettings", len(k.AdditionalSettings) > 0, featureOpenKubelet))
	if rel.has(featureOpenKubelet) {
		family := c.amiFamily(defaultAmiAliasOf(rel))
		errs = append(errs, checkAdditionalKubeletSettings(field, k, family)...)
		errs = append(errs, checkKubeletForFamily(field, k, family)...)
	}
	for _, m := range []struct {
		name    string
		values  map[string]string
		allowed []string
	}{
		{"systemReserved", k.SystemReserved, kubeletReserved},
		{"kubeReserved", k.KubeReserved, kubeletReserved},
		{"evictionHard", k.EvictionHard, kubeletEviction},
		{"evictionSoft", k.EvictionSoft, kubeletEviction},
		{"evictionSoftGracePeriod", k.EvictionSoftGracePeriod, kubeletEviction},
	} {
		for _, key := range sortedKeys(m.values) {
			errs = append(errs, checkEnum(fmt.Sprintf("%s.%s key", field, m.name), key, m.allowed))
		}
	}
	for _, key := range sortedKeys(k.EvictionSoft) {
		if _, ok := k.EvictionSoftGracePeriod[key]; !ok {
			errs = append(errs, fmt.Errorf("%s.evictionSoftGracePeriod: missing a grace period for evictionSoft %q", field, key))
		}
	}
	for _, key := range sortedKeys(k.EvictionSoftGracePeriod) {
		if _, ok := k.EvictionSoft[key]; !ok {
			errs = append(errs, fmt.Errorf("%s.evictionSoft: missing a threshold for evictionSoftGracePeriod %q", field, key))
		}
	}
	if k.ImageGCHighThresholdPercent != nil && k.ImageGCLowThresholdPercent != nil && *k.ImageGCHighThresholdPercent <= *k.ImageGCLowThresholdPercent {
		errs = append(errs, fmt.Errorf("%s: imageGCHighThresholdPercent must be greater than imageGCLowThresholdPercent", field))
	}
	return errs
}

// validateChartValues checks the user's chart values the component knows about: values the
// release's chart does not read yet (Helm would ignore them), and the combinations the chart
// refuses to render, so both fail at preview naming the values instead of inside Helm.
func validateChartValues(values map[string]any, rel release) []error {
	var errs []error
	for _, s := range chartSettingsSince {
		if _, set := lookupValue(values, s.path); set && rel.version.LT(s.since) {
			errs = append(errs, fmt.Errorf("values.%s: the karpenter chart of %s does not read it, so Helm would ignore it (first in %s; version is %s)",
				s.path, rel.version, s.since, rel.version))
		}
	}
	if v, set := lookupValue(values, "settings.ignoreDRARequests"); set && v == false && rel.version.LT(ignoreDRARequestsFalseSince) {
		errs = append(errs, fmt.Errorf("values.settings.ignoreDRARequests: the karpenter chart of %s drops an explicit false, so the controller would keep ignoring DRA requests (honoured from %s; version is %s)",
			rel.version, ignoreDRARequestsFalseSince, rel.version))
	}
	if v, _ := lookupValue(values, "settings.enableDRA"); helmTrue(v) {
		for _, other := range []string{"settings.ignoreDRARequests", "settings.awsFeatureGates.draNVIDIAGPU", "settings.awsFeatureGates.draEFA"} {
			if _, set := lookupValue(values, other); set {
				errs = append(errs, fmt.Errorf("values.settings.enableDRA: mutually exclusive with values.%s (enableDRA sets it; the chart refuses to render both): unset one", other))
			}
		}
	}
	legacy, _ := lookupValue(values, "settings.legacyNodeRepair")
	terminateFirst, _ := lookupValue(values, "settings.featureGates.terminateFirstRepair")
	if helmTrue(legacy) && helmTrue(terminateFirst) {
		errs = append(errs, errors.New("values.settings.legacyNodeRepair: cannot be combined with values.settings.featureGates.terminateFirstRepair (the legacy node repair controller does not support terminate-first repair; the chart refuses to render both)"))
	}
	if v, set := lookupValue(values, "settings.securityGroupRefreshInterval"); set {
		s, _ := v.(string)
		if d, err := time.ParseDuration(s); err != nil || d < time.Minute {
			errs = append(errs, fmt.Errorf("values.settings.securityGroupRefreshInterval: %q is not a duration of at least 1m, like 5m (Karpenter refuses shorter intervals)", fmt.Sprint(v)))
		}
	}
	return errs
}

// lookupValue reads a dotted path of nested values; a key set to null counts as unset, as it
// does for Helm (and deepMerge removes it).
func lookupValue(values map[string]any, path string) (any, bool) {
	var cur any = values
	for _, key := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[key]; !ok || cur == nil {
			return nil, false
		}
	}
	return cur, true
}

// helmTrue is Go template truthiness, which the chart's `if` uses: false, 0, "" and empty
// collections are false.
func helmTrue(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case float64:
		return x != 0
	case int:
		return x != 0
	case map[string]any:
		return len(x) > 0
	case []any:
		return len(x) > 0
	}
	return true
}
