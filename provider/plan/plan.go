package plan

// The install plan: the component's plain inputs resolved — defaults applied, the release
// looked up, the provisioning lists completed — then checked (validate.go). The args say what
// the program wrote; the Plan what the component does: every default is resolved here, once.

import (
	"path"
	"slices"
	"strings"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/inputs"
)

// ReleaseForMode resolves the release a mode's custom resources are rendered for: the Karpenter
// version (self-managed), or Auto Mode, where a version makes no sense.
func ReleaseForMode(mode *inputs.Mode, version *string, allowUnverified *bool) (catalog.Release, error) {
	switch m := inputs.Deref(mode, catalog.DefaultMode); m {
	case inputs.ModeSelfManaged:
		return catalog.LookupRelease(inputs.Deref(version, catalog.DefaultVersion), inputs.Deref(allowUnverified, catalog.DefaultAllowUnverifiedVersion))
	case inputs.ModeAutoMode:
		return catalog.AutoModeRelease(), field.Join(inputs.ValidateAutoModeVersion(version, allowUnverified)...)
	default:
		return catalog.Release{}, inputs.CheckEnum(field.NewPath("mode"), string(m), inputs.EnumValues[inputs.Mode]())
	}
}

// Mode is who runs Karpenter, as the `mode` output says it: EKS for Auto Mode's release, else the
// component. Decisions ask p.Release.IsAutoMode().
func (p *Plan) Mode() inputs.Mode {
	if p.Release.IsAutoMode() {
		return inputs.ModeAutoMode
	}
	return inputs.ModeSelfManaged
}

// ChartSource says how the kubernetes provider finds a chart in chartRepository: an OCI
// reference, a chart in an HTTP(S) repository, or a local directory (whose chart is the
// version, so none is named: version is empty). repo is the HTTP(S) repository's URL, or empty.
func (p *Plan) ChartSource(chart string) (ref, version, repo string) {
	base := strings.TrimSuffix(p.chartRepository, "/")
	v := p.Release.Version.String()
	switch {
	case strings.HasPrefix(base, "oci://"):
		return base + "/" + chart, v, ""
	case strings.HasPrefix(base, "https://") || strings.HasPrefix(base, "http://"):
		return chart, v, base
	default:
		return path.Join(base, chart), "", ""
	}
}

