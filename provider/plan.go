package provider

// The install plan: the component's plain inputs resolved — defaults applied, the release
// looked up, the provisioning lists completed. Resolving a plan validates every plain input
// (validate.go holds the checks; they never call back into plan resolution).

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

const (
	defaultServiceAccount   = "karpenter"
	defaultChartRepository  = "oci://public.ecr.aws/karpenter"
	defaultNodeClassName    = "default" // and the default pool's name
	discoveryTag            = "karpenter.sh/discovery"
	defaultAmiAlias         = "al2023@latest"
	defaultExpireAfter      = "720h"
	defaultConsolidation    = "WhenEmptyOrUnderutilized"
	defaultConsolidateAfter = "1m"
	defaultPoolCPULimit     = "1000"
)

// Child-name suffixes of the children whose AWS names have a length limit.
const (
	controllerRoleSuffix = "-controller"
	nodeRoleSuffix       = "-node"
	queueSuffix          = "-interruption"
)

// physicalNameLimits are the AWS name limits of the children the component names, by the
// longest suffix used for that kind. physicalName adds "-" and 7 hex characters.
var physicalNameLimits = []struct {
	what   string
	suffix string
	limit  int
}{
	{"IAM role", controllerRoleSuffix, 64},
	{"EventBridge rule", "-capacity-reservation", 64},
	{"SQS queue", queueSuffix, 80},
	{"IAM policy", "-controller-resource-discovery", 128},
}

// installPlan is the component's plain inputs resolved: defaults applied, versions looked
// up, provisioning lists completed. Building it validates every plain input.
type installPlan struct {
	name    string
	release release

	namespace, serviceAccount string
	chartRepository           string
	// releaseTimeout: seconds the Helm releases wait for their resources (0: the provider's default).
	releaseTimeout  int
	defaultAmiAlias string

	// installCrds: a karpenter-crd release; chartCrds: the controller chart installs the CRDs
	// from its crds/ directory (the Provisioner era, which has no CRD chart).
	installCrds, chartCrds bool
	// retainCrds: the CRD release is kept when the component is deleted.
	retainCrds                          bool
	interruption, createInstanceProfile bool
	createControllerIAM, createNodeRole bool
	spotServiceLinkedRole               bool

	// Controller identity: trust the OIDC provider (IRSA) and/or EKS Pod Identity.
	trustIRSA, podIdentity, createPodIdentityAgent bool

	// nodeAccess is how the node role joins the cluster; windowsNodes: a node class uses a
	// Windows AMI with the component's node role.
	nodeAccess   NodeAccess
	windowsNodes bool

	pools   []NodePoolSpec
	classes []NodeClassSpec
	// userPools are the pools the user gave (pools may add the default one).
	userPools []NodePoolSpec

	// warnings are said on the component at every preview: valid inputs that need something
	// outside the component.
	warnings []string
}

