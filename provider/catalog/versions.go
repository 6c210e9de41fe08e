package catalog

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"

	"github.com/blang/semver"
)

// PreviousAPIVersions are the earlier versions of the same kinds (same objects on the server).
var PreviousAPIVersions = map[ApiKind][]ApiKind{
	{"karpenter.sh/v1", "NodePool"}:          {{"karpenter.sh/v1beta1", "NodePool"}},
	{"karpenter.k8s.aws/v1", "EC2NodeClass"}: {{"karpenter.k8s.aws/v1beta1", "EC2NodeClass"}},
}

// DefaultVersion is the newest Karpenter release whose official artifacts (CloudFormation
// template, charts, CRDs) the project verifies.
const DefaultVersion = "1.15.2"

// Generation is one shape of a Karpenter install: the custom resource API, the chart's
// values keys, the controller policy family. Everything else that changed between releases
// is a feature with the version that introduced it (FeatureSince).
type Generation struct {
	Name        string
	from, until semver.Version // from inclusive, until exclusive

	NodePool, NodeClass ApiKind
	Policy              PolicyFamily
	Values              ValuesLayout
	// CrdChart: the CRDs come from the karpenter-crd chart (v0.32+); before, the controller
	// chart installs them from its crds/ directory.
	CrdChart         bool
	DefaultNamespace string
	// Crds are the CRDs the generation's karpenter-crd chart installs in all its releases (none
	// without the chart); CrdNames adds those later releases added.
	Crds []string
	// TemplateInstanceProfile is the instance profile the generation's template creates, with %s
	// for the cluster name ("" when it creates none: Karpenter makes them from node classes).
	TemplateInstanceProfile string

	// Validation data for the custom resources.
	AmiFamilies           []string // EC2NodeClass amiFamily / AWSNodeTemplate amiFamily
	ConsolidationPolicies []string

	// AutoMode: EKS runs Karpenter (mode autoMode); nil for the self-managed generations.
	AutoMode *AutoModeRules
}

// ApiKind is the apiVersion and kind of a custom resource.
type ApiKind struct {
	ApiVersion, Kind string
}

// Token is the Pulumi type token of the kind's custom resources.
func (k ApiKind) Token() string {
	return "kubernetes:" + k.ApiVersion + ":" + k.Kind
}

func (k ApiKind) Group() string {
	group, _, _ := strings.Cut(k.ApiVersion, "/")
	return group
}

// generations lists the supported Karpenter generations, oldest first. Each follows the
// official getting-started template of its era (reference: cfn-v0.31, cfn-v0.37, cfn-v1.0,
// cfn-v1.8, cfn-v1.14).
var generations = []*Generation{
	{
		// The Provisioner era: Provisioner and AWSNodeTemplate, global settings under
		// settings.aws, CRDs shipped in the chart, an instance profile per cluster.
		Name: "v1alpha5", from: semver.MustParse("0.19.0"), until: semver.MustParse("0.32.0"),
		NodePool:                ApiKind{"karpenter.sh/v1alpha5", "Provisioner"},
		NodeClass:               ApiKind{"karpenter.k8s.aws/v1alpha1", "AWSNodeTemplate"},
		Policy:                  alphaPolicy,
		Values:                  alphaValues,
		CrdChart:                false,
		DefaultNamespace:        "karpenter",
		TemplateInstanceProfile: preV032TemplateInstanceProfile,
		AmiFamilies:             []string{"AL2", "Bottlerocket", "Ubuntu", "Windows2019", "Windows2022", "Custom"},
		ConsolidationPolicies:   []string{"WhenEmpty", "WhenEmptyOrUnderutilized"},
	},
	{
		// The beta APIs: NodePool and EC2NodeClass v1beta1.
		Name: "v1beta1", from: semver.MustParse("0.32.0"), until: semver.MustParse("1.0.0"),
		NodePool:              ApiKind{"karpenter.sh/v1beta1", "NodePool"},
		NodeClass:             ApiKind{"karpenter.k8s.aws/v1beta1", "EC2NodeClass"},
		Policy:                betaPolicy,
		Values:                settingsValues,
		CrdChart:              true,
		DefaultNamespace:      "kube-system",
		Crds:                  []string{"ec2nodeclasses.karpenter.k8s.aws", "nodeclaims.karpenter.sh", "nodepools.karpenter.sh"},
		AmiFamilies:           []string{"AL2", "AL2023", "Bottlerocket", "Ubuntu", "Windows2019", "Windows2022", "Custom"},
		ConsolidationPolicies: []string{"WhenEmpty", "WhenUnderutilized", "WhenEmptyOrUnderutilized"},
	},
	{
		Name: "v1", from: semver.MustParse("1.0.0"), until: semver.MustParse("1.16.0"),
		NodePool:              ApiKind{"karpenter.sh/v1", "NodePool"},
		NodeClass:             ApiKind{"karpenter.k8s.aws/v1", "EC2NodeClass"},
		Policy:                v1Policy,
		Values:                settingsValues,
		CrdChart:              true,
		DefaultNamespace:      "kube-system",
		Crds:                  []string{"ec2nodeclasses.karpenter.k8s.aws", "nodeclaims.karpenter.sh", "nodepools.karpenter.sh"},
		AmiFamilies:           []string{"AL2", "AL2023", "Bottlerocket", "Custom", "Windows2019", "Windows2022", "Windows2025"},
		ConsolidationPolicies: []string{"WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced"},
	},
}