// Plan is the component's plain inputs resolved: defaults applied, versions looked
// up, provisioning lists completed. Building it validates every plain input.
type Plan struct {
	Name string
	// Kind is what the plan installs; Release what it installs it for (Auto Mode has one: Mode).
	Kind    Kind
	Release catalog.Release

	// Namespace: the releases' (namespace); ServiceAccount: the controller's (serviceAccountName).
	Namespace, ServiceAccount string
	chartRepository           string
	// ReleaseTimeout: seconds the Helm releases wait for their resources (0: the provider's default).
	ReleaseTimeout  int
	DefaultAmiAlias string
	// ControllerImageRepository: the controller image's mirror, or "" for the chart's.
	ControllerImageRepository string

	// installCrds (the component manages Karpenter's CRDs) decides one of these, by release:
	// CrdRelease: the component installs a karpenter-crd release (from v0.32); ChartCrds: the
	// controller chart installs the CRDs from its crds/ directory (the Provisioner era, which has
	// no CRD chart).
	CrdRelease, ChartCrds bool
	// RetainCrds: the CRD release is kept when the component is deleted (retainCrdsOnDelete).
	RetainCrds bool
	// Interruption: the queue and its rules (interruptionHandling); CreateInstanceProfile: one
	// for the node role the component creates (createInstanceProfile).
	Interruption, CreateInstanceProfile bool
	CreateControllerIAM, CreateNodeRole bool
	// SpotServiceLinkedRole: the component creates (or imports) the account's Spot role.
	SpotServiceLinkedRole bool

	// Controller identity: trust the OIDC provider (IRSA) and/or EKS Pod Identity, and install
	// the agent; controllerIdentity is the input resolved, for the checks' messages.
	TrustIRSA, PodIdentity, CreatePodIdentityAgent bool
	controllerIdentity                             inputs.ControllerIdentity
	// ControllerPolicyStatements: the user's extra statements for the controller.
	ControllerPolicyStatements []inputs.PolicyStatement

	// NodeAccess is how the node role joins the cluster; WindowsNodes: a node class uses a
	// Windows AMI with the component's node role.
	NodeAccess   inputs.NodeAccess
	WindowsNodes bool
	// AccessEntriesOfOthers are the node roles, by the input that names each ("nodeRoleArn",
	// "nodeClasses[1].role"), that have an access entry another owner made (CheckCluster): EKS
	// allows one per role, so the component makes none for them and their nodes join through it.
	// Asked through NodeRoleHasOthersEntry and ClassRoleHasOthersEntry.
	AccessEntriesOfOthers map[string]bool

	// Pools and Classes are complete: the default pool and class added, each pool's
	// nodeClassRef, requirements and expireAfter set.
	Pools   []inputs.NodePoolSpec
	Classes []inputs.NodeClassSpec
	// userPools are the pools the user gave (pools may add the default one).
	userPools []inputs.NodePoolSpec

	// inputWarnings are about the inputs, clusterWarnings about the checks against the cluster
	// (CheckCluster): Warnings says them all.
	inputWarnings, clusterWarnings []field.Warning

	// Cluster is what EKS said about the cluster, when the component read it (readCluster, and a
	// cluster name known at construct); nil otherwise. accessMode is the mode node
	// access follows: the input, else the cluster's, else (cluster not read) the mode assumed.
	Cluster    *Cluster
	accessMode inputs.AuthenticationMode
	// ReadCluster: the inputs are checked against the cluster (CheckCluster) before any child.
	ReadCluster bool

	// Deferred are the inputs known only once they resolve, which the children take as Inputs.
	Deferred inputs.Deferred

	// Adopt is the running install the component takes over (adopt): the children it names are
	// imported, under those names, instead of created. nil when nothing is adopted.
	Adopt *inputs.AdoptionNames

	// inputs are what the cluster checks compare with the cluster; known what the engine sent
	// known at Construct.
	inputs planInputs
	known  Known
	// waitingOwners are the shared-object checks that wait for the cluster and the ids (owners.go).
	waitingOwners []string
}

// Kind is what a plan installs: the Karpenter component, or one NodePool or NodeClass declared
// outside it (karpenter:index:NodePool, karpenter:index:NodeClass).
type Kind int

const (
	KindComponent Kind = iota
	KindNodePool
	KindNodeClass
)

// planInputs are the inputs the cluster checks need besides the plan itself: what the user set
// explicitly (a finding says to remove it when the cluster disagrees), and how many node classes
// and discovery ids the user gave (their paths).
type planInputs struct {
	authenticationMode                        *inputs.AuthenticationMode
	nodeAccess                                *inputs.NodeAccess
	kubernetesVersion                         *string
	userClasses                               int
	discoverySubnets, discoverySecurityGroups int
}

// New resolves the plain inputs and checks them; those that follow the cluster (node access,
// the Kubernetes version) follow cluster when it was read (nil: not read). known is what the
// engine sent known of the Input-typed inputs. All problems are reported together, each naming
// its field.
func New(name string, args inputs.KarpenterArgs, known Known, cluster *Cluster) (*Plan, error) {
	if args.ClusterName == nil {
		return nil, field.Required(field.NewPath("clusterName"), "(the name of the EKS cluster)")
	}
	rel, err := ReleaseForMode(args.Mode, args.Version, args.AllowUnverifiedVersion)
	if err != nil {
		return nil, err // everything else depends on the version
	}
	p := resolve(name, args, rel, known, cluster)
	errs := p.checkInputs(args)
	if !rel.IsAutoMode() {
		errs = append(errs, p.resolveAdoption(args))
	}
	errs = append(errs, p.checkSharedObjects(cluster)...)
	errs = append(errs, inputs.ValidateProvisioning(p.Pools, p.userPools, p.Classes, rel)...)
	errs = append(errs, inputs.ValidateInstanceProfiles(p.Classes, len(args.NodeClasses), !p.CreateNodeRole, rel)...)
	if err := field.Join(errs...); err != nil {
		return nil, err
	}
	p.inputWarnings = append(p.objectWarnings(), p.adoptWarnings()...)
	completePools(p.Pools, rel)
	completeClasses(p.Classes, rel)
	return p, nil
}

