package plan

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/internal/argstest"
)

// Fields a generation cannot express fail, naming the field and the first version with it.
func TestFieldsNewerThanTheVersionFail(t *testing.T) {
	for _, tc := range []struct {
		version, args, want string
	}{
		{"0.37.7", `{"nodePools":[{"name":"p","terminationGracePeriod":"1h"}]}`, "nodePools[0].terminationGracePeriod: needs the v1 APIs, which Karpenter 0.37.7 does not have (first in 1.0.0"},
		{"0.33.0", `{"nodePools":[{"name":"p","disruption":{"budgets":[{"nodes":"1"}]}}]}`, "nodePools[0].disruption.budgets: needs disruption budgets, which Karpenter 0.33.0 does not have (first in 0.34.0"},
		{"0.37.7", `{"nodePools":[{"name":"p","disruption":{"budgets":[{"nodes":"1","reasons":["Empty"]}]}}]}`, "budgets[0].reasons: needs the v1 APIs"},
		{"1.4.0", `{"nodePools":[{"name":"p","requirements":[{"key":"karpenter.k8s.aws/instance-cpu","operator":"Gte","values":["4"]}]}]}`, "nodePools[0].requirements[0].operator: needs the Gte and Lte requirement operators, which Karpenter 1.4.0 does not have (first in 1.9.0"},
		{"1.12.0", `{"nodePools":[{"name":"p","disruption":{"consolidationPolicy":"Balanced"}}]}`, "disruption.consolidationPolicy: needs the Balanced consolidation policy"},
		{"1.0.8", `{"nodePools":[{"name":"p","disruption":{"consolidationPolicy":"WhenUnderutilized"}}]}`, "WhenUnderutilized was renamed WhenEmptyOrUnderutilized in Karpenter 1.0"},
		{"0.37.7", `{"nodePools":[{"name":"p","disruption":{"consolidationPolicy":"WhenEmptyOrUnderutilized","consolidateAfter":"5m"}}]}`, "disruption.consolidateAfter: needs the v1 APIs"},
		{"0.31.4", `{"nodeClasses":[{"name":"c","role":"my-role"}]}`, "nodeClasses[0].role: needs node classes with a role"},
		{"0.37.7", `{"nodeClasses":[{"name":"c","amiAlias":"al2023@v20240807"}]}`, "nodeClasses[0].amiAlias: a pinned AMI version needs the v1 APIs"},
		{"0.31.4", `{"nodeClasses":[{"name":"c","amiAlias":"al2023@latest"}]}`, `unknown AMI alias family "al2023"; Karpenter 0.31.4 knows al2, bottlerocket, windows2019, windows2022`},
		{"0.31.4", `{"nodeClasses":[{"name":"c","subnetSelectorTerms":[{"tags":{"a":"b"}},{"tags":{"c":"d"}}]}]}`, "nodeClasses[0].subnetSelectorTerms: several terms"},
		{"0.31.4", `{"createInstanceProfile":false}`, "createInstanceProfile: Karpenter 0.31.4 launches nodes with the instance profile in settings.aws.defaultInstanceProfile"},
		{"0.31.4", `{"nodeClasses":[{"name":"c","blockDeviceMappings":[{"deviceName":"/dev/xvda","rootVolume":true,"ebs":{"volumeSize":"20Gi"}}]}]}`, "nodeClasses[0].blockDeviceMappings[0].rootVolume: needs rootVolume in block device mappings, which Karpenter 0.31.4 does not have (first in 0.32.0"},
		{"0.34.0", `{"nodePools":[{"name":"p","requirements":[{"key":"kubernetes.io/arch","operator":"In","values":["amd64"],"minValues":1}]}]}`, "requirements[0].minValues: needs requirement minValues, which Karpenter 0.34.0 does not have (first in 0.35.0"},
		// Karpenter 1.15.
		{"1.14.1", `{"nodePools":[{"name":"p","disruption":{"budgets":[{"nodes":"1","reasons":["Drifted","Unhealthy"]}]}}]}`, "nodePools[0].disruption.budgets[0].reasons[1]: needs the Unhealthy disruption budget reason, which Karpenter 1.14.1 does not have (first in 1.15.0"},
		{"1.14.3", `{"nodeClasses":[{"name":"c","enclaveOptions":{"enabled":true}}]}`, "nodeClasses[0].enclaveOptions: needs EC2NodeClass enclaveOptions, which Karpenter 1.14.3 does not have (first in 1.15.0"},
		{"1.14.1", `{"nodeClasses":[{"name":"c","kubelet":{"maxPods":50,"additionalSettings":{"containerLogMaxSize":"50Mi"}}}]}`, "nodeClasses[0].kubelet.additionalSettings: needs free-form EC2NodeClass kubelet settings, which Karpenter 1.14.1 does not have (first in 1.15.0"},
		{"0.37.7", `{"nodeClasses":[{"name":"c","kubelet":{"additionalSettings":{"containerLogMaxSize":"50Mi"}}}]}`, "nodeClasses[0].kubelet.additionalSettings: needs free-form EC2NodeClass kubelet settings, which Karpenter 0.37.7 does not have (first in 1.15.0"},
		// The fields added to reach every field of the 1.15.1 CRDs, just before their first version,
		// and in generations without them.
		{"1.7.1", `{"nodePools":[{"name":"p","replicas":2}]}`, "nodePools[0].replicas: needs static NodePools (replicas), which Karpenter 1.7.1 does not have (first in 1.8.0"},
		{"0.37.7", `{"nodePools":[{"name":"p","replicas":2}]}`, "nodePools[0].replicas: needs static NodePools (replicas), which Karpenter 0.37.7 does not have (first in 1.8.0"},
		{"0.31.4", `{"nodePools":[{"name":"p","replicas":2}]}`, "nodePools[0].replicas: needs static NodePools (replicas), which Karpenter 0.31.4 does not have (first in 1.8.0"},
		{"1.2.1", `{"nodeClasses":[{"name":"c","capacityReservationSelectorTerms":[{"tags":{"a":"b"}}]}]}`, "nodeClasses[0].capacityReservationSelectorTerms: needs EC2NodeClass capacityReservationSelectorTerms, which Karpenter 1.2.1 does not have (first in 1.3.0"},
		{"1.8.5", `{"nodeClasses":[{"name":"c","capacityReservationSelectorTerms":[{"instanceMatchCriteria":"open"}]}]}`, "nodeClasses[0].capacityReservationSelectorTerms[0].instanceMatchCriteria: needs capacity reservation instanceMatchCriteria, which Karpenter 1.8.5 does not have (first in 1.8.6"},
		{"1.6.2", `{"nodeClasses":[{"name":"c","blockDeviceMappings":[{"ebs":{"snapshotId":"snap-1","volumeInitializationRate":100}}]}]}`, "nodeClasses[0].blockDeviceMappings[0].ebs.volumeInitializationRate: needs EBS volumeInitializationRate, which Karpenter 1.6.2 does not have (first in 1.6.3"},
		{"1.8.5", `{"nodeClasses":[{"name":"c","ipPrefixCount":1}]}`, "nodeClasses[0].ipPrefixCount: needs EC2NodeClass ipPrefixCount, which Karpenter 1.8.5 does not have (first in 1.8.6"},
		{"1.10.0", `{"nodeClasses":[{"name":"c","placementGroupSelector":{"name":"pg"}}]}`, "nodeClasses[0].placementGroupSelector: needs EC2NodeClass placementGroupSelector, which Karpenter 1.10.0 does not have (first in 1.11.0"},
		{"1.12.0", `{"nodeClasses":[{"name":"c","networkInterfaces":[{"networkCardIndex":0,"deviceIndex":0,"interfaceType":"interface"}]}]}`, "nodeClasses[0].networkInterfaces: needs EC2NodeClass networkInterfaces, which Karpenter 1.12.0 does not have (first in 1.12.1"},
		{"0.37.7", `{"nodeClasses":[{"name":"c","networkInterfaces":[{"networkCardIndex":0,"deviceIndex":0,"interfaceType":"interface"}]}]}`, "nodeClasses[0].networkInterfaces: needs EC2NodeClass networkInterfaces, which Karpenter 0.37.7 does not have (first in 1.12.1"},
		{"1.13.4", `{"nodeClasses":[{"name":"c","connectionTracking":{"udpTimeout":30}}]}`, "nodeClasses[0].connectionTracking: needs EC2NodeClass connectionTracking, which Karpenter 1.13.4 does not have (first in 1.14.0"},
		{"1.13.4", `{"nodeClasses":[{"name":"c","cpuOptions":{"nestedVirtualization":"enabled"}}]}`, "nodeClasses[0].cpuOptions: needs EC2NodeClass cpuOptions, which Karpenter 1.13.4 does not have (first in 1.14.0"},
		{"0.29.1", `{"nodeClasses":[{"name":"c","context":"c-1"}]}`, "nodeClasses[0].context: needs the node class context field, which Karpenter 0.29.1 does not have (first in 0.29.2"},
	} {
		t.Run(tc.version+" "+tc.want[:20], func(t *testing.T) {
			msg := planError(t, argstest.WithDefaults(t, strings.TrimSuffix(tc.args, "}")+`,"version":"`+tc.version+`"}`))
			assert.Contains(t, msg, tc.want)
		})
	}
}

