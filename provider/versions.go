package provider

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/blang/semver"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// defaultVersion is the newest Karpenter release whose official artifacts (CloudFormation
// template, charts, CRDs) the project verifies.
const defaultVersion = "1.15.1"

// generation is one shape of a Karpenter install: the custom resource API, the chart's
// values keys, the controller policy family. Everything else that changed between releases
// is a feature with the version that introduced it (featureSince).
type generation struct {
	name        string
	from, until semver.Version // from inclusive, until exclusive

	nodePool, nodeClass apiKind
	policy              policyFamily
	values              valuesLayout
	// crdChart: the CRDs come from the karpenter-crd chart (v0.32+); before, the controller
	// chart installs them from its crds/ directory.
	crdChart         bool
	defaultNamespace string

	// Validation data for the custom resources.
	amiFamilies           []string // EC2NodeClass amiFamily / AWSNodeTemplate amiFamily
	consolidationPolicies []ConsolidationPolicy

	// autoMode: EKS runs Karpenter (mode autoMode); nil for the self-managed generations.
	autoMode *autoModeRules
}

// apiKind is the apiVersion and kind of a custom resource.
type apiKind struct {
	apiVersion, kind string
}

// token is the Pulumi type token of the kind's custom resources.
func (k apiKind) token() string {
	return "kubernetes:" + k.apiVersion + ":" + k.kind
}

func (k apiKind) group() string {
	group, _, _ := strings.Cut(k.apiVersion, "/")
	return group
}

// valuesLayout names the chart values a generation reads.
type valuesLayout struct {
	clusterName, clusterEndpoint, interruptionQueue string
	// defaultInstanceProfile is the pre-v0.32 setting naming the nodes' instance profile.
	defaultInstanceProfile string
}

var (
	alphaValues = valuesLayout{
		clusterName:            "settings.aws.clusterName",
		clusterEndpoint:        "settings.aws.clusterEndpoint",
		interruptionQueue:      "settings.aws.interruptionQueueName",
		defaultInstanceProfile: "settings.aws.defaultInstanceProfile",
	}
	settingsValues = valuesLayout{
		clusterName:       "settings.clusterName",
		clusterEndpoint:   "settings.clusterEndpoint",
		interruptionQueue: "settings.interruptionQueue",
	}
)

// generations lists the supported Karpenter generations, oldest first. Each follows the
// official getting-started template of its era (reference: cfn-v0.31, cfn-v0.37, cfn-v1.0,
// cfn-v1.8, cfn-v1.14).
var generations = []*generation{
	{
		// The Provisioner era: Provisioner and AWSNodeTemplate, global settings under
		// settings.aws, CRDs shipped in the chart, an instance profile per cluster.
		name: "v1alpha5", from: semver.MustParse("0.19.0"), until: semver.MustParse("0.32.0"),
		nodePool:              apiKind{"karpenter.sh/v1alpha5", "Provisioner"},
		nodeClass:             apiKind{"karpenter.k8s.aws/v1alpha1", "AWSNodeTemplate"},
		policy:                alphaPolicy,
		values:                alphaValues,
		crdChart:              false,
		defaultNamespace:      "karpenter",
		amiFamilies:           []string{"AL2", "Bottlerocket", "Ubuntu", "Windows2019", "Windows2022", "Custom"},
		consolidationPolicies: []ConsolidationPolicy{"WhenEmpty", "WhenEmptyOrUnderutilized"},
	},
	{
		// The beta APIs: NodePool and EC2NodeClass v1beta1.
		name: "v1beta1", from: semver.MustParse("0.32.0"), until: semver.MustParse("1.0.0"),
		nodePool:              apiKind{"karpenter.sh/v1beta1", "NodePool"},
		nodeClass:             apiKind{"karpenter.k8s.aws/v1beta1", "EC2NodeClass"},
		policy:                betaPolicy,
		values:                settingsValues,
		crdChart:              true,
		defaultNamespace:      "kube-system",
		amiFamilies:           []string{"AL2", "AL2023", "Bottlerocket", "Ubuntu", "Windows2019", "Windows2022", "Custom"},
		consolidationPolicies: []ConsolidationPolicy{"WhenEmpty", "WhenUnderutilized", "WhenEmptyOrUnderutilized"},
	},
	{
		name: "v1", from: semver.MustParse("1.0.0"), until: semver.MustParse("1.16.0"),
		nodePool:              apiKind{"karpenter.sh/v1", "NodePool"},
		nodeClass:             apiKind{"karpenter.k8s.aws/v1", "EC2NodeClass"},
		policy:                v1Policy,
		values:                settingsValues,
		crdChart:              true,
		defaultNamespace:      "kube-system",
		amiFamilies:           []string{"AL2", "AL2023", "Bottlerocket", "Custom", "Windows2019", "Windows2022", "Windows2025"},
		consolidationPolicies: []ConsolidationPolicy{"WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced"},
	},
}

