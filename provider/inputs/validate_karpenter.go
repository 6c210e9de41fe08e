package inputs

// The component's own plain inputs — everything but the pools and classes, which
// ValidateProvisioning checks once the plan has completed the lists — against the release, and
// against each other. The plan resolves the defaults and runs these checks in a fixed order
// (plan/validate.go), passing the values it resolved to those that compare one.

import (
	"fmt"
	"maps"
	"regexp"
	"slices"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"
)

// ValidateNameAndCluster checks the component's name and what the program says of the cluster:
// its authentication mode and Kubernetes version, for the release rel.
func ValidateNameAndCluster(name string, args KarpenterArgs, rel catalog.Release) []error {
	errs := []error{checkComponentName(name)}
	if args.ClusterAuthenticationMode != nil {
		errs = append(errs, CheckEnum(field.NewPath("clusterAuthenticationMode"), string(*args.ClusterAuthenticationMode), EnumValues[AuthenticationMode]()))
	}
	if args.KubernetesVersion != nil && !rel.IsAutoMode() {
		errs = append(errs, catalog.CheckKubernetesVersion(*args.KubernetesVersion, rel))
	}
	return errs
}

// ValidateIAM checks the extra permissions and the instance profile: extras need a role the
// component creates, and before node classes had a role, nodes launch with the instance profile
// the component creates (createsInstanceProfile, as the plan resolved createInstanceProfile).
func ValidateIAM(args KarpenterArgs, rel catalog.Release, createsInstanceProfile bool) []error {
	var errs []error
	autoMode := rel.IsAutoMode()
	if args.ControllerRoleArn != nil && !autoMode {
		if len(args.ControllerPolicyStatements) > 0 {
			errs = append(errs, field.Invalid(field.NewPath("controllerPolicyStatements"), "cannot be used with controllerRoleArn (the component creates no controller role to attach them to)"))
		}
		if len(args.ControllerPolicyArns) > 0 {
			errs = append(errs, field.Invalid(field.NewPath("controllerPolicyArns"), "cannot be used with controllerRoleArn (the component creates no controller role to attach them to)"))
		}
	}
	if args.NodeRoleArn != nil && len(args.NodeRoleAdditionalPolicyArns) > 0 {
		errs = append(errs, field.Invalid(field.NewPath("nodeRoleAdditionalPolicyArns"), "cannot be used with nodeRoleArn (the component creates no node role to attach them to)"))
	}
	if !autoMode && !rel.Has(catalog.FeatureNodeClassRole) && args.NodeRoleArn == nil && !createsInstanceProfile {
		errs = append(errs, field.Invalidf(field.NewPath("createInstanceProfile"), "Karpenter %s launches nodes with the instance profile in settings.aws.defaultInstanceProfile, so the component must create it (Karpenter manages instance profiles itself from %s)",
			rel.Version, catalog.FeatureSince[catalog.FeatureNodeClassRole]))
	}
	for i, st := range args.ControllerPolicyStatements {
		errs = append(errs, ValidatePolicyStatement(field.NewPath("controllerPolicyStatements").Index(i), st))
	}
	for _, key := range slices.Sorted(maps.Keys(args.ControllerPolicyArns)) {
		errs = append(errs, CheckKey(field.NewPath("controllerPolicyArns"), key))
	}
	for _, key := range slices.Sorted(maps.Keys(args.NodeRoleAdditionalPolicyArns)) {
		errs = append(errs, CheckKey(field.NewPath("nodeRoleAdditionalPolicyArns"), key))
	}
	return errs
}

// CheckImageRepository: controllerImageRepository, which the chart writes into the Deployment
// unquoted, so anything but an image repository breaks the template.
func CheckImageRepository(repo *string) error {
	if repo == nil || imageRepositoryPattern.MatchString(*repo) {
		return nil
	}
	return field.Invalidf(field.NewPath("controllerImageRepository"), "%q is not an image repository (an optional registry host and port, and a path of lowercase letters, digits, '.', '_' and '-', e.g. 123456789012.dkr.ecr.us-west-2.amazonaws.com/karpenter/controller)", *repo)
}

// CheckReleaseTimeout: releaseTimeout is a number of seconds.
func CheckReleaseTimeout(timeout *int) error {
	if timeout == nil || *timeout >= 1 {
		return nil
	}
	return field.Invalidf(field.NewPath("releaseTimeout"), "%d is not a number of seconds a release can wait (at least 1)", *timeout)
}

// ValidateAutoModeVersion refuses a version for Auto Mode, where EKS runs and upgrades
// Karpenter.
func ValidateAutoModeVersion(version *string, allowUnverified *bool) []error {
	var errs []error
	if version != nil {
		errs = append(errs, field.Invalid(field.NewPath("version"), "not used with mode autoMode (EKS runs and upgrades Karpenter; Auto Mode objects have one API)"))
	}
	if allowUnverified != nil {
		errs = append(errs, field.Invalid(field.NewPath("allowUnverifiedVersion"), "not used with mode autoMode (there is no Karpenter version to choose)"))
	}
	return errs
}

