package catalog_test

import (
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/rendertest"
	"github.com/stretchr/testify/assert"
)

// The NodePool and EC2NodeClass spec fields added to reach every field of the 1.15.1 CRDs:
// how they render, the CRD rules they are checked against, and (in versions_test.go) the
// first version that has each.

func TestSpecFieldsRender(t *testing.T) {
	r := renderVersion(t, "1.15.1", `{
		"nodePools": [{"name": "static", "replicas": 3, "limits": {"nodes": "5"}}],
		"nodeClasses": [{"name": "c",
			"capacityReservationSelectorTerms": [{"id": "cr-0123456789abcdef0"}, {"tags": {"team": "ml"}, "ownerID": "123456789012", "instanceMatchCriteria": "targeted"}],
			"placementGroupSelector": {"name": "training"},
			"networkInterfaces": [{"networkCardIndex": 0, "deviceIndex": 0, "interfaceType": "interface"}, {"networkCardIndex": 1, "deviceIndex": 0, "interfaceType": "efa-only"}],
			"ipPrefixCount": 2,
			"connectionTracking": {"tcpEstablishedTimeout": 3600, "udpStreamTimeout": 120, "udpTimeout": 30},
			"cpuOptions": {"nestedVirtualization": "enabled"},
			"context": "c-0123",
			"blockDeviceMappings": [{"deviceName": "/dev/xvdb", "ebs": {"snapshotId": "snap-0123", "volumeInitializationRate": 200}}]}]
	}`)
	class := r.Get("karpenter-nodeclass-c").Inputs["spec"].(map[string]any)
	assert.Equal(t, []any{
		map[string]any{"id": "cr-0123456789abcdef0"},
		map[string]any{"tags": map[string]any{"team": "ml"}, "ownerID": "123456789012", "instanceMatchCriteria": "targeted"},
	}, class["capacityReservationSelectorTerms"])
	assert.Equal(t, map[string]any{"name": "training"}, class["placementGroupSelector"])
	assert.Equal(t, []any{
		map[string]any{"networkCardIndex": float64(0), "deviceIndex": float64(0), "interfaceType": "interface"},
		map[string]any{"networkCardIndex": float64(1), "deviceIndex": float64(0), "interfaceType": "efa-only"},
	}, class["networkInterfaces"])
	assert.Equal(t, float64(2), class["ipPrefixCount"])
	assert.Equal(t, map[string]any{"tcpEstablishedTimeout": float64(3600), "udpStreamTimeout": float64(120), "udpTimeout": float64(30)}, class["connectionTracking"])
	assert.Equal(t, map[string]any{"nestedVirtualization": "enabled"}, class["cpuOptions"])
	assert.Equal(t, "c-0123", class["context"])
	assert.Equal(t, map[string]any{"snapshotID": "snap-0123", "volumeInitializationRate": float64(200)}, rendertest.Dig(class, "blockDeviceMappings").([]any)[0].(map[string]any)["ebs"])

	pool := r.Get("karpenter-nodepool-static").Inputs["spec"].(map[string]any)
	assert.Equal(t, float64(3), pool["replicas"])
	assert.Equal(t, map[string]any{"nodes": "5"}, pool["limits"])
	assert.NotContains(t, pool, "weight")

	// An id may be another resource's output; render shows it resolved.
	r = renderVersion(t, "1.15.1", `{"nodeClasses": [{"name": "c", "placementGroupSelector": {"id": "pg-0123456789abcdef0"}}]}`)
	assert.Equal(t, map[string]any{"id": "pg-0123456789abcdef0"}, rendertest.Dig(r.Get("karpenter-nodeclass-c").Inputs, "spec", "placementGroupSelector"))
}

// context is the one new field older generations have: EC2NodeClass v1beta1 and the
// Provisioner era's AWSNodeTemplate.
func TestContextInEveryGeneration(t *testing.T) {
	for _, version := range []string{"0.31.4", "0.37.7", "1.0.8", "1.15.1"} {
		r := renderVersion(t, version, `{"nodeClasses": [{"name": "c", "context": "c-0123"}]}`)
		assert.Equal(t, "c-0123", rendertest.Dig(r.Get("karpenter-nodeclass-c").Inputs, "spec", "context"), version)
	}
}