// autoModeRules are what EKS Auto Mode serves and enforces where it differs from self-managed
// Karpenter (reference: eks-auto-mode/facts.md; section numbers below are its sections).
type autoModeRules struct {
	// features are the upstream features Auto Mode serves: on NodePools, the 2024-12 schema's
	// (upstream v1.1–v1.2 with EKS's changes) plus replicas (2025-11) and Balanced (2026-07)
	// (§4); on NodeClasses, capacity reservation terms (2025-06, §2). Anything else a pool
	// sets is refused, naming the field.
	features []feature
	// The component's default pool and class: named apart from EKS's built-in pools
	// (system, general-purpose) and its reconciled `default` NodeClass, and from a
	// self-managed install's `default` pool, which shares the NodePool CRD during a migration.
	defaultName         string
	defaultRequirements []Requirement
	defaultExpireAfter  string
	// The CRD's rule for eks.amazonaws.com classes: expireAfter + terminationGracePeriod at
	// most maxLifetime (terminationGracePeriod defaults to defaultTerminationGrace), and
	// expireAfter never Never (§4).
	maxLifetime, defaultTerminationGrace time.Duration
	budgetReasons                        []string
	// labelKeys: the eks.amazonaws.com keys pools may use (§5: documented, plus the ones the
	// schema admits); the rest of that domain, subdomains included, is restricted.
	labelKeys []string
	// unsupportedLabels: keys Auto Mode does not support, with what to do instead (§5).
	unsupportedLabels map[string]string
	// EKS owns these names (§2, §3).
	reservedPoolNames, reservedClassNames []string
	// The node role (§6) and its access entry (§7).
	nodePolicies    []managedPolicy
	accessEntryType string
	accessPolicy    string
}

// managedPolicy is an AWS managed policy attached to a role, with its child-name suffix.
type managedPolicy struct{ suffix, name string }