// resolve is the plan of the inputs before any check: each unset input is the catalog's default
// (for the release), or what the cluster says.
func resolve(name string, args inputs.KarpenterArgs, rel catalog.Release, known Known, cluster *Cluster) *Plan {
	p := &Plan{
		Name:            name,
		Release:         rel,
		DefaultAmiAlias: catalog.DefaultAmiAliasOf(rel),
		CreateNodeRole:  args.NodeRoleArn == nil,
		RetainCrds:      inputs.Deref(args.RetainCrdsOnDelete, catalog.DefaultRetainCrdsOnDelete),

		SpotServiceLinkedRole: inputs.Deref(args.CreateSpotServiceLinkedRole, catalog.DefaultCreateSpotServiceLinkedRole),

		Cluster:     cluster,
		ReadCluster: readsCluster(args),

		ControllerPolicyStatements: args.ControllerPolicyStatements,
		Deferred:                   args.Deferred(),
		known:                      known,
	}
	p.CreateInstanceProfile = p.CreateNodeRole && inputs.Deref(args.CreateInstanceProfile, catalog.DefaultCreateInstanceProfile(rel))
	p.inputs = planInputs{authenticationMode: args.ClusterAuthenticationMode, nodeAccess: args.NodeAccess, kubernetesVersion: args.KubernetesVersion, userClasses: len(args.NodeClasses)}
	p.inputs.discoverySubnets, p.inputs.discoverySecurityGroups = userDiscovery(args.Discovery)
	p.accessMode = assumedAuthenticationMode
	switch {
	case args.ClusterAuthenticationMode != nil:
		p.accessMode = *args.ClusterAuthenticationMode
	case cluster != nil:
		p.accessMode = cluster.AuthenticationMode
	}
	if rel.IsAutoMode() {
		p.resolveAutoMode(args)
	} else {
		p.resolveSelfManaged(args)
	}
	p.Pools, p.Classes = resolveProvisioning(args, rel)
	p.userPools = args.NodePools
	p.WindowsNodes = slices.ContainsFunc(p.Classes, usesWindowsWithNodeRole)
	return p
}

// readsCluster is readCluster resolved; ClusterToRead asks it before there is a plan.
func readsCluster(args inputs.KarpenterArgs) bool {
	return inputs.Deref(args.ReadCluster, catalog.DefaultReadCluster)
}

// resolveSelfManaged decides what the component installs and runs itself: the releases and
// their CRDs, the controller's IAM and identity, the interruption queue, and node access.
func (p *Plan) resolveSelfManaged(args inputs.KarpenterArgs) {
	rel := p.Release
	p.Namespace = inputs.Deref(args.Namespace, rel.DefaultNamespace)
	p.ServiceAccount = inputs.Deref(args.ServiceAccountName, catalog.DefaultServiceAccount)
	p.chartRepository = inputs.Deref(args.ChartRepository, catalog.DefaultChartRepository)
	installCrds := inputs.Deref(args.InstallCrds, catalog.DefaultInstallCrds)
	p.CrdRelease, p.ChartCrds = installCrds && rel.CrdChart, installCrds && !rel.CrdChart
	// 0: the component sets no timeout on the releases, so the kubernetes provider's applies.
	p.ReleaseTimeout = inputs.Deref(args.ReleaseTimeout, 0)
	p.ControllerImageRepository = inputs.Deref(args.ControllerImageRepository, "")
	p.Interruption = inputs.Deref(args.InterruptionHandling, catalog.DefaultInterruptionHandling)
	p.CreateControllerIAM = args.ControllerRoleArn == nil
	p.resolveIdentity(args)
	p.resolveNodeAccess(args)
}

