package plan

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/argstest"
)

// Seed 384 of the harness's generated renders (tests/generated_test.go) once the schema grew
// readCluster: a selector term with empty tags rendered as an empty term, which every release's CRD
// refuses ("expected at least one, got none"). The component refuses it, naming the path.
func TestAnEmptySelectorTagsTermIsRefused(t *testing.T) {
	msg := planError(t, argstest.WithDefaults(t, `{"nodeClasses":[{"name":"default","subnetSelectorTerms":[{"tags":{}}]}]}`))
	assert.Contains(t, msg, `nodeClasses[0].subnetSelectorTerms[0].tags: empty: a term selects by at least one tag`)
}

func TestKubeletAdditionalSettingsRules(t *testing.T) {
	msg := planError(t, argstest.WithDefaults(t, `{"nodeClasses":[{"name":"c","kubelet":{"additionalSettings":{"maxPods":10,"":1,"podPidsLimit":null}}}]}`))
	assert.Contains(t, msg, "nodeClasses[0].kubelet.additionalSettings.maxPods: maxPods has a typed field; set nodeClasses[0].kubelet.maxPods instead")
	assert.Contains(t, msg, "nodeClasses[0].kubelet.additionalSettings: empty setting name")
	assert.Contains(t, msg, "nodeClasses[0].kubelet.additionalSettings.podPidsLimit: null is not a kubelet setting")

	// What Karpenter 1.15's controller would reject (ValidationSucceeded=False, no launches).
	msg = planError(t, argstest.WithDefaults(t, `{"nodeClasses":[
		{"name":"a","kubelet":{"additionalSettings":{"containerLogMaxSise":"50Mi","registerWithTaints":[]}}},
		{"name":"b","amiAlias":"bottlerocket@latest","kubelet":{"podsPerCore":2,"additionalSettings":{"containerLogMaxSize":"50Mi"}}},
		{"name":"c","amiAlias":"al2@latest","kubelet":{"clusterDNS":["10.0.0.10","10.0.0.11"]}}]}`))
	assert.Contains(t, msg, `nodeClasses[0].kubelet.additionalSettings.containerLogMaxSise: "containerLogMaxSise" is not a KubeletConfiguration setting`)
	assert.Contains(t, msg, "nodeClasses[0].kubelet.additionalSettings.registerWithTaints: cannot be set (Karpenter sets it from the NodePool's taints and startupTaints)")
	assert.Contains(t, msg, "nodeClasses[1].kubelet.additionalSettings: the Bottlerocket AMI family applies only the typed kubelet settings")
	assert.Contains(t, msg, "nodeClasses[1].kubelet.podsPerCore: the Bottlerocket AMI family does not apply it")
	assert.Contains(t, msg, "nodeClasses[2].kubelet.clusterDNS: the AL2 AMI family takes one entry; 2 were set")
	// Before 1.15 the typed kubelet is what it was (the family rules are 1.15's controller's).
	planVersion(t, "1.14.1", `{"nodeClasses":[{"name":"b","amiAlias":"bottlerocket@latest","kubelet":{"podsPerCore":2}}]}`)
	assert.Contains(t, planError(t, argstest.WithDefaults(t, `{"nodePools":[{"name":"p","disruption":{"budgets":[{"reasons":["Unhealty"]}]}}]}`)),
		`nodePools[0].disruption.budgets[0].reasons[0]: "Unhealty" is not one of`)
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

		{"placement group both", class(`,"placementGroupSelector":{"name":"a","id":"pg-0a"}`), []string{"nodeClasses[0].placementGroupSelector: set exactly one of name and id"}},
		{"placement group none", class(`,"placementGroupSelector":{}`), []string{"nodeClasses[0].placementGroupSelector: set exactly one of name and id"}},

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
			msg := planError(t, argstest.WithDefaults(t, tc.args))
			for _, w := range tc.want {
				assert.Contains(t, msg, w)
			}
		})
	}
}