// Feature is something a Karpenter release added (or, for removals, still has).
type Feature string

const (
	FeatureBudgets                  Feature = "disruption budgets"
	FeatureMinValues                Feature = "requirement minValues"
	FeatureV1                       Feature = "the v1 APIs"
	FeatureCapacityReservations     Feature = "capacity reservation permissions"
	FeaturePullOnlyECR              Feature = "the AmazonEC2ContainerRegistryPullOnly node policy"
	FeatureGteLte                   Feature = "the Gte and Lte requirement operators"
	FeatureListInstanceProfiles     Feature = "iam:ListInstanceProfiles"
	FeatureSplitPolicy              Feature = "the split controller policy"
	FeatureCapacityReservationRule  Feature = "the capacity reservation interruption rule"
	FeatureNodeOverlays             Feature = "the NodeOverlay CRD"
	FeatureCapacityBuffers          Feature = "the CapacityBuffer CRD"
	FeaturePlacementGroups          Feature = "placement group permissions"
	FeatureInstanceStatus           Feature = "ec2:DescribeInstanceStatus"
	FeatureZonalShift               Feature = "the zonal shift policy"
	FeatureBalanced                 Feature = "the Balanced consolidation policy"
	FeatureWindows2025              Feature = "the windows2025 AMI family"
	FeatureRebootInstances          Feature = "ec2:RebootInstances (reboot for node repair)"
	FeatureUnhealthyBudgets         Feature = "the Unhealthy disruption budget reason"
	FeatureEnclaveOptions           Feature = "EC2NodeClass enclaveOptions"
	FeatureOpenKubelet              Feature = "free-form EC2NodeClass kubelet settings"
	FeatureNodeClassRole            Feature = "node classes with a role (Karpenter-managed instance profiles)"
	FeatureSSMParameter             Feature = "AMI selection by SSM parameter"
	FeatureAssociatePublicIP        Feature = "associatePublicIPAddress"
	FeatureInstanceStorePolicy      Feature = "instanceStorePolicy"
	FeatureNodeClassProfile         Feature = "EC2NodeClass instanceProfile"
	FeatureAL2023                   Feature = "the AL2023 AMI family"
	FeatureRootVolume               Feature = "rootVolume in block device mappings"
	FeatureContext                  Feature = "the node class context field"
	FeatureCapacityReservationTerms Feature = "EC2NodeClass capacityReservationSelectorTerms"
	FeatureVolumeInitializationRate Feature = "EBS volumeInitializationRate"
	FeatureStaticPools              Feature = "static NodePools (replicas)"
	FeatureInstanceMatchCriteria    Feature = "capacity reservation instanceMatchCriteria"
	FeatureIPPrefixCount            Feature = "EC2NodeClass ipPrefixCount"
	FeaturePlacementGroupSelector   Feature = "EC2NodeClass placementGroupSelector"
	FeatureNetworkInterfaces        Feature = "EC2NodeClass networkInterfaces"
	FeatureConnectionTracking       Feature = "EC2NodeClass connectionTracking"
	FeatureCpuOptions               Feature = "EC2NodeClass cpuOptions"
	// Nodes launched into a capacity reservation have capacity type `reserved` (with native
	// capacity reservation support, 1.3).
	FeatureReservedCapacity Feature = "the reserved capacity type"
	// Charts before 1.15 render settings.ignoreDRARequests with `with`, which drops an explicit
	// false (the controller then keeps its default, true).
	FeatureIgnoreDRARequestsFalse Feature = "an explicit settings.ignoreDRARequests false"
	// The 1.0 charts configure the v1beta1<->v1 conversion webhook; 1.1 removed those values.
	FeatureWebhookValuesRemoved Feature = "charts without webhook values"
	// A self-managed Karpenter beside EKS Auto Mode on one cluster (EKS User Guide, "Migrate from
	// Karpenter to EKS Auto Mode using kubectl", prerequisites: Karpenter v1.1 or later).
	FeatureBesideAutoMode Feature = "running beside EKS Auto Mode"
)