// newInstallPlan validates the plain inputs and resolves defaults. All problems are
// reported together, each naming its field.
func newInstallPlan(name string, args KarpenterArgs) (*installPlan, error) {
	if args.ClusterName == nil {
		return nil, errors.New("clusterName: required (the name of the EKS cluster)")
	}
	rel, err := releaseForMode(args.Mode, args.Version, args.AllowUnverifiedVersion)
	if err != nil {
		return nil, err // everything else depends on the version
	}
	var errs []error
	crds := deref(args.InstallCrds, true)
	p := &installPlan{
		name:                name,
		release:             rel,
		namespace:           deref(args.Namespace, rel.defaultNamespace),
		serviceAccount:      deref(args.ServiceAccountName, defaultServiceAccount),
		chartRepository:     deref(args.ChartRepository, defaultChartRepository),
		defaultAmiAlias:     defaultAmiAliasOf(rel),
		installCrds:         crds && rel.crdChart,
		chartCrds:           crds && !rel.crdChart,
		interruption:        deref(args.InterruptionHandling, true),
		createControllerIAM: args.ControllerRoleArn == nil,
		createNodeRole:      args.NodeRoleArn == nil,
	}
	p.createInstanceProfile = p.createNodeRole && deref(args.CreateInstanceProfile, true)
	p.retainCrds = deref(args.RetainCrdsOnDelete, false)
	if p.retainCrds && !p.installCrds && rel.autoMode == nil {
		errs = append(errs, fmt.Errorf("retainCrdsOnDelete: only for the karpenter-crd release, which this install does not have (installCrds false, or Karpenter %s, whose chart installs CRDs that Helm never deletes)", rel.version))
	}
	p.spotServiceLinkedRole = deref(args.CreateSpotServiceLinkedRole, false)
	if rel.autoMode != nil {
		errs = append(errs, p.resolveAutoMode(args)...)
	} else {
		errs = append(errs, p.resolveIdentity(args)...)
		errs = append(errs, p.resolveNodeAccess(args)...)
		errs = append(errs, checkDNSLabel("namespace", p.namespace))
		errs = append(errs, checkDNSSubdomain("serviceAccountName", p.serviceAccount))
		errs = append(errs, validateChartRepository(p.chartRepository))
		errs = append(errs, checkOCICredentials(p.chartRepository, args)...)
		p.releaseTimeout = deref(args.ReleaseTimeout, 0)
		if args.ReleaseTimeout != nil && *args.ReleaseTimeout < 1 {
			errs = append(errs, fmt.Errorf("releaseTimeout: %d is not a number of seconds a release can wait (at least 1)", *args.ReleaseTimeout))
		}
	}

	errs = append(errs, validateComponentName(name))
	if args.ClusterAuthenticationMode != nil {
		errs = append(errs, checkEnum("clusterAuthenticationMode", string(*args.ClusterAuthenticationMode), enumValues[AuthenticationMode]()))
	}
	if args.KubernetesVersion != nil && rel.autoMode == nil {
		errs = append(errs, checkKubernetesVersion(*args.KubernetesVersion, rel))
	}

	if !p.createControllerIAM {
		if len(args.ControllerPolicyStatements) > 0 {
			errs = append(errs, errors.New("controllerPolicyStatements: cannot be used with controllerRoleArn (the component creates no controller role to attach them to)"))
		}
		if len(args.ControllerPolicyArns) > 0 {
			errs = append(errs, errors.New("controllerPolicyArns: cannot be used with controllerRoleArn (the component creates no controller role to attach them to)"))
		}
	}
	if !p.createNodeRole && len(args.NodeRoleAdditionalPolicyArns) > 0 {
		errs = append(errs, errors.New("nodeRoleAdditionalPolicyArns: cannot be used with nodeRoleArn (the component creates no node role to attach them to)"))
	}
	if rel.autoMode == nil && !rel.has(featureNodeClassRole) && p.createNodeRole && !p.createInstanceProfile {
		errs = append(errs, fmt.Errorf("createInstanceProfile: Karpenter %s launches nodes with the instance profile in settings.aws.defaultInstanceProfile, so the component must create it (Karpenter manages instance profiles itself from %s)",
			rel.version, featureSince[featureNodeClassRole]))
	}
	for i, st := range args.ControllerPolicyStatements {
		errs = append(errs, validatePolicyStatement(fmt.Sprintf("controllerPolicyStatements[%d]", i), st))
	}
	for _, key := range sortedKeys(args.ControllerPolicyArns) {
		errs = append(errs, checkKey("controllerPolicyArns", key))
	}
	for _, key := range sortedKeys(args.NodeRoleAdditionalPolicyArns) {
		errs = append(errs, checkKey("nodeRoleAdditionalPolicyArns", key))
	}

	p.pools, p.classes = resolveProvisioning(args, rel)
	p.userPools = args.NodePools
	p.windowsNodes = slices.ContainsFunc(p.classes, usesWindowsWithNodeRole)
	errs = append(errs, validateProvisioning(p)...)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	for i, c := range p.classes {
		p.warnings = append(p.warnings, classWarnings(fmt.Sprintf("nodeClasses[%d]", i), c, rel)...)
	}
	return p, nil
}

// defaultAmiAliasOf is the AMI alias of a class that names none: AL2023 where the release
// supports it, else AL2.
func defaultAmiAliasOf(rel release) string {
	if !slices.Contains(rel.amiFamilies, "AL2023") || !rel.has(featureAL2023) {
		return "al2@latest"
	}
	return defaultAmiAlias
}

