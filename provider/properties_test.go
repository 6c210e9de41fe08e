package provider

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A misspelt key anywhere in the inputs fails the construct naming its path, and nothing is
// created; free-form maps (tags, values, kubelet additionalSettings) take any key.
func TestUnknownPropertiesFailNamingThePath(t *testing.T) {
	args := withDefaults(t, `{
		"interuptionHandling": false,
		"tags": {"anything": "goes"},
		"values": {"settings": {"anyChartKey": true}},
		"nodePools": [{"name": "p", "disruption": {"consolidationPolicyy": "WhenEmpty", "budgets": [{"nodes": "1", "reason": ["Empty"]}]}}],
		"nodeClasses": [{"name": "c", "kubelet": {"maxPod": 10, "additionalSettings": {"containerLogMaxSize": "50Mi"}},
			"blockDeviceMappings": [{"deviceName": "/dev/xvda", "ebs": {"volumSize": "20Gi"}}], "Tags": {"a": "b"}}]
	}`)
	parsed, err := ParseRenderArgs([]byte(args))
	require.NoError(t, err)
	mocks := &renderMocks{}
	_, err = render(t.Context(), parsed, mocks)
	require.Error(t, err)
	msg := err.Error()
	for _, want := range []string{
		"interuptionHandling: unknown property (did you mean interruptionHandling?)",
		"nodePools[0].disruption.consolidationPolicyy: unknown property (did you mean consolidationPolicy?)",
		"nodePools[0].disruption.budgets[0].reason: unknown property (did you mean reasons?)",
		"nodeClasses[0].kubelet.maxPod: unknown property (did you mean maxPods?)",
		"nodeClasses[0].blockDeviceMappings[0].ebs.volumSize: unknown property (did you mean volumeSize?)",
		"nodeClasses[0].Tags: unknown property (did you mean tags?)",
	} {
		assert.Contains(t, msg, want)
	}
	for _, free := range []string{"anything", "anyChartKey", "containerLogMaxSize"} {
		assert.NotContains(t, msg, free, "free-form maps take any key")
	}
	assert.Empty(t, mocks.registered, "nothing is registered, not even the component")

	// A key far from every property gets no suggestion.
	msg = renderError(t, withDefaults(t, `{"somethingElse": 1}`))
	assert.Contains(t, msg, "somethingElse: unknown property")
	assert.NotContains(t, msg, "did you mean")
}