// ValidateIdentity: the controller's identity (controllerIdentity as the plan resolved it), and
// what it needs; createsAgent is createPodIdentityAgent resolved.
func ValidateIdentity(args KarpenterArgs, identity ControllerIdentity, createsAgent bool) []error {
	if err := CheckEnum(field.NewPath("controllerIdentity"), string(identity), EnumValues[ControllerIdentity]()); err != nil {
		return []error{err}
	}
	var errs []error
	if args.ControllerRoleArn == nil && identity != ControllerIdentityPodIdentity && args.OidcProviderArn == nil {
		errs = append(errs, field.Invalidf(field.NewPath("oidcProviderArn"), "required to create the controller role with controllerIdentity %s (IRSA trusts the cluster's OIDC provider); or set controllerRoleArn, or use controllerIdentity podIdentity", identity))
	}
	if createsAgent && identity == ControllerIdentityIRSA {
		errs = append(errs, field.Invalid(field.NewPath("createPodIdentityAgent"), "only used with controllerIdentity podIdentity or both"))
	}
	return errs
}

// ValidateNodeAccess: a nodeAccess the clusterAuthenticationMode input refuses (the defaults
// follow the mode; a nodeAccess the cluster's own mode refuses is a cluster finding, with the
// cluster's name).
func ValidateNodeAccess(args KarpenterArgs) []error {
	if args.NodeAccess == nil {
		return nil
	}
	access := *args.NodeAccess
	if err := CheckEnum(field.NewPath("nodeAccess"), string(access), EnumValues[NodeAccess]()); err != nil {
		return []error{err}
	}
	path := field.NewPath("nodeAccess")
	switch mode := Deref(args.ClusterAuthenticationMode, ""); {
	case access == NodeAccessEntry && mode == AuthenticationModeConfigMap:
		return []error{field.Invalid(path, "accessEntry needs a cluster in API or API_AND_CONFIG_MAP mode; clusterAuthenticationMode is CONFIG_MAP (use awsAuth)")}
	case access == NodeAccessAwsAuth && mode == AuthenticationModeApi:
		return []error{field.Invalid(path, "awsAuth needs a cluster that reads aws-auth (CONFIG_MAP or API_AND_CONFIG_MAP); clusterAuthenticationMode is API (use accessEntry)")}
	}
	return nil
}

// selfManagedInputs are the component inputs that configure the Karpenter install itself. In
// Auto Mode EKS runs Karpenter, so each is refused by name rather than ignored.
var selfManagedInputs = []struct {
	field string
	set   func(KarpenterArgs) bool
	why   string
}{
	{"kubernetesVersion", func(a KarpenterArgs) bool { return a.KubernetesVersion != nil }, "it checks the compatibility matrix of self-managed Karpenter"},
	{"clusterEndpoint", func(a KarpenterArgs) bool { return a.ClusterEndpoint != nil }, "it configures the controller"},
	{"oidcProviderArn", func(a KarpenterArgs) bool { return a.OidcProviderArn != nil }, "it is for the controller role's IRSA trust"},
	{"namespace", func(a KarpenterArgs) bool { return a.Namespace != nil }, "there is no release"},
	{"serviceAccountName", func(a KarpenterArgs) bool { return a.ServiceAccountName != nil }, "there is no controller service account"},
	{"controllerIdentity", func(a KarpenterArgs) bool { return a.ControllerIdentity != nil }, "EKS gives its controller credentials"},
	{"createPodIdentityAgent", func(a KarpenterArgs) bool { return a.CreatePodIdentityAgent != nil }, "it is for the controller's Pod Identity"},
	{"controllerRoleArn", func(a KarpenterArgs) bool { return a.ControllerRoleArn != nil }, "EKS's controller uses the cluster role"},
	{"controllerPolicyStatements", func(a KarpenterArgs) bool { return len(a.ControllerPolicyStatements) > 0 }, "EKS's controller uses the cluster role; give it extra permissions there (e.g. for NodeClass tags)"},
	{"controllerPolicyArns", func(a KarpenterArgs) bool { return len(a.ControllerPolicyArns) > 0 }, "EKS's controller uses the cluster role"},
	{"interruptionHandling", func(a KarpenterArgs) bool { return a.InterruptionHandling != nil }, "EKS handles interruptions itself"},
	{"chartRepository", func(a KarpenterArgs) bool { return a.ChartRepository != nil }, "nothing is installed with Helm"},
	{"repositoryUsername", func(a KarpenterArgs) bool { return a.RepositoryUsername != nil }, "nothing is installed with Helm"},
	{"repositoryPassword", func(a KarpenterArgs) bool { return a.RepositoryPassword != nil }, "nothing is installed with Helm"},
	{"controllerImageRepository", func(a KarpenterArgs) bool { return a.ControllerImageRepository != nil }, "EKS runs the controller"},
	{"installCrds", func(a KarpenterArgs) bool { return a.InstallCrds != nil }, "EKS owns nodepools.karpenter.sh and nodeclaims.karpenter.sh; installing or uninstalling a CRD chart could delete every NodePool"},
	{"values", func(a KarpenterArgs) bool { return a.Values != nil }, "nothing is installed with Helm"},
	{"releaseTimeout", func(a KarpenterArgs) bool { return a.ReleaseTimeout != nil }, "nothing is installed with Helm"},
	{"retainCrdsOnDelete", func(a KarpenterArgs) bool { return a.RetainCrdsOnDelete != nil }, "EKS owns the CRDs"},
	{"adopt", func(a KarpenterArgs) bool { return a.Adopt != nil }, "EKS runs Karpenter: there is no install of the component's to take over (docs/auto-mode.md, Migrating to EKS Auto Mode)"},
}

