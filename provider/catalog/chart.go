package catalog

import (
	"strings"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"

	"github.com/blang/semver"
)

// ValuesLayout names the chart values a generation reads.
type ValuesLayout struct {
	ClusterName, ClusterEndpoint, InterruptionQueue string
	// DefaultInstanceProfile is the pre-v0.32 setting naming the nodes' instance profile.
	DefaultInstanceProfile string
}

var (
	alphaValues = ValuesLayout{
		ClusterName:            "settings.aws.clusterName",
		ClusterEndpoint:        "settings.aws.clusterEndpoint",
		InterruptionQueue:      "settings.aws.interruptionQueueName",
		DefaultInstanceProfile: "settings.aws.defaultInstanceProfile",
	}
	settingsValues = ValuesLayout{
		ClusterName:       "settings.clusterName",
		ClusterEndpoint:   "settings.clusterEndpoint",
		InterruptionQueue: "settings.interruptionQueue",
	}
)

// ChartSettingsSince is when the controller chart first reads each of these values (read from
// charts/karpenter/values.yaml and templates of the karpenter-provider-aws module zips). Helm
// ignores values a chart does not read, so setting one for an older release would silently do
// nothing; validation refuses it instead. A path covers everything below it.
var ChartSettingsSince = []ChartSetting{
	{"settings.awsFeatureGates", semver.MustParse("1.15.0")},
	{"settings.featureGates.terminateFirstDrift", semver.MustParse("1.15.0")},
	{"settings.featureGates.terminateFirstRepair", semver.MustParse("1.15.0")},
	{"settings.featureGates.podDeletionCostManagement", semver.MustParse("1.15.0")},
	{"settings.enableDRA", semver.MustParse("1.15.0")},
	{"settings.legacyNodeRepair", semver.MustParse("1.15.0")},
	{"settings.securityGroupRefreshInterval", semver.MustParse("1.15.0")},
}

// ChartSetting is a chart value (a dotted path) and the first release whose chart reads it.
type ChartSetting struct {
	Path  string
	Since semver.Version
}

// UnreadChartSettings are the settings of ChartSettingsSince the release's controller chart
// does not read yet.
func (r Release) UnreadChartSettings() []ChartSetting {
	var out []ChartSetting
	for _, s := range ChartSettingsSince {
		if !r.IsAutoMode() && r.Version.LT(s.Since) {
			out = append(out, s)
		}
	}
	return out
}

// Chart values the component sets in every generation.
const (
	ServiceAccountNameValue  = "serviceAccount.name"
	ServiceAccountAnnotation = "serviceAccount.annotations"
	RoleArnAnnotation        = "eks.amazonaws.com/role-arn"
	ImageRepositoryValue     = "controller.image.repository"
)

// OwnedValue is a chart value the component sets from one of its inputs.
type OwnedValue struct {
	Path  []string // keys from the top (a key may hold dots: an annotation)
	Input string   // the component input that sets it
}

// Owned is a dotted values path the component sets from input.
func Owned(path, input string) OwnedValue {
	return OwnedValue{Path: strings.Split(path, "."), Input: input}
}

// ValuesPath is the value's input path: values.serviceAccount.annotations["eks.amazonaws.com/role-arn"]
// (a key holding dots is quoted).
func (o OwnedValue) ValuesPath() *field.Path {
	p := field.NewPath("values")
	for _, key := range o.Path {
		if strings.Contains(key, ".") {
			p = p.Key(key)
		} else {
			p = p.Child(key)
		}
	}
	return p
}

// String is the path as a message names it (ValuesPath).
func (o OwnedValue) String() string {
	return o.ValuesPath().String()
}