// resolveIdentity decides how the controller authenticates.
func (p *Plan) resolveIdentity(args inputs.KarpenterArgs) {
	p.controllerIdentity = inputs.Deref(args.ControllerIdentity, catalog.DefaultControllerIdentity)
	p.TrustIRSA = p.controllerIdentity != inputs.ControllerIdentityPodIdentity
	p.PodIdentity = p.controllerIdentity != inputs.ControllerIdentityIRSA
	p.CreatePodIdentityAgent = inputs.Deref(args.CreatePodIdentityAgent, catalog.DefaultCreatePodIdentityAgent)
}

// assumedAuthenticationMode is the mode node access follows when neither the input nor the
// cluster says (the cluster not read: readCluster false, or made by the same update and read at
// `up`): access entries work in it, as in API.
const assumedAuthenticationMode = inputs.AuthenticationModeApiAndConfigMap

// resolveNodeAccess decides how the node role joins the cluster: by default an access entry,
// an aws-auth mapping on CONFIG_MAP clusters, and nothing for a role the component does not
// own (it usually has access already).
func (p *Plan) resolveNodeAccess(args inputs.KarpenterArgs) {
	switch {
	case args.NodeAccess != nil:
		p.NodeAccess = *args.NodeAccess
	case !p.CreateNodeRole:
		p.NodeAccess = inputs.NodeAccessNone
	case p.accessMode == inputs.AuthenticationModeConfigMap:
		p.NodeAccess = inputs.NodeAccessAwsAuth
	default:
		p.NodeAccess = catalog.DefaultNodeAccess
	}
}

// usesWindowsWithNodeRole says whether a class launches Windows nodes with the component's
// node role (which then needs Windows node access).
func usesWindowsWithNodeRole(c inputs.NodeClassSpec) bool {
	if c.Role != nil || c.InstanceProfile != nil {
		return false
	}
	if c.AmiFamily != nil {
		return strings.HasPrefix(*c.AmiFamily, "Windows")
	}
	alias := c.Alias()
	return alias != nil && strings.HasPrefix(*alias, "windows")
}

// resolveProvisioning completes the user's pools and classes with the component's defaults:
// one default pool when none is given, a default class when pools exist without classes,
// and a pool's nodeClassRef when there is only one class to refer to.
func resolveProvisioning(args inputs.KarpenterArgs, rel catalog.Release) ([]inputs.NodePoolSpec, []inputs.NodeClassSpec) {
	pools := slices.Clone(args.NodePools)
	classes := slices.Clone(args.NodeClasses)
	name := catalog.DefaultObjectName(rel)
	if len(pools) == 0 && inputs.Deref(args.DefaultNodePool, catalog.DefaultDefaultNodePool) {
		pools = []inputs.NodePoolSpec{{Name: name, Limits: map[string]string{"cpu": catalog.DefaultPoolCPULimit}}}
	}
	if len(classes) == 0 && len(pools) > 0 {
		classes = []inputs.NodeClassSpec{{Name: name}}
	}
	for i := range pools {
		if pools[i].NodeClassRef != nil {
			continue
		}
		if len(classes) == 1 {
			pools[i].NodeClassRef = &classes[0].Name
		} else if len(args.NodePools) == 0 && slices.ContainsFunc(classes, func(c inputs.NodeClassSpec) bool { return c.Name == name }) {
			// The default pool uses the class named like it when there are several.
			pools[i].NodeClassRef = new(name)
		}
	}
	return pools, classes
}

