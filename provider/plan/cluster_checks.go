package plan

// The install checked against the cluster it goes into. EKS, IAM, EC2 and SSM already know
// everything that makes a valid install launch nothing — an authentication mode that refuses
// access entries, a Kubernetes version the release does not support, an OIDC provider of another
// cluster, subnets without the discovery tag, an AMI alias without AMIs, an account without the
// Spot service-linked role — so the component reads it (build: through the user's aws provider)
// and reports each finding with the input, the fact read and the fix, before creating anything.

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/inputs"
)

// Cluster is what EKS says about the cluster (DescribeCluster).
type Cluster struct {
	Name string
	// SecurityGroupID is the security group EKS made for the cluster (vpcConfig.clusterSecurityGroupId).
	SecurityGroupID    string
	AuthenticationMode inputs.AuthenticationMode
	Version            string // Kubernetes major.minor
	Endpoint           string
	OIDCIssuer         string // https://oidc.eks.<region>.amazonaws.com/id/<id>
	VpcID              string
	AutoMode           bool // computeConfig.enabled
}

// OIDCProvider is an IAM OIDC identity provider.
type OIDCProvider struct {
	URL       string // without the scheme, as IAM stores it
	ClientIDs []string
}

// Subnet and SecurityGroup are what the node class checks need of them.
type Subnet struct {
	ID, VpcID, Zone string
}

type SecurityGroup struct {
	ID, VpcID string
}

// Filter is an EC2 Describe* filter.
type Filter struct {
	Name   string
	Values []string
}

// ErrNotFound is what a ClusterReader answers for something that does not exist.
var ErrNotFound = errors.New("not found")

// ClusterReader reads what the checks compare the inputs with. Its methods may be called
// concurrently.
type ClusterReader interface {
	OIDCProvider(arn string) (OIDCProvider, error)
	Subnets(filters []Filter) ([]Subnet, error)
	SecurityGroups(filters []Filter) ([]SecurityGroup, error)
	ParameterExists(name string) (bool, error)
	RoleExists(name string) (bool, error)
	Role(name string) (IAMRead, error)
	QueueExists(name string) (bool, error)
	AccessEntry(cluster, principalArn string) (AccessEntryRead, error)
}

// AccessEntryRead is the EKS access entry of a principal as read: whether it exists, its type
// (EC2_LINUX, EC2_WINDOWS, EC2, STANDARD, ...) and its tags.
type AccessEntryRead struct {
	Exists bool
	Type   string
	Tags   map[string]string
}

// IAMRead is an IAM role or managed policy as read by name: whether it exists, its ARN (with the
// path it was created under, which a name does not tell) and its description.
type IAMRead struct {
	Exists           bool
	Arn, Description string
}

// Findings are the outcome of the checks: errors fail before any child is created; warnings
// are said on the component; Waiting names the checks that need a value not known yet.
type Findings struct {
	Errors   []error
	Warnings []field.Warning
	Waiting  []string
	// othersAccess are the inputs whose role has another owner's access entry
	// (Plan.AccessEntriesOfOthers).
	othersAccess []string
}

func (f *Findings) add(o Findings) {
	f.Errors = append(f.Errors, o.Errors...)
	f.Warnings = append(f.Warnings, o.Warnings...)
	f.Waiting = append(f.Waiting, o.Waiting...)
	f.othersAccess = append(f.othersAccess, o.othersAccess...)
}

// input is the input a finding is about: its path, and which node class it is when the
// program did not write it (the default class).
type input struct {
	path *field.Path
	of   string
}

func at(p *field.Path) input { return input{path: p} }

// String is the path, with which class it is when the program did not write it.
func (in input) String() string {
	if in.of == "" {
		return in.path.String()
	}
	return in.path.String() + " (" + in.of + ")"
}

func (in input) problem(format string, a ...any) *field.Error {
	return &field.Error{Path: in.path, Of: in.of, Detail: fmt.Sprintf(format, a...)}
}

func (f *Findings) errorf(in input, format string, a ...any) {
	f.Errors = append(f.Errors, in.problem(format, a...))
}

func (f *Findings) warnf(in input, format string, a ...any) {
	f.Warnings = append(f.Warnings, field.Warning{Path: in.path, Of: in.of, Detail: fmt.Sprintf(format, a...)})
}