// AutoModeSharedCrds are the CRDs EKS Auto Mode's Karpenter and a self-managed one share, which
// AWS says not to update or modify while both run (EKS User Guide, "Migrate from Karpenter to EKS
// Auto Mode using kubectl").
var AutoModeSharedCrds = []string{"nodepools.karpenter.sh", "nodeclaims.karpenter.sh"}

// FeatureSince is when each feature appeared: the first release whose official template, chart
// or CRDs have it (read from the karpenter-provider-aws, karpenter and karpenter-core module
// zips; where a release could not be downloaded, the next one that could).
var FeatureSince = map[Feature]semver.Version{
	FeatureBudgets:                 semver.MustParse("0.34.0"),
	FeatureMinValues:               semver.MustParse("0.35.0"),
	FeatureV1:                      semver.MustParse("1.0.0"),
	FeatureCapacityReservations:    semver.MustParse("1.3.0"),
	FeaturePullOnlyECR:             semver.MustParse("1.4.0"),
	FeatureGteLte:                  semver.MustParse("1.9.0"),
	FeatureListInstanceProfiles:    semver.MustParse("1.7.0"),
	FeatureSplitPolicy:             semver.MustParse("1.9.0"),
	FeatureCapacityReservationRule: semver.MustParse("1.10.0"),
	// The karpenter-crd chart's CRDs (module zips): nodeoverlays is absent from 1.2.1's chart and
	// present from 1.8.2's (the proxy serves no release between; NodeOverlay came in as alpha with
	// 1.7.0); capacitybuffers is absent from 1.13.1's and present in 1.14.1's.
	FeatureNodeOverlays:           semver.MustParse("1.7.0"),
	FeatureCapacityBuffers:        semver.MustParse("1.14.0"),
	FeaturePlacementGroups:        semver.MustParse("1.11.0"),
	FeatureInstanceStatus:         semver.MustParse("1.12.0"),
	FeatureZonalShift:             semver.MustParse("1.12.0"),
	FeatureBalanced:               semver.MustParse("1.14.0"),
	FeatureRebootInstances:        semver.MustParse("1.15.0"),
	FeatureUnhealthyBudgets:       semver.MustParse("1.15.0"),
	FeatureEnclaveOptions:         semver.MustParse("1.15.0"),
	FeatureOpenKubelet:            semver.MustParse("1.15.0"),
	FeatureWindows2025:            semver.MustParse("1.9.0"),
	FeatureNodeClassRole:          semver.MustParse("0.32.0"),
	FeatureNodeClassProfile:       semver.MustParse("0.32.2"),
	FeatureAL2023:                 semver.MustParse("0.35.0"),
	FeatureRootVolume:             semver.MustParse("0.32.0"),
	FeatureSSMParameter:           semver.MustParse("1.4.0"),
	FeatureAssociatePublicIP:      semver.MustParse("0.35.0"),
	FeatureInstanceStorePolicy:    semver.MustParse("0.34.0"),
	FeatureWebhookValuesRemoved:   semver.MustParse("1.1.0"),
	FeatureBesideAutoMode:         semver.MustParse("1.1.0"),
	FeatureIgnoreDRARequestsFalse: semver.MustParse("1.15.0"),
	FeatureReservedCapacity:       semver.MustParse("1.3.0"),

	// NodePool and EC2NodeClass spec fields, from diffing the CRDs (pkg/apis/crds) of the module
	// zips the proxy serves: karpenter-provider-aws 0.36.2, 1.0.0, 1.0.8, 1.2.1, 1.3.3, 1.6.3,
	// 1.8.6, 1.9.3, 1.12.1, 1.14.0, 1.14.1, 1.15.0, 1.15.1 (it refuses 1.1.0-1.1.6, 1.2.0,
	// 1.3.0-1.3.2, 1.4.0-1.4.6, 1.5.0-1.5.6, 1.6.0-1.6.2, 1.7.0-1.7.6, 1.8.0-1.8.5, 1.9.0-1.9.2,
	// 1.10.0-1.10.6, 1.11.0-1.11.6, 1.12.0 and 1.13.0-1.13.6, the ones tried), the
	// NodePool CRD of sigs.k8s.io/karpenter 1.1.5, 1.5.5, 1.6.4, 1.7.0, 1.7.1, 1.8.0, 1.9.0,
	// and the AWSNodeTemplate of github.com/aws/karpenter 0.29.2 and 0.32.0 (nothing older is
	// served). Each is the first of those with the field, except where noted.
	//
	// context: AWSNodeTemplate 0.29.2 (the oldest served), EC2NodeClass v1beta1 and v1 since.
	FeatureContext: semver.MustParse("0.29.2"),
	// 1.2.1 lacks it, 1.3.3 has it; native capacity reservation support is 1.3's feature
	// (Karpenter's docs), with its permissions (FeatureCapacityReservations, 1.3.0).
	FeatureCapacityReservationTerms: semver.MustParse("1.3.0"),
	FeatureVolumeInitializationRate: semver.MustParse("1.6.3"),
	// Core 1.7.1 lacks spec.replicas, core 1.8.0 has it (provider 1.8.x builds on core 1.8.x).
	FeatureStaticPools:           semver.MustParse("1.8.0"),
	FeatureInstanceMatchCriteria: semver.MustParse("1.8.6"),
	FeatureIPPrefixCount:         semver.MustParse("1.8.6"),
	// 1.9.3 lacks it, 1.12.1 has it; the placement group permissions the controller needs to
	// resolve the selector arrived in 1.11.0 (FeaturePlacementGroups), with the selector.
	FeaturePlacementGroupSelector: semver.MustParse("1.11.0"),
	FeatureNetworkInterfaces:      semver.MustParse("1.12.1"),
	FeatureConnectionTracking:     semver.MustParse("1.14.0"),
	FeatureCpuOptions:             semver.MustParse("1.14.0"),
}

