package catalog_test

import (
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/argstest"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/rendertest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Karpenter 1.15: the default release, the fields it added, and the chart values it reads.

func TestDefaultVersionIs115(t *testing.T) {
	r := rendertest.Default(t)
	assert.Equal(t, "1.15.2", r.Outputs["version"])
	assert.Equal(t, "1.15.2", r.Get("karpenter-release").Inputs["version"])
	assert.Equal(t, "1.15.2", r.Get("karpenter-crd-release").Inputs["version"])
}

func TestV115FieldsRender(t *testing.T) {
	r := renderVersion(t, "1.15.1", `{
		"nodePools": [{"name": "p", "disruption": {"budgets": [{"nodes": "1", "reasons": ["Unhealthy"]}]}}],
		"nodeClasses": [{"name": "c", "enclaveOptions": {"enabled": true},
			"kubelet": {"maxPods": 50, "additionalSettings": {"containerLogMaxSize": "50Mi", "shutdownGracePeriod": "30s", "allowedUnsafeSysctls": ["net.core.somaxconn"]}}}]
	}`)
	spec := r.Get("karpenter-nodeclass-c").Inputs["spec"].(map[string]any)
	assert.Equal(t, map[string]any{"enabled": true}, spec["enclaveOptions"])
	assert.Equal(t, map[string]any{
		"maxPods": float64(50), "containerLogMaxSize": "50Mi", "shutdownGracePeriod": "30s",
		"allowedUnsafeSysctls": []any{"net.core.somaxconn"},
	}, spec["kubelet"])
	budgets := rendertest.Dig(r.Get("karpenter-nodepool-p").Inputs, "spec", "disruption", "budgets").([]any)
	assert.Equal(t, []any{"Unhealthy"}, budgets[0].(map[string]any)["reasons"])
}

func TestChartValuesOfV115(t *testing.T) {
	// Accepted on 1.15 and passed through to the chart.
	values := `{"values":{"settings":{"featureGates":{"nodeRepair":true,"terminateFirstDrift":true},"awsFeatureGates":{"rebootForRepair":true},"enableDRA":true,"securityGroupRefreshInterval":"5m"}}}`
	r := renderVersion(t, "1.15.1", values)
	settings := rendertest.Dig(r.Get("karpenter-release").Inputs, "values", "settings").(map[string]any)
	assert.Equal(t, true, rendertest.Dig(settings, "awsFeatureGates", "rebootForRepair"))
	assert.Equal(t, "5m", settings["securityGroupRefreshInterval"])

	for _, tc := range []struct{ version, values, want string }{
		{"1.14.1", `{"settings":{"awsFeatureGates":{"rebootForRepair":true}}}`, "values.settings.awsFeatureGates: the karpenter chart of 1.14.1 does not read it, so Helm would ignore it (first in 1.15.0"},
		{"1.14.3", `{"settings":{"featureGates":{"terminateFirstDrift":true}}}`, "values.settings.featureGates.terminateFirstDrift: the karpenter chart of 1.14.3 does not read it"},
		{"1.8.6", `{"settings":{"legacyNodeRepair":true}}`, "values.settings.legacyNodeRepair: the karpenter chart of 1.8.6 does not read it"},
		{"1.14.1", `{"settings":{"enableDRA":true}}`, "values.settings.enableDRA: the karpenter chart of 1.14.1 does not read it"},
		{"1.14.1", `{"settings":{"securityGroupRefreshInterval":"5m"}}`, "values.settings.securityGroupRefreshInterval: the karpenter chart of 1.14.1 does not read it"},
		{"1.14.1", `{"settings":{"ignoreDRARequests":false}}`, "values.settings.ignoreDRARequests: the karpenter chart of 1.14.1 drops an explicit false"},
		{"1.15.1", `{"settings":{"enableDRA":true,"ignoreDRARequests":true}}`, "values.settings.enableDRA: mutually exclusive with values.settings.ignoreDRARequests"},
		{"1.15.1", `{"settings":{"enableDRA":true,"awsFeatureGates":{"draEFA":false}}}`, "values.settings.enableDRA: mutually exclusive with values.settings.awsFeatureGates.draEFA"},
		{"1.15.1", `{"settings":{"legacyNodeRepair":true,"featureGates":{"terminateFirstRepair":true}}}`, "values.settings.legacyNodeRepair: cannot be combined with values.settings.featureGates.terminateFirstRepair"},
		{"1.15.1", `{"settings":{"securityGroupRefreshInterval":"30s"}}`, `values.settings.securityGroupRefreshInterval: "30s" is not a duration of at least 1m`},
		{"1.15.1", `{"settings":{"securityGroupRefreshInterval":60}}`, `values.settings.securityGroupRefreshInterval: "60" is not a duration`},
	} {
		t.Run(tc.version+" "+tc.values, func(t *testing.T) {
			assert.Contains(t, rendertest.Error(t, argstest.WithDefaults(t, `{"version":"`+tc.version+`","values":`+tc.values+`}`)), tc.want)
		})
	}
	// What the chart accepts stays accepted: a null clears a key; false DRA gates without enableDRA.
	renderVersion(t, "1.15.1", `{"values":{"settings":{"enableDRA":true,"ignoreDRARequests":null}}}`)
	renderVersion(t, "1.15.1", `{"values":{"settings":{"ignoreDRARequests":false,"awsFeatureGates":{"draEFA":true}}}}`)
	renderVersion(t, "1.14.1", `{"values":{"settings":{"ignoreDRARequests":true,"featureGates":{"nodeRepair":true}}}}`)
}

// A newer minor than the catalog knows fails naming the newest verified release and the
// opt-in; with the opt-in it installs with the newest generation's policy and a warning.
func TestVersionPolicy(t *testing.T) {
	msg := rendertest.Error(t, argstest.WithDefaults(t, `{"version":"1.16.0"}`))
	assert.Contains(t, msg, "version: Karpenter 1.16.0 is newer than the newest release this component has verified (1.15.2")
	assert.Contains(t, msg, "allowUnverifiedVersion: true")

	newer := renderVersion(t, "1.16.0", `{"allowUnverifiedVersion":true}`)
	assert.Equal(t, "1.16.0", newer.Outputs["version"])
	assert.Equal(t, "1.16.0", newer.Get("karpenter-release").Inputs["version"])
	assert.Equal(t, policiesOf(renderVersion(t, "1.15.2")), policiesOf(newer), "the newest verified release's policies, nothing more")

	// Newer patches of a known minor need no opt-in.
	assert.Equal(t, "1.15.9", renderVersion(t, "1.15.9").Outputs["version"])
	// A new major changes the APIs: refused even with the opt-in.
	assert.Contains(t, rendertest.Error(t, argstest.WithDefaults(t, `{"version":"2.0.0","allowUnverifiedVersion":true}`)),
		"version: Karpenter 2.0.0 is a new major version")

	rel, err := catalog.LookupRelease("1.17.2", true)
	require.NoError(t, err)
	assert.True(t, rel.Unverified)
	assert.Contains(t, rel.UnverifiedWarning(), "Karpenter 1.17.2 is newer than the newest release this component has verified (1.15.2): installing it with 1.15's IAM policy")
	rel, err = catalog.LookupRelease("1.15.1", true)
	require.NoError(t, err)
	assert.False(t, rel.Unverified, "the opt-in changes nothing for a known release")
}

// The opt-in shows on every preview: the engine receives a warning on the component.
func TestUnverifiedVersionWarnsOnTheComponent(t *testing.T) {
	warnings := rendertest.Warnings(t, argstest.WithDefaults(t, `{"version":"1.16.0","allowUnverifiedVersion":true}`))
	require.Len(t, warnings, 1)
	assert.Contains(t, warnings[0], "version: Karpenter 1.16.0 is newer than the newest release this component has verified (1.15.2)")
}
