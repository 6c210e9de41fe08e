package provider_test

import (
	"strings"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/argstest"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/rendertest"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/render"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A misspelt key anywhere in the inputs fails the construct naming its path, and nothing is
// created; free-form maps (tags, values, kubelet additionalSettings) take any key.
func TestUnknownPropertiesFailNamingThePath(t *testing.T) {
	args := argstest.WithDefaults(t, `{
		"interuptionHandling": false,
		"tags": {"anything": "goes"},
		"values": {"settings": {"anyChartKey": true}},
		"nodePools": [{"name": "p", "disruption": {"consolidationPolicyy": "WhenEmpty", "budgets": [{"nodes": "1", "reason": ["Empty"]}]}}],
		"nodeClasses": [{"name": "c", "kubelet": {"maxPod": 10, "additionalSettings": {"containerLogMaxSize": "50Mi"}},
			"blockDeviceMappings": [{"deviceName": "/dev/xvda", "ebs": {"volumSize": "20Gi"}}], "Tags": {"a": "b"}}]
	}`)
	msg, mocks := renderRejected(t, args)
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
	assert.Empty(t, mocks.Registered, "nothing is registered, not even the component")

	// A key far from every property gets no suggestion.
	msg = rendertest.Error(t, argstest.WithDefaults(t, `{"somethingElse": 1}`))
	assert.Contains(t, msg, "somethingElse: unknown property")
	assert.NotContains(t, msg, "did you mean")
}

// A value of the wrong type anywhere fails naming its path (not only the top-level input the
// SDK's decoding would name), together with the other problems of the input; nothing is created.
func TestWrongTypesFailNamingThePath(t *testing.T) {
	args := argstest.WithDefaults(t, `{
		"interruptionHandling": "yes",
		"tags": {"team": 7},
		"values": {"settings": {"batchMaxDuration": 10}},
		"nodePools": [{"name": "p", "weight": "5", "limits": ["1000"], "requirements": [{"key": "k", "operator": "In", "values": "a"}]}],
		"nodeClasses": [{"name": "c", "kubelet": {"maxPods": 10.5, "additionalSettings": {"containerLogMaxFiles": 3}},
			"subnetSelectorTerms": [{"id": 12}], "detailedMonitoring": "true", "consolidationPolicyy": 1}]
	}`)
	msg, mocks := renderRejected(t, args)
	for _, want := range []string{
		`interruptionHandling: expected a boolean (true or false), got the string "yes"`,
		`tags["team"]: expected a string, got the number 7`,
		`nodePools[0].weight: expected an integer, got the string "5"`,
		`nodePools[0].limits: expected an object, got a list`,
		`nodePools[0].requirements[0].values: expected a list, got the string "a"`,
		`nodeClasses[0].kubelet.maxPods: expected an integer, got the number 10.5`,
		`nodeClasses[0].subnetSelectorTerms[0].id: expected a string, got the number 12`,
		`nodeClasses[0].detailedMonitoring: expected a boolean (true or false), got the string "true"`,
		`nodeClasses[0].consolidationPolicyy: unknown property`,
	} {
		assert.Contains(t, msg, want)
	}
	assert.Len(t, strings.Split(msg, "\n"), 9, "one line per problem: free-form values (chart values, additionalSettings) take any type")
	assert.Empty(t, mocks.Registered, "nothing is registered, not even the component")
}

// renderRejected renders args that must be rejected, and returns the message and what the
// mocks saw registered.
func renderRejected(t *testing.T, args string) (string, *render.Mocks) {
	t.Helper()
	parsed, err := rendertest.ParseArgs([]byte(args))
	require.NoError(t, err)
	mocks := &render.Mocks{}
	_, err = rendertest.RenderWith(t.Context(), parsed, mocks)
	require.Error(t, err)
	return err.Error(), mocks
}
