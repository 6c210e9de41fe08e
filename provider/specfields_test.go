package provider

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/inputs"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	class := r.get("karpenter-nodeclass-c").Inputs["spec"].(map[string]any)
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
	assert.Equal(t, map[string]any{"snapshotID": "snap-0123", "volumeInitializationRate": float64(200)}, dig(class, "blockDeviceMappings").([]any)[0].(map[string]any)["ebs"])

	pool := r.get("karpenter-nodepool-static").Inputs["spec"].(map[string]any)
	assert.Equal(t, float64(3), pool["replicas"])
	assert.Equal(t, map[string]any{"nodes": "5"}, pool["limits"])
	assert.NotContains(t, pool, "weight")

	// An id may be another resource's output; render shows it resolved.
	r = renderVersion(t, "1.15.1", `{"nodeClasses": [{"name": "c", "placementGroupSelector": {"id": "pg-0123456789abcdef0"}}]}`)
	assert.Equal(t, map[string]any{"id": "pg-0123456789abcdef0"}, dig(r.get("karpenter-nodeclass-c").Inputs, "spec", "placementGroupSelector"))
}

// context is the one new field older generations have: EC2NodeClass v1beta1 and the
// Provisioner era's AWSNodeTemplate.
func TestContextInEveryGeneration(t *testing.T) {
	for _, version := range []string{"0.31.4", "0.37.7", "1.0.8", "1.15.1"} {
		r := renderVersion(t, version, `{"nodeClasses": [{"name": "c", "context": "c-0123"}]}`)
		assert.Equal(t, "c-0123", dig(r.get("karpenter-nodeclass-c").Inputs, "spec", "context"), version)
	}
}

// The registry docs (the README links there) list every NodePool and NodeClass field: each
// top-level field has a row of its kind's table, which names every field below it.
func TestDocsListEveryPoolAndClassField(t *testing.T) {
	for _, doc := range []string{"../docs/installation-configuration.md"} {
		b, err := os.ReadFile(doc)
		require.NoError(t, err)
		text := string(b)
		start := strings.Index(text, "### NodePool and NodeClass fields")
		require.GreaterOrEqual(t, start, 0, "%s: no NodePool and NodeClass fields section", doc)
		section := text[start:]
		if end := strings.Index(section[1:], "\n#"); end >= 0 {
			section = section[:end+1]
		}
		for kind, typ := range map[string]reflect.Type{"NodePool": reflect.TypeFor[inputs.NodePoolSpec](), "NodeClass": reflect.TypeFor[inputs.NodeClassSpec]()} {
			rows := map[string]string{} // top-level field -> its row
			table := section[strings.Index(section, "| "+kind+" field |"):]
			for _, line := range strings.Split(table, "\n") {
				if !strings.HasPrefix(line, "| `") {
					if len(rows) > 0 {
						break
					}
					continue
				}
				first := strings.SplitN(line, "|", 3)[1]
				for _, name := range regexp.MustCompile("`([A-Za-z]+)`").FindAllStringSubmatch(first, -1) {
					rows[name[1]] = line
				}
			}
			for name, field := range inputs.DeclaredProperties(typ) {
				row, ok := rows[name]
				if !assert.True(t, ok, "%s: the %s table has no row for %s", doc, kind, name) {
					continue
				}
				for _, nested := range nestedPropertyNames(field) {
					assert.Regexp(t, `\b`+nested+`\b`, row, "%s: the %s row of %s does not name %s", doc, name, kind, nested)
				}
			}
		}
	}
}

// nestedPropertyNames are the property names of a struct type (through slices and pointers)
// and of the structs below it.
func nestedPropertyNames(t reflect.Type) []string {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var out []string
	for name, field := range inputs.DeclaredProperties(t) {
		out = append(out, name)
		out = append(out, nestedPropertyNames(field)...)
	}
	return out
}
