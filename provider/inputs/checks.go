package inputs

// Checks on the inputs, each naming its field: the plain inputs (called while resolving the
// install plan) and the Input-typed values once they resolve (the children package's gate, which
// every child waits on, runs these checks on the resolved values).

import (
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// checkAutoModeRole refuses a role ARN where Auto Mode wants the role's name.
func checkAutoModeRole(path *field.Path, v string) error {
	if strings.HasPrefix(v, "arn:") {
		return field.Invalidf(path, "%q is an ARN; an EKS Auto Mode NodeClass takes the role's name (%s)", v, NameFromArn(v))
	}
	if v == "" || len(v) > 64 {
		return field.Invalidf(path, "%q is not an IAM role name (1-64 characters)", v)
	}
	return nil
}

// CheckDistinctPrincipals fails when two access-entry principals (the inputs at paths) resolve
// to the same role.
func CheckDistinctPrincipals(paths []*field.Path, arns []any) []error {
	var errs []error
	seen := map[string]*field.Path{}
	for i, v := range arns {
		arn, _ := v.(string)
		if first, dup := seen[arn]; dup {
			errs = append(errs, field.Invalidf(paths[i], "%s is also %s's role; the component creates one EC2 access entry per node class with its own role, and EKS allows one per role: leave role unset to use the component's node role, or set nodeAccess none and create the entries yourself", arn, first))
			continue
		}
		seen[arn] = paths[i]
	}
	return errs
}

// NameFromArn is the last path segment of an IAM ARN: the role name of a role ARN.
func NameFromArn(arn string) string {
	return arn[strings.LastIndex(arn, "/")+1:]
}

// reservedClassTag: Karpenter (or EKS Auto Mode) sets this tag on what it launches and refuses it
// in a node class's tags.
func reservedClassTag(rel catalog.Release, key string) bool {
	reserved := reservedTagKeys
	if rel.IsAutoMode() {
		reserved = autoModeReservedTags
	}
	return key == "" || slices.Contains(reserved, key) || strings.HasPrefix(key, "kubernetes.io/cluster")
}

// CheckComponentTags applies AWS's tag rules to the component's tags, which go on every AWS
// resource it creates. They go onto every node class it creates as well, so a key a node class
// may not carry fails here, before anything is created, and so does a class whose tags with
// the component's leave no room for Karpenter's.
func CheckComponentTags(tags map[string]string, classes []NodeClassSpec, rel catalog.Release) []error {
	path := field.NewPath("tags")
	errs := CheckAWSTags(path, tags, catalog.MaxTagsPerResource)
	// The access entries the component makes carry its owner tag besides these.
	if _, ok := tags[catalog.AccessEntryOwnerTag]; ok {
		errs = append(errs, field.Invalidf(path, "tag %q is the component's own: it marks the access entries the component makes, to tell them from another owner's", catalog.AccessEntryOwnerTag))
	} else if len(tags) == catalog.MaxTagsPerResource {
		errs = append(errs, field.Invalidf(path, "%d tags; at most %d (AWS allows %d per resource, and the component adds %s to the access entries it makes for roles of yours)", len(tags), catalog.MaxTagsPerResource-1, catalog.MaxTagsPerResource, catalog.AccessEntryOwnerTag))
	}
	if len(classes) == 0 {
		return errs
	}
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		if reservedClassTag(rel, k) {
			errs = append(errs, field.Invalidf(path, "tag %q is reserved for Karpenter on what it launches, and the component puts its tags on every node class", k).
				WithHint("set it on the resources that need it instead"))
		}
	}
	for i, c := range classes {
		merged := maps.Clone(tags)
		maps.Copy(merged, c.Tags)
		if n := len(merged); n > ClassTagLimit && len(c.Tags) <= ClassTagLimit {
			errs = append(errs, field.Invalidf(field.NewPath("nodeClasses").Index(i).Child("tags"), "with the component's tags, %d tags go on what the class launches; at most %d (AWS allows %d per resource, and Karpenter adds %d of its own)",
				n, ClassTagLimit, catalog.MaxTagsPerResource, catalog.LaunchTags))
		}
	}
	return errs
}

// InputCheck validates one Input-typed string (the input at Field) once it resolves.
type InputCheck struct {
	Field *field.Path
	Value pulumi.StringPtrInput
	Check func(path *field.Path, value string) error
}