// completePools gives each pool that sets none the release's requirements and expireAfter, and
// its disruption settings Karpenter's defaults (each budget its nodes), so the children render
// the pools as they are: each generation spells the settings its own way, none adds a default.
// It runs after the checks and the warnings, which are about what the program wrote: a default
// is never refused, nor warned about.
func completePools(pools []inputs.NodePoolSpec, rel catalog.Release) {
	for i := range pools {
		expireAfter, requirements := poolDefaults(rel)
		if len(pools[i].Requirements) == 0 {
			pools[i].Requirements = requirements
		}
		if pools[i].ExpireAfter == nil {
			pools[i].ExpireAfter = &expireAfter
		}
		pools[i].Disruption = completeDisruption(pools[i].Disruption)
	}
}

// completeClasses gives each Auto Mode NodeClass the settings EKS documents as defaults (its
// network policy stance, SNAT, ephemeral storage), so the children write them out as they are.
// Like completePools, it runs after the checks and the warnings. An EC2NodeClass's only default,
// its AMI alias, is the Plan's DefaultAmiAlias: each generation spells it its own way (an alias
// term, an amiFamily), and only where the class selects no AMI.
func completeClasses(classes []inputs.NodeClassSpec, rel catalog.Release) {
	if !rel.IsAutoMode() {
		return
	}
	for i := range classes {
		c := &classes[i]
		if c.NetworkPolicy == nil {
			c.NetworkPolicy = new(inputs.NetworkPolicy(catalog.AutoModeNetworkPolicy))
		}
		if c.NetworkPolicyEventLogs == nil {
			c.NetworkPolicyEventLogs = new(inputs.NetworkPolicyEventLogs(catalog.AutoModeNetworkPolicyEventLogs))
		}
		if c.SnatPolicy == nil {
			c.SnatPolicy = new(inputs.SnatPolicy(catalog.AutoModeSnatPolicy))
		}
		storage := inputs.Deref(c.EphemeralStorage, inputs.EphemeralStorage{})
		if storage.Size == nil {
			storage.Size = new(catalog.AutoModeEphemeralSize)
		}
		if storage.Iops == nil {
			storage.Iops = new(catalog.AutoModeEphemeralIops)
		}
		if storage.Throughput == nil {
			storage.Throughput = new(catalog.AutoModeEphemeralThroughput)
		}
		c.EphemeralStorage = &storage
	}
}

// completeDisruption is d with every unset setting Karpenter's default, in a copy (the program's
// args are not changed).
func completeDisruption(d *inputs.Disruption) *inputs.Disruption {
	out := inputs.Deref(d, inputs.Disruption{})
	if out.ConsolidationPolicy == nil {
		out.ConsolidationPolicy = new(inputs.ConsolidationPolicy(catalog.DefaultConsolidation))
	}
	if out.ConsolidateAfter == nil {
		out.ConsolidateAfter = new(catalog.DefaultConsolidateAfter)
	}
	out.Budgets = slices.Clone(out.Budgets)
	for i := range out.Budgets {
		if out.Budgets[i].Nodes == nil {
			out.Budgets[i].Nodes = new(catalog.DefaultBudgetNodes)
		}
	}
	return &out
}

// poolDefaults are the expireAfter and requirements of a pool that sets none.
func poolDefaults(r catalog.Release) (expireAfter string, requirements []inputs.Requirement) {
	expireAfter, catalog := catalog.DefaultExpireAfter, catalog.DefaultRequirements
	if am := r.AutoMode; am != nil {
		expireAfter, catalog = am.DefaultExpireAfter, am.DefaultRequirements
	}
	for _, req := range catalog {
		requirements = append(requirements, inputs.Requirement{Key: req.Key, Operator: inputs.RequirementOperator(req.Operator), Values: slices.Clone(req.Values)})
	}
	return expireAfter, requirements
}