// warnClusterf is a warning about the cluster, not about an input.
func (f *Findings) warnClusterf(format string, a ...any) {
	f.Warnings = append(f.Warnings, field.Warnf(nil, format, a...))
}

// CheckCluster checks the plan against the cluster c, reading the rest through r: every problem,
// joined. Its warnings become the plan's (Warnings), with the checks that wait for a value not
// known yet (preview: this is a preview, whose warning says when they run). The checks run
// concurrently (each is a round trip or a few); their findings come back in a fixed order.
func (p *Plan) CheckCluster(c Cluster, r ClusterReader, preview bool) error {
	known := p.known
	checks := []func() Findings{
		func() Findings { return p.checkAuthentication(c) },
		func() Findings { return p.checkBesideAutoMode(c) },
		func() Findings { return p.checkKubernetesVersion(c) },
		func() Findings { return p.checkOIDCProvider(c, r, known) },
	}
	for i := range p.Classes {
		checks = append(checks,
			func() Findings { return p.checkSubnets(i, c, r, known) },
			func() Findings { return p.checkSecurityGroups(i, c, r, known) },
			func() Findings { return p.checkAmi(i, c, r) },
			func() Findings { return p.checkClassRole(i, r, known) },
		)
	}
	checks = append(checks, func() Findings { return p.checkDiscoveryIDs(c, r, known) },
		func() Findings { return p.checkSpotRole(r) }, func() Findings { return p.checkRunningInstall(c, r) },
		func() Findings { return p.checkNodeRoleAccess(c, r) }, func() Findings { return p.checkAccessEntries(c, r, known) })

	results := make([]Findings, len(checks))
	var wg sync.WaitGroup
	for i, check := range checks {
		wg.Go(func() { results[i] = check() })
	}
	wg.Wait()
	var all Findings
	for _, f := range results {
		all.add(f)
	}
	for _, in := range all.othersAccess {
		if p.AccessEntriesOfOthers == nil {
			p.AccessEntriesOfOthers = map[string]bool{}
		}
		p.AccessEntriesOfOthers[in] = true
	}
	p.clusterWarnings = all.Warnings
	if len(all.Waiting) > 0 {
		p.clusterWarnings = append(p.clusterWarnings, waitingWarning(nil, "a value they need is not known yet", all.Waiting, preview))
	}
	return errors.Join(all.Errors...)
}

// ClusterChecks names what CheckCluster checks for this plan, for a preview that cannot yet.
func (p *Plan) ClusterChecks() []string {
	var out []string
	if p.Release.IsAutoMode() {
		out = append(out, "that it runs EKS Auto Mode")
	} else if p.inputs.authenticationMode == nil {
		out = append(out, fmt.Sprintf("its authentication mode, which node access follows (this preview assumes %s: %s)", p.accessMode, p.nodeAccessSaid()))
	}
	if w := p.awsAuthOwnerWaiting(); w != "" {
		out = append(out, w)
	}
	out = append(out, p.waitingOwners...)
	if !p.Release.IsAutoMode() {
		out = append(out, fmt.Sprintf("its Kubernetes version against Karpenter %s and the AMI aliases", p.Release.Version))
	}
	if p.TrustIRSA && p.CreateControllerIAM {
		out = append(out, "oidcProviderArn against its OIDC issuer")
	}
	if len(p.Classes) > 0 {
		out = append(out, "the subnets and security groups the node classes select, in its VPC")
	}
	out = append(out, "the EC2 Spot service-linked role, if a pool allows Spot")
	if p.looksForRunningInstall() {
		out = append(out, "that no getting-started install of Karpenter runs on it (its node role, and its queue in this region), which adopt would take over")
	}
	return out
}

// looksForRunningInstall: a new install (no adopt) with its own node role checks that the
// cluster has no getting-started install, which it would collide with.
func (p *Plan) looksForRunningInstall() bool {
	return !p.Release.IsAutoMode() && p.Adopt == nil && p.CreateNodeRole
}