func TestKubernetesCompatibility(t *testing.T) {
	msg := planError(t, argstest.WithDefaults(t, `{"version":"1.4.1","kubernetesVersion":"1.33"}`))
	assert.Contains(t, msg, "kubernetesVersion: Kubernetes 1.33 needs Karpenter 1.5.0 or later; version is 1.4.1")
	planVersion(t, "1.5.0", `{"kubernetesVersion":"1.33"}`)
	planVersion(t, "1.14.1", `{"kubernetesVersion":"v1.36.2"}`)
	// Kubernetes 1.37 needs Karpenter 1.15 (the v1.15 compatibility matrix).
	assert.Contains(t, planError(t, argstest.WithDefaults(t, `{"version":"1.14.3","kubernetesVersion":"1.37"}`)), "kubernetesVersion: Kubernetes 1.37 needs Karpenter 1.15.0 or later; version is 1.14.3")
	planVersion(t, "1.15.0", `{"kubernetesVersion":"1.37"}`)
	assert.Contains(t, planError(t, argstest.WithDefaults(t, `{"kubernetesVersion":"1.99"}`)), "kubernetesVersion: \"1.99\" is not a Kubernetes version the compatibility matrix covers")
	assert.Contains(t, planError(t, argstest.WithDefaults(t, `{"version":"0.36.0","kubernetesVersion":"1.30"}`)), "needs Karpenter 0.37.0")
}