// resolveIdentity decides how the controller authenticates.
func (p *installPlan) resolveIdentity(args KarpenterArgs) []error {
	identity := deref(args.ControllerIdentity, "irsa")
	if err := checkEnum("controllerIdentity", string(identity), enumValues[ControllerIdentity]()); err != nil {
		return []error{err}
	}
	p.trustIRSA = identity == "irsa" || identity == "both"
	p.podIdentity = identity == "podIdentity" || identity == "both"
	p.createPodIdentityAgent = deref(args.CreatePodIdentityAgent, false)
	var errs []error
	if p.createControllerIAM && p.trustIRSA && args.OidcProviderArn == nil {
		errs = append(errs, fmt.Errorf("oidcProviderArn: required to create the controller role with controllerIdentity %s (IRSA trusts the cluster's OIDC provider); or set controllerRoleArn, or use controllerIdentity podIdentity", identity))
	}
	if p.createPodIdentityAgent && !p.podIdentity {
		errs = append(errs, errors.New("createPodIdentityAgent: only used with controllerIdentity podIdentity or both"))
	}
	return errs
}

// resolveNodeAccess decides how the node role joins the cluster: by default an access entry,
// an aws-auth mapping on CONFIG_MAP clusters, and nothing for a role the component does not
// own (it usually has access already).
func (p *installPlan) resolveNodeAccess(args KarpenterArgs) []error {
	mode := deref(args.ClusterAuthenticationMode, AuthenticationModeApiAndConfigMap)
	switch {
	case args.NodeAccess != nil:
		p.nodeAccess = *args.NodeAccess
	case !p.createNodeRole:
		p.nodeAccess = "none"
	case mode == AuthenticationModeConfigMap:
		p.nodeAccess = "awsAuth"
	default:
		p.nodeAccess = "accessEntry"
	}
	if err := checkEnum("nodeAccess", string(p.nodeAccess), enumValues[NodeAccess]()); err != nil {
		return []error{err}
	}
	switch {
	case p.nodeAccess == "accessEntry" && mode == AuthenticationModeConfigMap:
		return []error{errors.New("nodeAccess: accessEntry needs a cluster in API or API_AND_CONFIG_MAP mode; clusterAuthenticationMode is CONFIG_MAP (use awsAuth)")}
	case p.nodeAccess == "awsAuth" && mode == AuthenticationModeApi:
		return []error{errors.New("nodeAccess: awsAuth needs a cluster that reads aws-auth (CONFIG_MAP or API_AND_CONFIG_MAP); clusterAuthenticationMode is API (use accessEntry)")}
	}
	return nil
}

// usesWindowsWithNodeRole says whether a class launches Windows nodes with the component's
// node role (which then needs Windows node access).
func usesWindowsWithNodeRole(c NodeClassSpec) bool {
	if c.Role != nil || c.InstanceProfile != nil {
		return false
	}
	if c.AmiFamily != nil {
		return strings.HasPrefix(*c.AmiFamily, "Windows")
	}
	alias := c.alias()
	return alias != nil && strings.HasPrefix(*alias, "windows")
}

// resolveProvisioning completes the user's pools and classes with the component's defaults:
// one default pool when none is given, a default class when pools exist without classes,
// and a pool's nodeClassRef when there is only one class to refer to.
func resolveProvisioning(args KarpenterArgs, rel release) ([]NodePoolSpec, []NodeClassSpec) {
	pools := slices.Clone(args.NodePools)
	classes := slices.Clone(args.NodeClasses)
	name := rel.defaultObjectName()
	if len(pools) == 0 && deref(args.DefaultNodePool, true) {
		pools = []NodePoolSpec{{Name: name, Limits: map[string]string{"cpu": defaultPoolCPULimit}}}
	}
	if len(classes) == 0 && len(pools) > 0 {
		classes = []NodeClassSpec{{Name: name}}
	}
	for i := range pools {
		if pools[i].NodeClassRef != nil {
			continue
		}
		if len(classes) == 1 {
			pools[i].NodeClassRef = &classes[0].Name
		} else if len(args.NodePools) == 0 && slices.ContainsFunc(classes, func(c NodeClassSpec) bool { return c.Name == name }) {
			// The default pool uses the class named like it when there are several.
			pools[i].NodeClassRef = ptr(name)
		}
	}
	return pools, classes
}

// defaultObjectName names the default pool and class: `default`, or Auto Mode's own name.
func (r release) defaultObjectName() string {
	if r.autoMode != nil {
		return r.autoMode.defaultName
	}
	return defaultNodeClassName
}

// poolDefaults are the expireAfter and requirements of a pool that sets none.
func (r release) poolDefaults() (expireAfter string, requirements []Requirement) {
	if r.autoMode != nil {
		return r.autoMode.defaultExpireAfter, slices.Clone(r.autoMode.defaultRequirements)
	}
	return defaultExpireAfter, defaultRequirements()
}