// Release is a resolved version: its generation and the features it has.
type Release struct {
	Version semver.Version
	*Generation
	// Unverified: newer than every release the catalog knows, installed on request with the
	// newest generation's data (see LookupRelease).
	Unverified bool
}

// IsAutoMode says whether EKS Auto Mode runs the release's Karpenter (mode autoMode): the one
// question every layer asks about who runs Karpenter.
func (r Release) IsAutoMode() bool { return r.Generation != nil && r.AutoMode != nil }

func (r Release) Has(f Feature) bool {
	since, ok := FeatureSince[f]
	if !ok {
		panic("unknown feature " + string(f))
	}
	if r.IsAutoMode() {
		return slices.Contains(r.AutoMode.features, f)
	}
	return r.Version.GTE(since)
}

// Require reports an input the release cannot express (set), naming the first version that can.
func (r Release) Require(path *field.Path, set bool, f Feature) error {
	if !set || r.Has(f) {
		return nil
	}
	return field.Invalid(path, r.Needs(f))
}

// Needs is what Require says of a feature the release does not have: "needs <feature>, which
// Karpenter <version> does not have (first in <since>; version is <version>)".
func (r Release) Needs(f Feature) string {
	if r.IsAutoMode() {
		return fmt.Sprintf("needs %s, which EKS Auto Mode does not serve (mode is autoMode)", f)
	}
	return fmt.Sprintf("needs %s, which Karpenter %s does not have (first in %s; version is %s)",
		f, r.Version, FeatureSince[f], r.Version)
}

// String names the release in messages: a Karpenter version, or EKS Auto Mode.
func (r Release) String() string {
	if r.IsAutoMode() {
		return "EKS Auto Mode"
	}
	return "Karpenter " + r.Version.String()
}