// ClassInputChecks are the checks of a node class's Input-typed ids and names.
func ClassInputChecks(path *field.Path, c NodeClassSpec, rel catalog.Release) []InputCheck {
	var checks []InputCheck
	if rel.IsAutoMode() {
		checks = append(checks, InputCheck{Field: path.Child("role"), Value: c.Role, Check: checkAutoModeRole})
	}
	for j, t := range c.PodSubnetSelectorTerms {
		checks = append(checks, InputCheck{Field: path.Child("podSubnetSelectorTerms").Index(j).Child("id"), Value: t.Id, Check: CheckID("subnet-")})
	}
	for j, t := range c.PodSecurityGroupSelectorTerms {
		checks = append(checks, InputCheck{Field: path.Child("podSecurityGroupSelectorTerms").Index(j).Child("id"), Value: t.Id, Check: CheckID("sg-")})
	}
	for j, t := range c.SubnetSelectorTerms {
		checks = append(checks, InputCheck{Field: path.Child("subnetSelectorTerms").Index(j).Child("id"), Value: t.Id, Check: CheckID("subnet-")})
	}
	for j, t := range c.SecurityGroupSelectorTerms {
		checks = append(checks, InputCheck{Field: path.Child("securityGroupSelectorTerms").Index(j).Child("id"), Value: t.Id, Check: CheckID("sg-")})
	}
	for j, t := range c.CapacityReservationSelectorTerms {
		checks = append(checks, InputCheck{Field: path.Child("capacityReservationSelectorTerms").Index(j).Child("id"), Value: t.Id, Check: CheckID("cr-")})
	}
	if s := c.PlacementGroupSelector; s != nil {
		checks = append(checks,
			InputCheck{Field: path.Child("placementGroupSelector", "id"), Value: s.Id, Check: CheckID("pg-")},
			InputCheck{Field: path.Child("placementGroupSelector", "name"), Value: s.Name, Check: checkNotEmpty})
	}
	return checks
}

// EKS cluster names: 1-100 characters, alphanumerics, '-' and '_', starting alphanumeric.
var clusterNamePattern = regexp.MustCompile(`^[0-9A-Za-z][A-Za-z0-9\-_]{0,99}$`)

func CheckClusterName(path *field.Path, v string) error {
	if !clusterNamePattern.MatchString(v) {
		return field.Invalidf(path, "%q is not a valid EKS cluster name (1-100 characters: letters, digits, '-' and '_', starting with a letter or digit)", v)
	}
	return nil
}

var idPattern = regexp.MustCompile(`^[a-z]+-[0-9a-z]+$`)

// CheckID checks an EC2 id (subnet-..., sg-...).
func CheckID(prefix string) func(path *field.Path, v string) error {
	return func(path *field.Path, v string) error {
		if !strings.HasPrefix(v, prefix) || !idPattern.MatchString(v) {
			return field.Invalidf(path, "%q is not an id of the form %s<hex>", v, prefix)
		}
		return nil
	}
}

func checkNotEmpty(path *field.Path, v string) error {
	if v == "" {
		return field.Invalid(path, "must not be empty")
	}
	return nil
}

func CheckEndpoint(path *field.Path, v string) error {
	u, err := url.Parse(v)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return field.Invalidf(path, "%q is not an https URL (the cluster's API server endpoint, e.g. https://ABCDEF.gr7.us-west-2.eks.amazonaws.com)", v)
	}
	return nil
}

// IAM ARNs: arn:<partition>:iam::<12-digit account>:<resource>.
var iamArnPattern = regexp.MustCompile(`^arn:aws(-cn|-us-gov|-iso|-iso-b|-iso-e|-iso-f|-eusc)?:iam::(\d{12}|aws):(.+)$`)

func CheckArn(resourcePrefix string) func(path *field.Path, v string) error {
	return func(path *field.Path, v string) error {
		m := iamArnPattern.FindStringSubmatch(v)
		if m == nil || !strings.HasPrefix(m[3], resourcePrefix) || len(m[3]) == len(resourcePrefix) {
			return field.Invalidf(path, "%q is not an IAM ARN of the form arn:<partition>:iam::<account>:%s<name>", v, resourcePrefix)
		}
		return nil
	}
}

func ValidateChartRepository(repo string) error {
	path := field.NewPath("chartRepository")
	if strings.TrimSpace(repo) == "" {
		return field.Invalid(path, "must not be empty (an oci:// registry, an https:// chart repository or a local directory)")
	}
	if strings.HasPrefix(repo, "oci://") || strings.HasPrefix(repo, "https://") || strings.HasPrefix(repo, "http://") {
		if u, err := url.Parse(repo); err != nil || u.Host == "" {
			return field.Invalidf(path, "%q is not a valid repository URL", repo)
		}
	}
	return nil
}