// autoModeGeneration is EKS Auto Mode as a generation of the catalog: there is no version to
// pick (AWS runs Karpenter), the NodePool API is upstream's v1, the node class is EKS's own.
var autoModeGeneration = &generation{
	name:                  "autoMode",
	nodePool:              apiKind{"karpenter.sh/v1", "NodePool"},
	nodeClass:             apiKind{"eks.amazonaws.com/v1", "NodeClass"},
	consolidationPolicies: []ConsolidationPolicy{"WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced"},
	autoMode: &autoModeRules{
		features: []feature{featureBudgets, featureMinValues, featureV1, featureStaticPools, featureBalanced,
			featureCapacityReservationTerms},
		defaultName: "auto-default",
		// The built-in pools' selection (§3): on-demand C, M and R of generation 5 or newer,
		// with the architecture pinned like the self-managed default.
		defaultRequirements: []Requirement{
			{Key: "kubernetes.io/arch", Operator: "In", Values: []string{"amd64"}},
			{Key: "karpenter.sh/capacity-type", Operator: "In", Values: []string{"on-demand"}},
			{Key: "eks.amazonaws.com/instance-category", Operator: "In", Values: []string{"c", "m", "r"}},
			{Key: "eks.amazonaws.com/instance-generation", Operator: "Gt", Values: []string{"4"}},
		},
		defaultExpireAfter:      "336h",
		maxLifetime:             504 * time.Hour,
		defaultTerminationGrace: 24 * time.Hour,
		budgetReasons:           []string{"Underutilized", "Empty", "Drifted", "NodeNotHealthy"},
		labelKeys: []string{
			"eks.amazonaws.com/compute-type", "eks.amazonaws.com/nodeclass",
			"eks.amazonaws.com/instance-hypervisor", "eks.amazonaws.com/instance-encryption-in-transit-supported",
			"eks.amazonaws.com/instance-category", "eks.amazonaws.com/instance-generation",
			"eks.amazonaws.com/instance-family", "eks.amazonaws.com/instance-size",
			"eks.amazonaws.com/instance-cpu", "eks.amazonaws.com/instance-cpu-manufacturer",
			"eks.amazonaws.com/instance-cpu-sustained-clock-speed-mhz", "eks.amazonaws.com/instance-memory",
			"eks.amazonaws.com/instance-ebs-bandwidth", "eks.amazonaws.com/instance-network-bandwidth",
			"eks.amazonaws.com/instance-gpu-name", "eks.amazonaws.com/instance-gpu-manufacturer",
			"eks.amazonaws.com/instance-gpu-count", "eks.amazonaws.com/instance-gpu-memory",
			"eks.amazonaws.com/instance-accelerator-name", "eks.amazonaws.com/instance-accelerator-manufacturer",
			"eks.amazonaws.com/instance-accelerator-count", "eks.amazonaws.com/instance-local-nvme",
			"eks.amazonaws.com/placement-group-id",
		},
		unsupportedLabels: map[string]string{
			"kubernetes.io/os":                 "Auto Mode runs Linux nodes only; drop the requirement",
			"node.kubernetes.io/windows-build": "Auto Mode runs Linux nodes only; drop the requirement",
		},
		reservedPoolNames:  []string{"system", "general-purpose"},
		reservedClassNames: []string{"default"},
		nodePolicies:       []managedPolicy{{"-node-minimal", "AmazonEKSWorkerNodeMinimalPolicy"}, {"-node-ecr", "AmazonEC2ContainerRegistryPullOnly"}},
		accessEntryType:    "EC2",
		accessPolicy:       "AmazonEKSAutoNodePolicy",
	},
}

// feature is something a Karpenter release added (or, for removals, still has).
type feature string