// AutoModeRelease is EKS Auto Mode as a release: no version, Auto Mode's rules.
func AutoModeRelease() Release {
	return Release{Generation: AutoModeGeneration}
}

// LTSLines are the minor releases Karpenter names Long-Term Support ("Every 6 months, a minor
// release is designated as a Long-Term Support (LTS) release", karpenter.sh Upgrading →
// Compatibility → Support Policy; the releases' GitHub titles carry "(LTS)"), each with the newest
// patch the project knows of (the module proxy's versions of github.com/aws/karpenter-provider-aws,
// 2026-11-28) and its end of support as the release notes give it. `version` may name a line: it
// installs that patch.
var LTSLines = []struct {
	Line, Newest, SupportedUntil string
}{
	{"1.9", "1.9.3", "2027-02"},
	{"1.14", "1.14.3", "2027-07"},
}

// ltsLine matches a version that names a minor line (e.g. "1.14"), not a release.
var ltsLine = regexp.MustCompile(`^v?(\d+\.\d+)$`)

// LTSLinesText lists the LTS lines for messages and docs.
func LTSLinesText() string {
	var out []string
	for _, l := range LTSLines {
		out = append(out, fmt.Sprintf("%s (%s, supported until %s)", l.Line, l.Newest, l.SupportedUntil))
	}
	return strings.Join(out, ", ")
}

// resolveLTSLine is the newest known patch of the LTS line version names, the version itself
// when it names a release, or a finding for a minor line that is not LTS.
func resolveLTSLine(version string) (string, error) {
	m := ltsLine.FindStringSubmatch(version)
	if m == nil {
		return version, nil
	}
	for _, l := range LTSLines {
		if l.Line == m[1] {
			return l.Newest, nil
		}
	}
	return "", field.Invalidf(field.NewPath("version"), "%q names a minor line, and only Karpenter's Long-Term Support lines resolve to their newest patch: %s; give a full version (e.g. %s)", version, LTSLinesText(), DefaultVersion)
}

// LookupRelease resolves a user-supplied version (with or without a leading "v"), or an LTS
// line (LTSLines) to its newest known patch.
//
// Newer patches of a known minor resolve like their minor. A newer minor (or any release past
// the catalog in the same major) is refused unless allowUnverified is set: then it installs
// with the newest generation's data — the IAM policy, chart values and CRD rules the project
// verified for the newest known release — and never with permissions nobody checked. A new
// major is refused either way: majors change the custom resource APIs.
func LookupRelease(version string, allowUnverified bool) (Release, error) {
	path := field.NewPath("version")
	version, err := resolveLTSLine(version)
	if err != nil {
		return Release{}, err
	}
	v, err := semver.Parse(strings.TrimPrefix(version, "v"))
	if err != nil {
		return Release{}, field.Invalidf(path, "%q is not a semantic version (e.g. %s); supported: %s",
			version, DefaultVersion, SupportedRangeText())
	}
	for _, g := range generations {
		if v.GTE(g.from) && v.LT(g.until) {
			return Release{Version: v, Generation: g}, nil
		}
	}
	newest := generations[len(generations)-1]
	verified := semver.MustParse(DefaultVersion)
	switch {
	case v.LT(generations[0].from):
		return Release{}, field.Invalidf(path, "Karpenter %s is not supported; supported: %s", version, SupportedRangeText())
	case v.Major != verified.Major:
		return Release{}, field.Invalidf(path, "Karpenter %s is a new major version, which changes the custom resource APIs; this component supports %s (newest verified: %s). allowUnverifiedVersion covers newer %d.x releases only: upgrade the component",
			version, SupportedRangeText(), verified, verified.Major)
	case !allowUnverified:
		return Release{}, field.Invalidf(path, "Karpenter %s is newer than the newest release this component has verified (%s; supported: %s). Use %s, or set allowUnverifiedVersion: true to install %s with %d.%d's IAM policy, chart values and custom resource rules (read its upgrade guide; add any permission it needs with controllerPolicyStatements)",
			version, verified, SupportedRangeText(), verified, version, verified.Major, verified.Minor)
	}
	return Release{Version: v, Generation: newest, Unverified: true}, nil
}

