package catalog

import (
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLookupRelease(t *testing.T) {
	for version, generation := range map[string]string{"0.19.0": "v1alpha5", "v0.37.0": "v1beta1", "1.0.0": "v1", "1.15.1": "v1", "1.15.9": "v1"} {
		rel, err := LookupRelease(version, false)
		require.NoError(t, err, version)
		assert.Equal(t, generation, rel.Name, version)
		assert.False(t, rel.Unverified, "%s: a newer patch of a verified minor needs no opt-in", version)
	}
	for version, want := range map[string]string{
		"1.16.0": "set allowUnverifiedVersion: true",
		"2.0.0":  "is a new major version",
		"0.18.0": "is not supported",
		"latest": "is not a semantic version",
	} {
		_, err := LookupRelease(version, false)
		assert.ErrorContains(t, err, want, version)
	}
	rel, err := LookupRelease("1.16.0", true)
	require.NoError(t, err)
	assert.True(t, rel.Unverified)
	assert.Equal(t, "v1", rel.Name, "installed with the newest generation's data")
	_, err = LookupRelease("2.0.0", true)
	assert.ErrorContains(t, err, "new major version", "allowUnverifiedVersion never covers a new major")
}

func TestFeaturesBySinceAndAutoMode(t *testing.T) {
	v114, err := LookupRelease("1.14.1", false)
	require.NoError(t, err)
	assert.True(t, v114.Has(FeatureBalanced))
	assert.False(t, v114.Has(FeatureRebootInstances))
	assert.NoError(t, v114.Require(field.NewPath("x"), false, FeatureOpenKubelet), "an unset field needs nothing")
	assert.EqualError(t, v114.Require(field.NewPath("nodeClasses").Index(0).Child("kubelet", "additionalSettings"), true, FeatureOpenKubelet),
		"nodeClasses[0].kubelet.additionalSettings: needs free-form EC2NodeClass kubelet settings, which Karpenter 1.14.1 does not have (first in 1.15.0; version is 1.14.1)")

	auto := AutoModeRelease()
	assert.True(t, auto.Has(FeatureStaticPools))
	assert.False(t, auto.Has(FeatureOpenKubelet))
	assert.EqualError(t, auto.Require(field.NewPath("spec", "kubelet"), true, FeatureOpenKubelet),
		"spec.kubelet: needs free-form EC2NodeClass kubelet settings, which EKS Auto Mode does not serve (mode is autoMode)")
	assert.Panics(t, func() { v114.Has("no such feature") })
}

func TestUnreadChartSettings(t *testing.T) {
	v114, err := LookupRelease("1.14.1", false)
	require.NoError(t, err)
	var paths []string
	for _, s := range v114.UnreadChartSettings() {
		paths = append(paths, s.Path)
	}
	assert.Contains(t, paths, "settings.enableDRA")
	v115, err := LookupRelease("1.15.1", false)
	require.NoError(t, err)
	assert.Empty(t, v115.UnreadChartSettings())
	assert.Empty(t, AutoModeRelease().UnreadChartSettings(), "Auto Mode has no chart")
}

// The controller policy is one managed policy until the release splits it (1.9), as each
// release's template has it.
func TestControllerPolicyLayout(t *testing.T) {
	scope := PolicyScope{AwsScope: AwsScope{Partition: "aws", DNSSuffix: "amazonaws.com", Region: "us-west-2", Account: "123456789012"},
		Cluster: "demo", NodeRoleArns: []string{"arn:aws:iam::123456789012:role/node"}, QueueArn: "arn:aws:sqs:us-west-2:123456789012:q"}
	keys := func(version string) []string {
		rel, err := LookupRelease(version, false)
		require.NoError(t, err)
		var out []string
		for _, p := range LayoutControllerPolicies(rel, scope) {
			out = append(out, p.Key)
		}
		return out
	}
	assert.Equal(t, []string{"policy"}, keys("1.8.6"))
	assert.Equal(t, []string{"node-lifecycle", "iam-integration", "eks-integration", "interruption", "resource-discovery", "zonal-shift"}, keys("1.15.1"))
}

// An LTS line resolves to its newest known patch; another minor line is not a version.
func TestLTSLinesResolveToTheirNewestPatch(t *testing.T) {
	for line, want := range map[string]string{"1.14": "1.14.3", "v1.9": "1.9.3"} {
		r, err := LookupRelease(line, false)
		require.NoError(t, err, line)
		assert.Equal(t, want, r.Version.String(), line)
	}
	r, err := LookupRelease("1.14.1", false)
	require.NoError(t, err)
	assert.Equal(t, "1.14.1", r.Version.String(), "a release names itself")
	_, err = LookupRelease("1.13", false)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `version: "1.13" names a minor line, and only Karpenter's Long-Term Support lines resolve to their newest patch: 1.9 (1.9.3, supported until 2027-02), 1.14 (1.14.3, supported until 2027-07)`)
}