const (
	featureBudgets                  feature = "disruption budgets"
	featureMinValues                feature = "requirement minValues"
	featureV1                       feature = "the v1 APIs"
	featureCapacityReservations     feature = "capacity reservation permissions"
	featurePullOnlyECR              feature = "the AmazonEC2ContainerRegistryPullOnly node policy"
	featureGteLte                   feature = "the Gte and Lte requirement operators"
	featureListInstanceProfiles     feature = "iam:ListInstanceProfiles"
	featureSplitPolicy              feature = "the split controller policy"
	featureCapacityReservationRule  feature = "the capacity reservation interruption rule"
	featurePlacementGroups          feature = "placement group permissions"
	featureInstanceStatus           feature = "ec2:DescribeInstanceStatus"
	featureZonalShift               feature = "the zonal shift policy"
	featureBalanced                 feature = "the Balanced consolidation policy"
	featureWindows2025              feature = "the windows2025 AMI family"
	featureRebootInstances          feature = "ec2:RebootInstances (reboot for node repair)"
	featureUnhealthyBudgets         feature = "the Unhealthy disruption budget reason"
	featureEnclaveOptions           feature = "EC2NodeClass enclaveOptions"
	featureOpenKubelet              feature = "free-form EC2NodeClass kubelet settings"
	featureNodeClassRole            feature = "node classes with a role (Karpenter-managed instance profiles)"
	featureSSMParameter             feature = "AMI selection by SSM parameter"
	featureAssociatePublicIP        feature = "associatePublicIPAddress"
	featureInstanceStorePolicy      feature = "instanceStorePolicy"
	featureNodeClassProfile         feature = "EC2NodeClass instanceProfile"
	featureAL2023                   feature = "the AL2023 AMI family"
	featureRootVolume               feature = "rootVolume in block device mappings"
	featureContext                  feature = "the node class context field"
	featureCapacityReservationTerms feature = "EC2NodeClass capacityReservationSelectorTerms"
	featureVolumeInitializationRate feature = "EBS volumeInitializationRate"
	featureStaticPools              feature = "static NodePools (replicas)"
	featureInstanceMatchCriteria    feature = "capacity reservation instanceMatchCriteria"
	featureIPPrefixCount            feature = "EC2NodeClass ipPrefixCount"
	featurePlacementGroupSelector   feature = "EC2NodeClass placementGroupSelector"
	featureNetworkInterfaces        feature = "EC2NodeClass networkInterfaces"
	featureConnectionTracking       feature = "EC2NodeClass connectionTracking"
	featureCpuOptions               feature = "EC2NodeClass cpuOptions"
	// The 1.0 charts configure the v1beta1<->v1 conversion webhook; 1.1 removed those values.
	featureWebhookValuesRemoved feature = "charts without webhook values"
)

// featureSince is when each feature appeared: the first release whose official template, chart
// or CRDs have it (read from the karpenter-provider-aws, karpenter and karpenter-core module
// zips; where a release could not be downloaded, the next one that could).
var featureSince = map[feature]semver.Version{
	featureBudgets:                 semver.MustParse("0.34.0"),
	featureMinValues:               semver.MustParse("0.35.0"),
	featureV1:                      semver.MustParse("1.0.0"),
	featureCapacityReservations:    semver.MustParse("1.3.0"),
	featurePullOnlyECR:             semver.MustParse("1.4.0"),
	featureGteLte:                  semver.MustParse("1.9.0"),
	featureListInstanceProfiles:    semver.MustParse("1.7.0"),
	featureSplitPolicy:             semver.MustParse("1.9.0"),
	featureCapacityReservationRule: semver.MustParse("1.10.0"),
	featurePlacementGroups:         semver.MustParse("1.11.0"),
	featureInstanceStatus:          semver.MustParse("1.12.0"),
	featureZonalShift:              semver.MustParse("1.12.0"),
	featureBalanced:                semver.MustParse("1.14.0"),
	featureRebootInstances:         semver.MustParse("1.15.0"),
	featureUnhealthyBudgets:        semver.MustParse("1.15.0"),
	featureEnclaveOptions:          semver.MustParse("1.15.0"),
	featureOpenKubelet:             semver.MustParse("1.15.0"),
	featureWindows2025:             semver.MustParse("1.9.0"),
	featureNodeClassRole:           semver.MustParse("0.32.0"),
	featureNodeClassProfile:        semver.MustParse("0.32.2"),
	featureAL2023:                  semver.MustParse("0.35.0"),
	featureRootVolume:              semver.MustParse("0.32.0"),
	featureSSMParameter:            semver.MustParse("1.4.0"),
	featureAssociatePublicIP:       semver.MustParse("0.35.0"),
	featureInstanceStorePolicy:     semver.MustParse("0.34.0"),
	featureWebhookValuesRemoved:    semver.MustParse("1.1.0"),

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
	featureContext: semver.MustParse("0.29.2"),
	// 1.2.1 lacks it, 1.3.3 has it; native capacity reservation support is 1.3's feature
	// (Karpenter's docs), with its permissions (featureCapacityReservations, 1.3.0).
	featureCapacityReservationTerms: semver.MustParse("1.3.0"),
	featureVolumeInitializationRate: semver.MustParse("1.6.3"),
	// Core 1.7.1 lacks spec.replicas, core 1.8.0 has it (provider 1.8.x builds on core 1.8.x).
	featureStaticPools:           semver.MustParse("1.8.0"),
	featureInstanceMatchCriteria: semver.MustParse("1.8.6"),
	featureIPPrefixCount:         semver.MustParse("1.8.6"),
	// 1.9.3 lacks it, 1.12.1 has it; the placement group permissions the controller needs to
	// resolve the selector arrived in 1.11.0 (featurePlacementGroups), with the selector.
	featurePlacementGroupSelector: semver.MustParse("1.11.0"),
	featureNetworkInterfaces:      semver.MustParse("1.12.1"),
	featureConnectionTracking:     semver.MustParse("1.14.0"),
	featureCpuOptions:             semver.MustParse("1.14.0"),
}