// checkRunningInstall: a cluster runs one Karpenter. A new install beside one made the
// getting-started way fails in the middle of `up` — its karpenter-crd release finds the CRDs
// that install's chart put there, owned by no release (Helm: "invalid ownership metadata"),
// after the IAM and the queue were created — so the template's node role for the cluster (the
// getting-started guide's names, catalog.GettingStartedNames), which the component never
// creates, is looked for first. IAM names are account-wide and clusters regional: a same-named
// cluster's install in another region has that role too, so the refusal needs the install's
// interruption queue (the template's, named after the cluster) in this region; the role alone
// is a warning. With nodeRoleArn the user names existing IAM on purpose.
func (p *Plan) checkRunningInstall(c Cluster, r ClusterReader) (f Findings) {
	if !p.looksForRunningInstall() {
		return f
	}
	names := catalog.GettingStartedNames(p.Release, c.Name)
	role := names.NodeRole
	read, err := r.Role(role)
	if err != nil {
		f.warnClusterf("could not read the IAM role %s, the node role of a getting-started install of Karpenter on cluster %s (%v): not checked whether one runs (the check needs iam:GetRole)", role, c.Name, err)
		return f
	}
	if !read.Exists {
		return f
	}
	here, err := r.QueueExists(names.Queue)
	switch {
	case err != nil:
		f.warnClusterf("the IAM role %s exists, the node role of a getting-started install of Karpenter on a cluster named %s, and its queue %s could not be read (%v): not checked whether that install runs in this region (the check needs sqs:GetQueueUrl)", role, c.Name, names.Queue, err)
	case !here:
		f.warnClusterf("the IAM role %s exists, the node role of a getting-started install of Karpenter on a cluster named %s, but this region has no queue %s, which that install has: it runs on a same-named cluster in another region (IAM names are account-wide), or without its queue. Not refused; if Karpenter runs on this cluster, set adopt to take it over", role, c.Name, names.Queue)
	case describedByAComponent(read.Description, "node role"):
		// Another component took that install over (its adopting `up` described the role).
		f.errorf(at(field.NewPath("adopt")), "unset, and the IAM role %s and the queue %s exist: the Karpenter install on cluster %s, which the Pulumi component its description names manages (%q). A cluster runs one Karpenter: install it from that program, or destroy that stack first", role, names.Queue, c.Name, read.Description)
	default:
		f.errorf(at(field.NewPath("adopt")), "unset, and the IAM role %s and the queue %s exist: the node role and interruption queue Karpenter's getting-started guide creates for cluster %s. A second install would fail in the middle of `up` (its CRDs belong to no Helm release, and the release karpenter and the NodePool default exist); set adopt to take it over (docs/migrating.md, Adopting a running install). If only the IAM and the queue are left of an install that is gone, set nodeRoleArn to that role to use it", role, names.Queue, c.Name)
	}
	return f
}

func (p *Plan) nodeAccessSaid() string {
	switch p.NodeAccess {
	case inputs.NodeAccessEntry:
		return "an access entry for the node role"
	case inputs.NodeAccessAwsAuth:
		return "an aws-auth mapping for the node role"
	}
	return "no node access created"
}

// checkAuthentication: access entries need API or API_AND_CONFIG_MAP, aws-auth needs
// CONFIG_MAP or API_AND_CONFIG_MAP (EKS User Guide, "Change authentication mode").
func (p *Plan) checkAuthentication(c Cluster) (f Findings) {
	mode := c.AuthenticationMode
	if in := p.inputs.authenticationMode; in != nil && *in != mode {
		f.errorf(at(field.NewPath("clusterAuthenticationMode")), "%s, but cluster %s is in %s mode (EKS accessConfig.authenticationMode); remove clusterAuthenticationMode (the component reads the cluster's mode) or change the cluster's mode", *in, c.Name, mode)
		return f
	}
	if p.Release.IsAutoMode() {
		if !c.AutoMode {
			f.errorf(at(field.NewPath("mode")), "autoMode, but cluster %s does not run EKS Auto Mode (computeConfig.enabled is false), so nothing would act on these NodePools; enable Auto Mode on the cluster (pulumi-eks: autoMode: {enabled: true}) or install Karpenter with mode selfManaged", c.Name)
		}
		if p.NodeAccess == inputs.NodeAccessEntry && mode == inputs.AuthenticationModeConfigMap {
			f.errorf(at(field.NewPath("mode")), "autoMode needs access entries, and cluster %s is in CONFIG_MAP mode; switch the cluster to API_AND_CONFIG_MAP or API", c.Name)
		}
		return f
	}
	switch {
	case p.NodeAccess == inputs.NodeAccessEntry && mode == inputs.AuthenticationModeConfigMap:
		f.errorf(at(field.NewPath("nodeAccess")), "accessEntry, but cluster %s is in CONFIG_MAP mode, where EKS refuses access entries; set nodeAccess: awsAuth (or leave it unset: the component follows the cluster), or switch the cluster to API_AND_CONFIG_MAP (pulumi-eks: authenticationMode: \"API_AND_CONFIG_MAP\")", c.Name)
	case p.NodeAccess == inputs.NodeAccessAwsAuth && mode == inputs.AuthenticationModeApi:
		f.errorf(at(field.NewPath("nodeAccess")), "awsAuth, but cluster %s is in API mode, which ignores kube-system/aws-auth: its nodes could not join; set nodeAccess: accessEntry (or leave it unset: the component follows the cluster)", c.Name)
	}
	return f
}

