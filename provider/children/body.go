package children

import (
	"slices"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/inputs"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// Writing the bodies of the custom resources (NodePools, node classes and their older kinds):
// optional inputs go in only when set, so an unset field stays the CRD's default.

// putPodTerms puts a list of n rendered items under key, or nothing when n is 0.
func putPodTerms(body map[string]any, key string, n int, item func(int) map[string]any) {
	if n == 0 {
		return
	}
	out := make([]any, 0, n)
	for i := range n {
		out = append(out, item(i))
	}
	body[key] = out
}

func renderKubelet(k *inputs.KubeletConfiguration) map[string]any {
	kubelet := map[string]any{}
	putInt(kubelet, "maxPods", k.MaxPods)
	putInt(kubelet, "podsPerCore", k.PodsPerCore)
	putStringMap(kubelet, "systemReserved", k.SystemReserved)
	putStringMap(kubelet, "kubeReserved", k.KubeReserved)
	putStringMap(kubelet, "evictionHard", k.EvictionHard)
	putStringMap(kubelet, "evictionSoft", k.EvictionSoft)
	putStringMap(kubelet, "evictionSoftGracePeriod", k.EvictionSoftGracePeriod)
	putInt(kubelet, "evictionMaxPodGracePeriod", k.EvictionMaxPodGracePeriod)
	putInt(kubelet, "imageGCHighThresholdPercent", k.ImageGCHighThresholdPercent)
	putInt(kubelet, "imageGCLowThresholdPercent", k.ImageGCLowThresholdPercent)
	putBool(kubelet, "cpuCFSQuota", k.CpuCFSQuota)
	if len(k.ClusterDNS) > 0 {
		kubelet["clusterDNS"] = slices.Clone(k.ClusterDNS)
	}
	// Validation rejected keys that have a typed field, so nothing here overwrites one.
	for key, v := range k.AdditionalSettings {
		kubelet[key] = v
	}
	return kubelet
}

// selectorTerm renders a subnet or security group selector term; an id may be an Input
// (e.g. a subnet created in the same program).
func selectorTerm(id pulumi.StringPtrInput, name *string, tags map[string]string) map[string]any {
	term := map[string]any{}
	putInput(term, "id", id)
	putString(term, "name", name)
	putStringMap(term, "tags", tags)
	return term
}

// putString sets an optional string (or string enum) value.
func putString[T ~string](m map[string]any, key string, v *T) {
	if v != nil {
		m[key] = string(*v)
	}
}

// putInput sets an optional Input-typed value (e.g. an id created in the same program).
func putInput(m map[string]any, key string, v pulumi.StringPtrInput) {
	if v != nil {
		m[key] = v
	}
}

func putInt(m map[string]any, key string, v *int) {
	if v != nil {
		m[key] = *v
	}
}

func putBool(m map[string]any, key string, v *bool) {
	if v != nil {
		m[key] = *v
	}
}

func putStringMap(m map[string]any, key string, v map[string]string) {
	if len(v) > 0 {
		out := make(map[string]any, len(v))
		for k, val := range v {
			out[k] = val
		}
		m[key] = out
	}
}