// chartSettingsSince is when the controller chart first reads each of these values (read from
// charts/karpenter/values.yaml and templates of the karpenter-provider-aws module zips). Helm
// ignores values a chart does not read, so setting one for an older release would silently do
// nothing; validation refuses it instead. A path covers everything below it.
var chartSettingsSince = []struct {
	path  string
	since semver.Version
}{
	{"settings.awsFeatureGates", semver.MustParse("1.15.0")},
	{"settings.featureGates.terminateFirstDrift", semver.MustParse("1.15.0")},
	{"settings.featureGates.terminateFirstRepair", semver.MustParse("1.15.0")},
	{"settings.featureGates.podDeletionCostManagement", semver.MustParse("1.15.0")},
	{"settings.enableDRA", semver.MustParse("1.15.0")},
	{"settings.legacyNodeRepair", semver.MustParse("1.15.0")},
	{"settings.securityGroupRefreshInterval", semver.MustParse("1.15.0")},
}

// ignoreDRARequestsFalseSince: charts before 1.15 render settings.ignoreDRARequests with
// `with`, which drops an explicit false (the controller then keeps its default, true).
var ignoreDRARequestsFalseSince = semver.MustParse("1.15.0")

// release is a resolved version: its generation and the features it has.
type release struct {
	version semver.Version
	*generation
	// unverified: newer than every release the catalog knows, installed on request with the
	// newest generation's data (see lookupRelease).
	unverified bool
}

func (r release) has(f feature) bool {
	since, ok := featureSince[f]
	if !ok {
		panic("unknown feature " + string(f))
	}
	if r.autoMode != nil {
		return slices.Contains(r.autoMode.features, f)
	}
	return r.version.GTE(since)
}

// require reports a field the release cannot express, naming the first version that can.
func (r release) require(field string, set bool, f feature) error {
	if !set || r.has(f) {
		return nil
	}
	if r.autoMode != nil {
		return fmt.Errorf("%s: needs %s, which EKS Auto Mode does not serve (mode is autoMode)", field, f)
	}
	return fmt.Errorf("%s: needs %s, which Karpenter %s does not have (first in %s; version is %s)",
		field, f, r.version, featureSince[f], r.version)
}

// String names the release in messages: a Karpenter version, or EKS Auto Mode.
func (r release) String() string {
	if r.autoMode != nil {
		return "EKS Auto Mode"
	}
	return "Karpenter " + r.version.String()
}

// versionOutput is the release's version as an output: empty in Auto Mode.
func (r release) versionOutput() pulumi.StringOutput {
	if r.autoMode != nil {
		return pulumi.String("").ToStringOutput()
	}
	return pulumi.String(r.version.String()).ToStringOutput()
}

// autoModeRelease is EKS Auto Mode as a release: no version, Auto Mode's rules.
func autoModeRelease() release {
	return release{generation: autoModeGeneration}
}