// The other end: each release's oldest Kubernetes (the controller's MinK8sVersion), both ways
// at each step the matrix covers: 1.25 from 1.0, 1.26 from 1.5 (1.23, from 0.31, is its first row).
func TestKubernetesFloor(t *testing.T) {
	for _, tc := range []struct{ version, oldest, below string }{
		{"1.0.8", "1.25", "1.0.0"}, {"1.4.1", "1.25", "1.0.0"}, {"1.5.0", "1.26", "1.5.0"}, {"1.15.1", "1.26", "1.5.0"},
	} {
		older := fmt.Sprintf("1.%d", mustMinor(t, tc.oldest)-1)
		assert.Contains(t, planError(t, argstest.WithDefaults(t, `{"version":"`+tc.version+`","kubernetesVersion":"`+older+`"}`)),
			"kubernetesVersion: Karpenter "+tc.version+" runs on Kubernetes "+tc.oldest+" and later (the controller's MinK8sVersion), not on kubernetesVersion "+older+"; upgrade the cluster to "+tc.oldest+" or later, or set version below "+tc.below, tc.version)
		planVersion(t, tc.version, `{"kubernetesVersion":"`+tc.oldest+`"}`)
	}
	planVersion(t, "0.30.0", `{"kubernetesVersion":"1.23"}`) // states no floor
}

func mustMinor(t *testing.T, k8s string) int {
	t.Helper()
	var major, minor int
	_, err := fmt.Sscanf(k8s, "%d.%d", &major, &minor)
	if err != nil {
		t.Fatal(err)
	}
	return minor
}

// Before 0.32 nodes launch with an instance profile: with nodeRoleArn the component creates
// none, so every class must name one (or no node could launch, while the preview passed).
func TestNodeRoleArnBeforeV032NeedsInstanceProfiles(t *testing.T) {
	args := `{"version":"0.31.4","nodeRoleArn":"arn:aws:iam::123456789012:role/KarpenterNode"`
	msg := planError(t, argstest.WithDefaults(t, args+`}`))
	assert.Equal(t, "nodeClasses[0].instanceProfile (the default class): required with nodeRoleArn before Karpenter 0.32.0: Karpenter 0.31.4 launches nodes with an instance profile, and the component creates none for a role it does not own (nor settings.aws.defaultInstanceProfile); declare nodeClasses with the role's instanceProfile", msg)
	msg = planError(t, argstest.WithDefaults(t, args+`,"nodeClasses":[{"name":"a","instanceProfile":"KarpenterNodeProfile"},{"name":"b"}],"nodePools":[{"name":"p","nodeClassRef":"a"}]}`))
	assert.Equal(t, "nodeClasses[1].instanceProfile: required with nodeRoleArn before Karpenter 0.32.0: Karpenter 0.31.4 launches nodes with an instance profile, and the component creates none for a role it does not own (nor settings.aws.defaultInstanceProfile); name the role's instance profile here", msg)
	planOK(t, argstest.WithDefaults(t, args+`,"nodeClasses":[{"name":"a","instanceProfile":"KarpenterNodeProfile"}]}`))
	planOK(t, argstest.WithDefaults(t, `{"version":"0.32.0","nodeRoleArn":"arn:aws:iam::123456789012:role/KarpenterNode"}`))
	planOK(t, argstest.WithDefaults(t, `{"version":"0.31.4"}`)) // the component's own profile
}