// imageRepositoryPattern is an image repository as OCI references name one: an optional registry
// host (with an optional port) and slash-separated lowercase path components.
var imageRepositoryPattern = regexp.MustCompile(`^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?(?::[0-9]+)?/)?[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$`)

// ValidateAutoModeInputs: every self-managed input that is set, and node access Auto Mode
// cannot use (its nodes join only through an EC2 access entry); access is nodeAccess as the
// plan resolved it.
func ValidateAutoModeInputs(args KarpenterArgs, access NodeAccess) []error {
	var errs []error
	for _, in := range selfManagedInputs {
		if in.set(args) {
			errs = append(errs, field.Invalidf(field.NewPath(in.field), "not used with mode autoMode (%s)", in.why))
		}
	}
	if err := CheckEnum(field.NewPath("nodeAccess"), string(access), EnumValues[NodeAccess]()); err != nil {
		errs = append(errs, err)
	} else if access == NodeAccessAwsAuth {
		errs = append(errs, field.Invalid(field.NewPath("nodeAccess"), "awsAuth does not admit Auto Mode nodes; use accessEntry (an EC2 access entry with AmazonEKSAutoNodePolicy), or none when EKS already has one for the role"))
	}
	if mode := args.ClusterAuthenticationMode; mode != nil && *mode == AuthenticationModeConfigMap {
		errs = append(errs, field.Invalid(field.NewPath("clusterAuthenticationMode"), "EKS Auto Mode needs access entries (API or API_AND_CONFIG_MAP); a CONFIG_MAP cluster cannot run it"))
	}
	return errs
}

// checkComponentName: the component's name goes into the AWS names of its children
// (<name><suffix>-<7 hex>), which AWS limits.
func checkComponentName(name string) error {
	path := field.NewPath("name")
	for _, l := range catalog.PhysicalNameLimits {
		if n := len(name) + len(l.Suffix) + catalog.PhysicalNameHash; n > l.Limit {
			return field.Invalidf(path, "the component name %q is too long: the %s it names (%q + \"%s-<7 hex>\") would be %d characters, over AWS's limit of %d; use at most %d characters",
				name, l.What, name, l.Suffix, n, l.Limit, l.Limit-len(l.Suffix)-catalog.PhysicalNameHash)
		}
	}
	if !ComponentNamePattern.MatchString(name) {
		return field.Invalidf(path, "%q is not usable in AWS resource names (letters, digits, '-' and '_', starting with a letter or digit)", name)
	}
	return nil
}

// ValidateInstanceProfiles: before Karpenter has node classes with a role, nodes launch with an
// instance profile — the component's (settings.aws.defaultInstanceProfile) or a class's own.
// With nodeRoleArn the component creates none, so each class must name one; userClasses is how
// many of classes the program wrote (the rest are the component's default class).
func ValidateInstanceProfiles(classes []NodeClassSpec, userClasses int, nodeRoleArn bool, rel catalog.Release) []error {
	if rel.IsAutoMode() || rel.Has(catalog.FeatureNodeClassRole) || !nodeRoleArn {
		return nil
	}
	var errs []error
	for i, c := range classes {
		if c.InstanceProfile != nil {
			continue
		}
		path := field.NewPath("nodeClasses").Index(i).Child("instanceProfile")
		why := fmt.Sprintf("with nodeRoleArn before Karpenter %s: Karpenter %s launches nodes with an instance profile, and the component creates none for a role it does not own (nor settings.aws.defaultInstanceProfile)",
			catalog.FeatureSince[catalog.FeatureNodeClassRole], rel.Version)
		err := field.Required(path, why).WithHint("name the role's instance profile here")
		if i >= userClasses {
			err.Of = "the default class"
			err.Hint = "declare nodeClasses with the role's instanceProfile"
		}
		errs = append(errs, err)
	}
	return errs
}