// lookupRelease resolves a user-supplied version (with or without a leading "v").
//
// Newer patches of a known minor resolve like their minor. A newer minor (or any release past
// the catalog in the same major) is refused unless allowUnverified is set: then it installs
// with the newest generation's data — the IAM policy, chart values and CRD rules the project
// verified for the newest known release — and never with permissions nobody checked. A new
// major is refused either way: majors change the custom resource APIs.
func lookupRelease(version string, allowUnverified bool) (release, error) {
	v, err := semver.Parse(strings.TrimPrefix(version, "v"))
	if err != nil {
		return release{}, fmt.Errorf("version: %q is not a semantic version (e.g. %s); supported: %s",
			version, defaultVersion, supportedRangeText())
	}
	for _, g := range generations {
		if v.GTE(g.from) && v.LT(g.until) {
			return release{version: v, generation: g}, nil
		}
	}
	newest := generations[len(generations)-1]
	verified := semver.MustParse(defaultVersion)
	switch {
	case v.LT(generations[0].from):
		return release{}, fmt.Errorf("version: Karpenter %s is not supported; supported: %s", version, supportedRangeText())
	case v.Major != verified.Major:
		return release{}, fmt.Errorf("version: Karpenter %s is a new major version, which changes the custom resource APIs; this component supports %s (newest verified: %s). allowUnverifiedVersion covers newer %d.x releases only: upgrade the component",
			version, supportedRangeText(), verified, verified.Major)
	case !allowUnverified:
		return release{}, fmt.Errorf("version: Karpenter %s is newer than the newest release this component has verified (%s; supported: %s). Use %s, or set allowUnverifiedVersion: true to install %s with %d.%d's IAM policy, chart values and custom resource rules (read its upgrade guide; add any permission it needs with controllerPolicyStatements)",
			version, verified, supportedRangeText(), verified, version, verified.Major, verified.Minor)
	}
	return release{version: v, generation: newest, unverified: true}, nil
}

// unverifiedWarning is what a preview says when allowUnverifiedVersion installs a release
// the catalog does not know.
func (r release) unverifiedWarning() string {
	verified := semver.MustParse(defaultVersion)
	return fmt.Sprintf("Karpenter %s is newer than the newest release this component has verified (%s): installing it with %d.%d's IAM policy, chart values and custom resource rules (allowUnverifiedVersion). If %s needs a new permission or chart value, add it with controllerPolicyStatements or values, and upgrade the component when a release verifies %s.",
		r.version, verified, verified.Major, verified.Minor, r.version, r.version)
}

// supportedRangeText describes the catalog for error messages and docs.
func supportedRangeText() string {
	first, last := generations[0], generations[len(generations)-1]
	return fmt.Sprintf(">=%s <%s", first.from, last.until)
}

// kubernetesMinimum is the compatibility matrix of the Karpenter docs: the first Karpenter
// release that supports each Kubernetes minor version.
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

// checkKubernetesVersion fails when the Karpenter release does not support the cluster's
// Kubernetes version.
func checkKubernetesVersion(k8s string, r release) error {
	minor := strings.TrimPrefix(k8s, "v")
	if parts := strings.Split(minor, "."); len(parts) >= 2 {
		minor = parts[0] + "." + parts[1]
	}
	for _, row := range kubernetesMinimum {
		if row.kubernetes == minor {
			if r.version.LT(row.karpenter) {
				return fmt.Errorf("kubernetesVersion: Kubernetes %s needs Karpenter %s or later; version is %s", minor, row.karpenter, r.version)
			}
			return nil
		}
	}
	known := make([]string, 0, len(kubernetesMinimum))
	for _, row := range kubernetesMinimum {
		known = append(known, row.kubernetes)
	}
	return fmt.Errorf("kubernetesVersion: %q is not a Kubernetes version the compatibility matrix covers (%s)", k8s, strings.Join(known, ", "))
}