// UnverifiedWarning is what a preview says when allowUnverifiedVersion installs a release
// the catalog does not know.
func (r Release) UnverifiedWarning() string {
	verified := semver.MustParse(DefaultVersion)
	return fmt.Sprintf("Karpenter %s is newer than the newest release this component has verified (%s): installing it with %d.%d's IAM policy, chart values and custom resource rules (allowUnverifiedVersion). If %s needs a new permission or chart value, add it with controllerPolicyStatements or values, and upgrade the component when a release verifies %s.",
		r.Version, verified, verified.Major, verified.Minor, r.Version, r.Version)
}

// SupportedRangeText describes the catalog for error messages and docs.
func SupportedRangeText() string {
	first, last := generations[0], generations[len(generations)-1]
	return fmt.Sprintf(">=%s <%s", first.from, last.until)
}

// kubernetesMinimum is the compatibility matrix of the Karpenter docs: the first Karpenter
// release that supports each Kubernetes minor version (Karpenter docs, Upgrading →
// Compatibility, v1.14 — K8s 1.30 ≥0.37 … 1.36 ≥1.13 — and v1.15 for 1.37).
var kubernetesMinimum = []struct {
	kubernetes string
	karpenter  semver.Version
}{
	{"1.23", semver.MustParse("0.21.0")},
	{"1.24", semver.MustParse("0.21.0")},
	{"1.25", semver.MustParse("0.25.0")},
	{"1.26", semver.MustParse("0.28.0")},
	{"1.27", semver.MustParse("0.28.0")},
	{"1.28", semver.MustParse("0.31.0")},
	{"1.29", semver.MustParse("0.34.0")},
	{"1.30", semver.MustParse("0.37.0")},
	{"1.31", semver.MustParse("1.0.5")},
	{"1.32", semver.MustParse("1.2.0")},
	{"1.33", semver.MustParse("1.5.0")},
	{"1.34", semver.MustParse("1.6.0")},
	{"1.35", semver.MustParse("1.9.0")},
	{"1.36", semver.MustParse("1.13.0")},
	{"1.37", semver.MustParse("1.15.0")},
}

// KarpenterFor is the first Karpenter release that supports a Kubernetes version; known is false
// for a version the matrix does not cover.
func KarpenterFor(k8s string) (needs semver.Version, known bool) {
	minor := MinorOf(k8s)
	for _, row := range kubernetesMinimum {
		if row.kubernetes == minor {
			return row.karpenter, true
		}
	}
	return semver.Version{}, false
}

// kubernetesFloor is the oldest Kubernetes minor each Karpenter release runs on: MinK8sVersion in
// karpenter-provider-aws pkg/providers/version/version.go, which the controller checks the
// cluster against ("karpenter is not compatible with kubernetes version"), by the first tag that
// raised it: v0.31.0 1.23 (the first with the constant), v1.0.0 1.25, v1.5.0 1.26 (unchanged to
// v1.15.1). Releases before 0.31 state none. The matrix above gives the other end.
var kubernetesFloor = []struct {
	from       semver.Version
	kubernetes string
}{
	{semver.MustParse("0.31.0"), "1.23"},
	{semver.MustParse("1.0.0"), "1.25"},
	{semver.MustParse("1.5.0"), "1.26"},
}

// OldestKubernetes is the oldest Kubernetes minor the release runs on; known is false for a
// release that states none.
func (r Release) OldestKubernetes() (minor string, known bool) {
	for _, row := range kubernetesFloor {
		if !r.Version.LT(row.from) {
			minor, known = row.kubernetes, true
		}
	}
	return minor, known
}

// LastKarpenterBefore is the release line that raised the floor above a Kubernetes version: the
// releases before it (floorFrom) still run on k8s.
func LastKarpenterBefore(k8s string) (floorFrom semver.Version, ok bool) {
	for _, row := range kubernetesFloor {
		if compareMinor(MinorOf(k8s), row.kubernetes) < 0 {
			return row.from, true
		}
	}
	return semver.Version{}, false
}

// SupportsKubernetes says whether the release supports a Kubernetes version, and the first release
// that does; known is false for a version the matrix does not cover.
func (r Release) SupportsKubernetes(k8s string) (supported bool, needs semver.Version, known bool) {
	needs, known = KarpenterFor(k8s)
	return !known || !r.Version.LT(needs), needs, known
}