// checkNodeRoleAccess: on an API-mode cluster EKS lets nodes join only through an access entry of
// their role (EKS User Guide, "Grant IAM users access to Kubernetes with EKS access entries"); with
// nodeAccess: none the component makes none, so the role the user gave must have one already.
func (p *Plan) checkNodeRoleAccess(c Cluster, r ClusterReader) (f Findings) {
	if p.Release.IsAutoMode() || p.CreateNodeRole || p.NodeAccess != inputs.NodeAccessNone ||
		c.AuthenticationMode != inputs.AuthenticationModeApi {
		return f
	}
	role, ok := p.known.String(field.NewPath("nodeRoleArn"))
	if !ok {
		f.Waiting = append(f.Waiting, "nodeRoleArn's access entry on the cluster")
		return f
	}
	entry, err := r.AccessEntry(c.Name, role)
	switch {
	case err != nil:
		f.warnf(at(field.NewPath("nodeAccess")), "could not read cluster %s's access entry for %s (%v): not checked (the check needs eks:DescribeAccessEntry)", c.Name, role, err)
	case !entry.Exists:
		f.errorf(at(field.NewPath("nodeAccess")), "none, and cluster %s is in API mode with no access entry for nodeRoleArn %s: Karpenter's nodes could not join (in API mode EKS authenticates nodes only through access entries); set nodeAccess: accessEntry (the component creates it), or create an EC2_LINUX access entry for the role", c.Name, role)
	}
	return f
}

// checkAccessEntries: EKS allows one access entry per role on a cluster (CreateAccessEntry: "You
// can't specify the same ARN in more than one access entry"), so an entry the component would
// make for a role that has one already fails the `up` (ResourceInUseException). A role of the
// user's often has one: EKS makes it for a managed node group's role, an earlier install or a
// hand for others. The component reads each role's entry: its own (catalog.AccessEntryOwnerTag,
// from an earlier `up`) it keeps declaring; another owner's of the node type it leaves to that
// owner and makes none (the nodes join through it); another owner's of another type (a STANDARD
// entry, through which nodes cannot join) is refused.
func (p *Plan) checkAccessEntries(c Cluster, r ClusterReader, known Known) (f Findings) {
	if p.NodeAccess != inputs.NodeAccessEntry || c.AuthenticationMode == inputs.AuthenticationModeConfigMap {
		return f
	}
	type principal struct {
		in   input
		role string // an ARN, or a name
	}
	var roles []principal
	if !p.CreateNodeRole && p.Adopt == nil {
		if role, ok := p.known.String(field.NewPath("nodeRoleArn")); ok {
			roles = append(roles, principal{at(field.NewPath("nodeRoleArn")), role})
		}
	}
	for i, class := range p.Classes {
		if class.Role == nil {
			continue
		}
		in := p.classField(i, "role")
		if role, ok := known.String(in.path); ok {
			roles = append(roles, principal{in, role})
		}
	}
	want := p.AccessEntryType()
	for _, pr := range roles {
		arn := pr.role
		if !strings.HasPrefix(arn, "arn:") {
			read, err := r.Role(arn)
			if err != nil || !read.Exists {
				continue // checkClassRole says so
			}
			arn = read.Arn
		}
		entry, err := r.AccessEntry(c.Name, arn)
		switch {
		case err != nil:
			f.warnf(pr.in, "could not read cluster %s's access entry for %s (%v): not checked whether it has one already, which the component's would collide with (the check needs eks:DescribeAccessEntry)", c.Name, arn, err)
		case !entry.Exists || entry.Tags[catalog.AccessEntryOwnerTag] == p.Name:
		case entry.Type == want:
			f.warnf(pr.in, "role %s has an access entry on cluster %s already (%s), which this component did not make (a managed node group's, or one made by hand or by another tool): EKS allows one per role, so the component makes none and the nodes join through that one, which stays its owner's (deleting it there locks these nodes out)", arn, c.Name, entry.Type)
			f.othersAccess = append(f.othersAccess, pr.in.path.String())
		default:
			f.errorf(pr.in, "role %s has an access entry on cluster %s of type %s, through which nodes cannot join (they need %s), and EKS allows one entry per role; use a role of its own for these nodes, or replace that entry with an %s one", arn, c.Name, entry.Type, want, want)
		}
	}
	return f
}