// CheckOCICredentials refuses repository credentials for an OCI chart repository: the kubernetes
// provider's Release sends repositoryOpts.username/password to HTTP(S) chart repositories only;
// for an OCI registry its Helm reads credentials from the registry config that `helm registry
// login` writes (pulumi/pulumi-kubernetes#1914), so they would be dropped and the pull refused.
func CheckOCICredentials(repo string, args KarpenterArgs) []error {
	if !strings.HasPrefix(repo, "oci://") {
		return nil
	}
	host := strings.TrimPrefix(repo, "oci://")
	if i := strings.Index(host, "/"); i >= 0 {
		host = host[:i]
	}
	var errs []error
	for _, in := range []struct {
		path *field.Path
		set  bool
	}{
		{field.NewPath("repositoryUsername"), args.RepositoryUsername != nil},
		{field.NewPath("repositoryPassword"), args.RepositoryPassword != nil},
	} {
		if in.set {
			errs = append(errs, field.Invalid(in.path, "the kubernetes provider does not send credentials to an OCI registry (pulumi/pulumi-kubernetes#1914)").
				WithHint(fmt.Sprintf("run `helm registry login %s` where `pulumi up` runs (for ECR: `aws ecr get-login-password | helm registry login --username AWS --password-stdin %s`), "+
					"or set the kubernetes provider's helmReleaseSettings.registryConfigPath, and leave %s unset", host, host, in.path)))
		}
	}
	return errs
}

var (
	dnsLabelPattern     = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	dnsSubdomainPattern = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	mapKeyPattern       = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9\-_.]*$`)
)

func CheckDNSLabel(path *field.Path, v string) error {
	if len(v) > 63 || !dnsLabelPattern.MatchString(v) {
		return field.Invalidf(path, "%q is not a valid name (lowercase letters, digits and '-', at most 63 characters, starting and ending with a letter or digit)", v)
	}
	return nil
}

func CheckDNSSubdomain(path *field.Path, v string) error {
	if len(v) > 253 || !dnsSubdomainPattern.MatchString(v) {
		return field.Invalidf(path, "%q is not a valid Kubernetes name (lowercase letters, digits, '-' and '.', at most 253 characters)", v)
	}
	return nil
}

// CheckKey validates a key of the map at path that names a child resource.
func CheckKey(path *field.Path, key string) error {
	if !mapKeyPattern.MatchString(key) || len(key) > 40 {
		return field.Invalidf(path, "key %q must be 1-40 letters, digits, '-', '_' or '.' (it names a Pulumi child resource)", key)
	}
	return nil
}

func CheckEnum(path *field.Path, v string, allowed []string) error {
	if !slices.Contains(allowed, v) {
		return field.NotSupported(path, v, allowed)
	}
	return nil
}

var (
	sidPattern           = regexp.MustCompile(`^[A-Za-z0-9]*$`)
	iamActionPattern     = regexp.MustCompile(`^[a-z0-9-]+:[A-Za-z0-9*?]+$`)
	ComponentNamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9\-_]*$`)
)

func ValidatePolicyStatement(path *field.Path, st PolicyStatement) error {
	var errs []error
	if st.Sid != nil && !sidPattern.MatchString(*st.Sid) {
		errs = append(errs, field.Invalidf(path.Child("sid"), "%q may contain only letters and digits", *st.Sid))
	}
	if st.Effect != nil {
		errs = append(errs, CheckEnum(path.Child("effect"), *st.Effect, []string{"Allow", "Deny"}))
	}
	if (len(st.Actions) == 0) == (len(st.NotActions) == 0) {
		errs = append(errs, field.Invalid(path, "set exactly one of actions and notActions"))
	}
	if (st.Resources == nil) == (st.NotResources == nil) {
		errs = append(errs, field.Invalid(path, "set exactly one of resources and notResources"))
	}
	for _, actions := range []struct {
		name string
		list []string
	}{{"actions", st.Actions}, {"notActions", st.NotActions}} {
		for i, a := range actions.list {
			if a != "*" && !iamActionPattern.MatchString(a) {
				errs = append(errs, field.Invalidf(path.Child(actions.name).Index(i), "%q is not an IAM action (service:Action, wildcards allowed)", a))
			}
		}
	}
	for i, c := range st.Conditions {
		if c.Test == "" || c.Variable == "" || len(c.Values) == 0 {
			errs = append(errs, field.Invalid(path.Child("conditions").Index(i), "test, variable and at least one value are required"))
		}
	}
	return field.Join(errs...)
}
