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

func TestSpecFieldRules(t *testing.T) {
	pool := func(fields string) string { return `{"nodePools":[{"name":"p"` + fields + `}]}` }
	class := func(fields string) string { return `{"nodeClasses":[{"name":"c"` + fields + `}]}` }
	for _, tc := range []struct {
		name, args string
		want       []string
	}{
		// Static pools: the CRD's CEL rules, and the settings Karpenter would ignore.
		{"negative replicas", pool(`,"replicas":-1`), []string{"nodePools[0].replicas: -1 is less than 0"}},
		{"static pool limits", pool(`,"replicas":2,"limits":{"cpu":"10","nodes":"3"}`), []string{`nodePools[0].limits["cpu"]: a static pool (replicas set) takes only the nodes limit`}},
		{"static pool weight", pool(`,"replicas":2,"weight":10`), []string{"nodePools[0].weight: not supported on a static pool"}},
		{"static pool consolidation", pool(`,"replicas":2,"disruption":{"consolidationPolicy":"WhenEmpty","consolidateAfter":"1m"}`), []string{
			"nodePools[0].disruption.consolidationPolicy: Karpenter ignores it on a static pool",
			"nodePools[0].disruption.consolidateAfter: Karpenter ignores it on a static pool",
		}},

		{"reservation id with tags", class(`,"capacityReservationSelectorTerms":[{"id":"cr-0a","tags":{"a":"b"}}]`), []string{"nodeClasses[0].capacityReservationSelectorTerms[0]: id stands alone in its term"}},
		{"reservation owner alone", class(`,"capacityReservationSelectorTerms":[{"ownerID":"123456789012"}]`), []string{"capacityReservationSelectorTerms[0]: set id, tags or instanceMatchCriteria"}},
		{"reservation bad owner", class(`,"capacityReservationSelectorTerms":[{"tags":{"a":"b"},"ownerID":"1234"}]`), []string{`capacityReservationSelectorTerms[0].ownerID: "1234" is not an AWS account id`}},
		{"reservation bad criteria", class(`,"capacityReservationSelectorTerms":[{"instanceMatchCriteria":"closed"}]`), []string{`capacityReservationSelectorTerms[0].instanceMatchCriteria: "closed" is not one of open, targeted`}},
		{"reservation empty tag", class(`,"capacityReservationSelectorTerms":[{"tags":{"a":""}}]`), []string{"capacityReservationSelectorTerms[0].tags: empty tag keys and values are not allowed"}},
		{"reservation bad id", class(`,"capacityReservationSelectorTerms":[{"id":"odcr-1"}]`), []string{`nodeClasses[0].capacityReservationSelectorTerms[0].id: "odcr-1" is not an id of the form cr-<hex>`}},

		{"placement group both", class(`,"placementGroupSelector":{"name":"a","id":"pg-0a"}`), []string{"nodeClasses[0].placementGroupSelector: set exactly one of name and id"}},
		{"placement group none", class(`,"placementGroupSelector":{}`), []string{"nodeClasses[0].placementGroupSelector: set exactly one of name and id"}},
		{"placement group bad id", class(`,"placementGroupSelector":{"id":"pg_1"}`), []string{`nodeClasses[0].placementGroupSelector.id: "pg_1" is not an id of the form pg-<hex>`}},
		{"placement group empty name", class(`,"placementGroupSelector":{"name":""}`), []string{"nodeClasses[0].placementGroupSelector.name: must not be empty"}},

		{"interfaces without primary", class(`,"networkInterfaces":[{"networkCardIndex":0,"deviceIndex":1,"interfaceType":"interface"}]`), []string{"nodeClasses[0].networkInterfaces: must include the primary interface"}},
		{"primary is efa-only", class(`,"networkInterfaces":[{"networkCardIndex":0,"deviceIndex":0,"interfaceType":"efa-only"}]`), []string{"nodeClasses[0].networkInterfaces: must include the primary interface"}},
		{"interfaces duplicate pair", class(`,"networkInterfaces":[{"networkCardIndex":0,"deviceIndex":0,"interfaceType":"interface"},{"networkCardIndex":0,"deviceIndex":0,"interfaceType":"interface"}]`), []string{"nodeClasses[0].networkInterfaces[1]: networkCardIndex 0, deviceIndex 0 is used by another interface"}},
		{"two efa-only on a card", class(`,"networkInterfaces":[{"networkCardIndex":0,"deviceIndex":0,"interfaceType":"interface"},{"networkCardIndex":1,"deviceIndex":0,"interfaceType":"efa-only"},{"networkCardIndex":1,"deviceIndex":1,"interfaceType":"efa-only"}]`), []string{"nodeClasses[0].networkInterfaces[2]: network card 1 already has an efa-only interface"}},
		{"interface bad type and index", class(`,"networkInterfaces":[{"networkCardIndex":0,"deviceIndex":0,"interfaceType":"interface"},{"networkCardIndex":-1,"deviceIndex":0,"interfaceType":"efa"}]`), []string{
			"nodeClasses[0].networkInterfaces[1].networkCardIndex: -1 is less than 0",
			`nodeClasses[0].networkInterfaces[1].interfaceType: "efa" is not one of interface, efa-only`,
		}},

		{"negative ip prefixes", class(`,"ipPrefixCount":-2`), []string{"nodeClasses[0].ipPrefixCount: -2 is less than 0"}},
		{"empty connection tracking", class(`,"connectionTracking":{}`), []string{"nodeClasses[0].connectionTracking: set at least one of tcpEstablishedTimeout, udpStreamTimeout and udpTimeout"}},
		{"connection tracking ranges", class(`,"connectionTracking":{"tcpEstablishedTimeout":59,"udpStreamTimeout":181,"udpTimeout":61}`), []string{
			"nodeClasses[0].connectionTracking.tcpEstablishedTimeout: 59 is not between 60 and 432000",
			"nodeClasses[0].connectionTracking.udpStreamTimeout: 181 is not between 60 and 180",
			"nodeClasses[0].connectionTracking.udpTimeout: 61 is not between 30 and 60",
		}},
		{"nested virtualization", class(`,"cpuOptions":{"nestedVirtualization":"on"}`), []string{`nodeClasses[0].cpuOptions.nestedVirtualization: "on" is not one of enabled, disabled`}},

		{"initialization rate range", class(`,"blockDeviceMappings":[{"ebs":{"snapshotId":"snap-1","volumeInitializationRate":50}}]`), []string{"nodeClasses[0].blockDeviceMappings[0].ebs.volumeInitializationRate: 50 is not between 100 and 300"}},
		{"initialization rate without snapshot", class(`,"blockDeviceMappings":[{"ebs":{"volumeSize":"20Gi","volumeInitializationRate":100}}]`), []string{"nodeClasses[0].blockDeviceMappings[0].ebs.volumeInitializationRate: needs snapshotId"}},

		// Rules of the CRD on the existing fields.
		{"amiFamily against the alias", class(`,"amiAlias":"bottlerocket@latest","amiFamily":"AL2023"`), []string{`nodeClasses[0].amiFamily: AL2023 does not match the alias "bottlerocket@latest"; use Bottlerocket or Custom`}},
		{"too many selector tags", class(`,"subnetSelectorTerms":[{"tags":{"a":"1","b":"1","c":"1","d":"1","e":"1","f":"1","g":"1","h":"1","i":"1","j":"1","k":"1","l":"1","m":"1","n":"1","o":"1","p":"1","q":"1","r":"1","s":"1","t":"1","u":"1"}}]`), []string{"nodeClasses[0].subnetSelectorTerms[0].tags: at most 20 tags"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := renderError(t, withDefaults(t, tc.args))
			for _, w := range tc.want {
				assert.Contains(t, msg, w)
			}
		})
	}
}

// The README and the registry docs list every NodePool and NodeClass field: each top-level
// field has a row of its kind's table, which names every field below it.
func TestDocsListEveryPoolAndClassField(t *testing.T) {
	for _, doc := range []string{"../README.md", "../docs/installation-configuration.md"} {
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