// checkBesideAutoMode: a self-managed install on a cluster that runs EKS Auto Mode runs beside
// EKS's own Karpenter. AWS supports the two side by side to migrate from one to the other, from
// Karpenter 1.1, without modifying the CRDs they share (catalog.AutoModeSharedCrds) — docs/auto-mode.md,
// Migrating to EKS Auto Mode, keeps the self-managed component through that migration.
func (p *Plan) checkBesideAutoMode(c Cluster) (f Findings) {
	if p.Release.IsAutoMode() || !c.AutoMode {
		return f
	}
	guide := "EKS User Guide, Migrate from Karpenter to EKS Auto Mode"
	since := catalog.FeatureSince[catalog.FeatureBesideAutoMode]
	if !p.Release.Has(catalog.FeatureBesideAutoMode) {
		f.errorf(at(field.NewPath("version")), "Karpenter %s, and cluster %s runs EKS Auto Mode: AWS supports a self-managed Karpenter beside Auto Mode from %s on (%s); set version to %s or later, or mode: autoMode to use EKS's Karpenter", p.Release.Version, c.Name, since, guide, since)
		return f
	}
	keep := ""
	if p.CrdRelease {
		keep = " (keep version as it is meanwhile: the karpenter-crd release upgrades them with it)"
	}
	f.warnf(at(field.NewPath("mode")), "selfManaged on cluster %s, which runs EKS Auto Mode: two Karpenters act on NodePools there, which AWS supports while workloads move from one to the other (%s); keep each one's NodePools apart (the guide taints Auto Mode's) and leave the CRDs they share, %s, as they are%s", c.Name, guide, strings.Join(catalog.AutoModeSharedCrds, " and "), keep)
	return f
}

// checkKubernetesVersion: the release must support the cluster's Kubernetes version
// (Karpenter's compatibility matrix, catalog).
func (p *Plan) checkKubernetesVersion(c Cluster) (f Findings) {
	if p.Release.IsAutoMode() || c.Version == "" {
		return f // EKS runs a Karpenter that fits its cluster; or EKS said no version
	}
	if in := p.inputs.kubernetesVersion; in != nil && catalog.MinorOf(*in) != c.Version {
		f.errorf(at(field.NewPath("kubernetesVersion")), "%s, but cluster %s runs Kubernetes %s (EKS); remove kubernetesVersion: the component reads the cluster's version", *in, c.Name, c.Version)
		return f
	}
	supported, needs, known := p.Release.SupportsKubernetes(c.Version)
	switch {
	case !known:
		f.warnClusterf("cluster %s runs Kubernetes %s, which Karpenter's compatibility matrix as this component knows it does not cover (%s): not checked", c.Name, c.Version, catalog.MatrixRange())
	case !supported:
		f.errorf(at(field.NewPath("version")), "Karpenter %s does not support Kubernetes %s, which cluster %s runs (%s needs Karpenter %s or later, Karpenter's compatibility matrix); set version to %s or later", p.Release.Version, c.Version, c.Name, c.Version, needs, needs)
	}
	if msg := p.Release.TooOldKubernetes(c.Version, "cluster "+c.Name+"'s"); msg != "" {
		f.errorf(at(field.NewPath("version")), "%s", msg)
	}
	return f
}