// MatrixRange is the Kubernetes versions the compatibility matrix covers, for messages.
func MatrixRange() string {
	return kubernetesMinimum[0].kubernetes + "–" + kubernetesMinimum[len(kubernetesMinimum)-1].kubernetes
}

// CheckKubernetesVersion fails when the Karpenter release does not support the cluster's
// Kubernetes version (the kubernetesVersion input).
func CheckKubernetesVersion(k8s string, r Release) error {
	path := field.NewPath("kubernetesVersion")
	minor := MinorOf(k8s)
	needs, known := KarpenterFor(minor)
	if !known {
		known := make([]string, 0, len(kubernetesMinimum))
		for _, row := range kubernetesMinimum {
			known = append(known, row.kubernetes)
		}
		return field.Invalidf(path, "%q is not a Kubernetes version the compatibility matrix covers (%s)", k8s, strings.Join(known, ", "))
	}
	if r.Version.LT(needs) {
		return field.Invalidf(path, "Kubernetes %s needs Karpenter %s or later; version is %s", minor, needs, r.Version)
	}
	if msg := r.TooOldKubernetes(minor, "kubernetesVersion"); msg != "" {
		return field.Invalid(path, msg)
	}
	return nil
}

// TooOldKubernetes says why the release does not run on Kubernetes k8s (of which: "the
// cluster's", ...), older than its floor, and what does; "" when it does.
func (r Release) TooOldKubernetes(k8s, of string) string {
	oldest, known := r.OldestKubernetes()
	if !known || compareMinor(MinorOf(k8s), oldest) >= 0 {
		return ""
	}
	until, _ := LastKarpenterBefore(k8s)
	return fmt.Sprintf("Karpenter %s runs on Kubernetes %s and later (the controller's MinK8sVersion), not on %s %s; upgrade the cluster to %s or later, or set version below %s", r.Version, oldest, of, MinorOf(k8s), oldest, until)
}

// LabelRequirement is a node selector requirement of the catalog's default pools.
type LabelRequirement struct {
	Key, Operator string
	Values        []string
}

// DefaultRequirements are the default pool's requirements (and any pool that sets none):
// Linux on amd64, on-demand, from the general-purpose, compute and memory families of
// generation 3 and later.
var DefaultRequirements = []LabelRequirement{
	{Key: "kubernetes.io/arch", Operator: "In", Values: []string{"amd64"}},
	{Key: "kubernetes.io/os", Operator: "In", Values: []string{"linux"}},
	{Key: "karpenter.sh/capacity-type", Operator: "In", Values: []string{"on-demand"}},
	{Key: "karpenter.k8s.aws/instance-category", Operator: "In", Values: []string{"c", "m", "r"}},
	{Key: "karpenter.k8s.aws/instance-generation", Operator: "Gt", Values: []string{"2"}},
}

// laterCrds are CRDs the karpenter-crd chart gained within a generation.
var laterCrds = []struct {
	name  string
	since Feature
}{
	{"nodeoverlays.karpenter.sh", FeatureNodeOverlays},
	{"capacitybuffers.autoscaling.x-k8s.io", FeatureCapacityBuffers},
}

// crdKinds are the kinds the CRDs serve (spec.names.kind), by CRD name.
var crdKinds = map[string]string{
	"ec2nodeclasses.karpenter.k8s.aws":     "EC2NodeClass",
	"nodeclaims.karpenter.sh":              "NodeClaim",
	"nodepools.karpenter.sh":               "NodePool",
	"nodeoverlays.karpenter.sh":            "NodeOverlay",
	"capacitybuffers.autoscaling.x-k8s.io": "CapacityBuffer",
}

// CrdGroupKind is the API group (spec.group: a CRD's name is <plural>.<group>) and the kind
// (spec.names.kind) of one of the CRDs CrdNames lists.
func CrdGroupKind(name string) (group, kind string) {
	_, group, _ = strings.Cut(name, ".")
	return group, crdKinds[name]
}

// CrdNames are the CRDs the release's karpenter-crd chart installs, sorted (none without the
// chart).
func (r Release) CrdNames() []string {
	if !r.CrdChart {
		return nil
	}
	names := slices.Clone(r.Crds)
	for _, crd := range laterCrds {
		if r.Has(crd.since) {
			names = append(names, crd.name)
		}
	}
	slices.Sort(names)
	return names
}