// checkOIDCProvider: IRSA works only with the cluster's own OIDC provider, listing the audience
// EKS's webhook requests; STS refuses the controller's token otherwise, and the release times
// out far from the input that caused it.
func (p *Plan) checkOIDCProvider(c Cluster, r ClusterReader, known Known) (f Findings) {
	if !p.TrustIRSA || !p.CreateControllerIAM {
		return f
	}
	arn, ok := known.String(field.NewPath("oidcProviderArn"))
	if !ok {
		f.Waiting = append(f.Waiting, "oidcProviderArn against the cluster's OIDC issuer")
		return f
	}
	issuer := strings.TrimPrefix(c.OIDCIssuer, "https://")
	_, named, _ := strings.Cut(arn, ":oidc-provider/")
	if named != issuer {
		f.errorf(at(field.NewPath("oidcProviderArn")), "%s is the OIDC provider of issuer %s, and cluster %s's issuer is %s: STS would refuse the controller's tokens; pass the cluster's own provider (pulumi-eks: cluster.oidcProviderArn, with createOidcProvider: true)", arn, named, c.Name, c.OIDCIssuer)
		return f
	}
	provider, err := r.OIDCProvider(arn)
	switch {
	case errors.Is(err, ErrNotFound):
		f.errorf(at(field.NewPath("oidcProviderArn")), "no IAM OIDC provider %s exists in this account: STS would refuse the controller's tokens; create the cluster's (pulumi-eks: createOidcProvider: true) and pass its ARN", arn)
	case err != nil:
		f.warnf(at(field.NewPath("oidcProviderArn")), "could not read %s (%v): not checked (the check needs iam:GetOpenIDConnectProvider)", arn, err)
	case !slices.Contains(provider.ClientIDs, catalog.IRSAAudience):
		f.errorf(at(field.NewPath("oidcProviderArn")), "%s does not list %s as a client ID (it lists %s): STS would refuse the controller's tokens; add it to the provider's clientIdLists", arn, catalog.IRSAAudience, listOrNone(provider.ClientIDs))
	}
	return f
}

// spotRequirement is the first requirement of a pool that lets Karpenter launch Spot, or -1.
// Without a capacity-type requirement Karpenter launches on-demand only.
func spotRequirement(reqs []inputs.Requirement) int {
	for i, r := range reqs {
		if r.Key != "karpenter.sh/capacity-type" {
			continue
		}
		switch r.Operator {
		case "In":
			if slices.Contains(r.Values, "spot") {
				return i
			}
		case "NotIn":
			if !slices.Contains(r.Values, "spot") {
				return i
			}
		case "Exists":
			return i
		}
	}
	return -1
}

// checkSpotRole: EC2 refuses every Spot launch in an account without AWSServiceRoleForEC2Spot,
// which Karpenter may not create.
func (p *Plan) checkSpotRole(r ClusterReader) (f Findings) {
	// Auto Mode launches through the cluster role, whose AmazonEKSComputePolicy lets EKS create
	// the role itself (iam:CreateServiceLinkedRole for spot.amazonaws.com; AWS Managed Policy
	// Reference, AmazonEKSComputePolicy): nothing to ask of the account.
	if p.SpotServiceLinkedRole || p.Release.IsAutoMode() {
		return f
	}
	var fields []*field.Path
	for i, pool := range p.Pools {
		if j := spotRequirement(pool.Requirements); j >= 0 {
			fields = append(fields, field.NewPath("nodePools").Index(i).Child("requirements").Index(j))
		}
	}
	if len(fields) == 0 {
		return f
	}
	exists, err := r.RoleExists(catalog.SpotServiceLinkedRole)
	switch {
	case err != nil:
		f.warnf(at(fields[0]), "allows Spot; could not read the %s service-linked role (%v): not checked (the check needs iam:GetRole)", catalog.SpotServiceLinkedRole, err)
	case !exists:
		also := ""
		if len(fields) > 1 {
			var rest []string
			for _, other := range fields[1:] {
				rest = append(rest, other.String())
			}
			also = " (as do " + strings.Join(rest, ", ") + ")"
		}
		f.errorf(at(fields[0]), "allows Spot%s, and this account has no %s service-linked role, without which EC2 refuses every Spot launch (Karpenter may not create it); set createSpotServiceLinkedRole: true, or create it once (aws iam create-service-linked-role --aws-service-name spot.amazonaws.com)", also, catalog.SpotServiceLinkedRole)
	}
	return f
}

func listOrNone(items []string) string {
	if len(items) == 0 {
		return "none"
	}
	return strings.Join(items, ", ")
}
