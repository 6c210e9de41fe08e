package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kubeletconfigv1beta1 "k8s.io/kubelet/config/v1beta1"
	sigsjson "sigs.k8s.io/json"
)

// From Karpenter 1.15 the EC2NodeClass CRD stores spec.kubelet without a schema
// (x-kubernetes-preserve-unknown-fields): the API server accepts and keeps any key, so the
// read-back comparison can no longer notice a misspelt or mistyped kubelet setting (before
// 1.15 the server pruned unknown keys and its CEL rules rejected bad values). Karpenter's
// controller validates it instead and reports a rejected configuration as the class's
// ValidationSucceeded=False condition, which blocks every launch from the class. That
// controller never runs here, so the harness checks what it would: KubeletProblems mirrors
// ValidateKubeletConfig (pkg/apis/v1/kubeletconfiguration_validation.go) and
// validateKubeletFieldsSupported (pkg/controllers/nodeclass/validation.go) of
// karpenter-provider-aws v1.15.1, decoding against the upstream KubeletConfiguration of the
// k8s.io/kubelet version v1.15.1 builds with (v0.37.0, the tests module's).

// SchemalessKubelet reports whether the served EC2NodeClass CRD stores spec.kubelet of
// version v1 without a schema (Karpenter 1.15+).
func (c *Cluster) SchemalessKubelet(ctx context.Context) (bool, error) {
	crd, err := c.CRD(ctx, "ec2nodeclasses.karpenter.k8s.aws")
	if err != nil {
		return false, err
	}
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	for _, v := range versions {
		m, _ := v.(map[string]any)
		if m["name"] != "v1" {
			continue
		}
		open, _, _ := unstructured.NestedBool(m, "schema", "openAPIV3Schema", "properties", "spec", "properties", "kubelet", "x-kubernetes-preserve-unknown-fields")
		return open, nil
	}
	return false, nil
}

// Kubelet settings Karpenter 1.15.1 maps itself (ParsedKubeletConfig); AMI families other
// than AL2023 (and Custom) apply only these, so the controller rejects any other key for them.
var managedKubeletFields = []string{
	"clusterDNS", "maxPods", "podsPerCore", "systemReserved", "kubeReserved", "evictionHard", "evictionSoft",
	"evictionSoftGracePeriod", "evictionMaxPodGracePeriod", "imageGCHighThresholdPercent", "imageGCLowThresholdPercent", "cpuCFSQuota",
}

var (
	evictionSignals   = []string{"memory.available", "nodefs.available", "nodefs.inodesFree", "imagefs.available", "imagefs.inodesFree", "pid.available"}
	reservedResources = []string{"cpu", "memory", "ephemeral-storage", "pid"}
)

// KubeletProblems lists what Karpenter 1.15.1's controller would reject in a v1 EC2NodeClass's
// spec.kubelet (empty when the class has none or it is valid).
func KubeletProblems(nodeClass *unstructured.Unstructured) []string {
	kc, found, err := unstructured.NestedMap(nodeClass.Object, "spec", "kubelet")
	if err != nil {
		return []string{fmt.Sprintf("spec.kubelet: %v", err)}
	}
	if !found || len(kc) == 0 {
		return nil
	}
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	// The upstream type: unknown keys and wrong types.
	data, err := json.Marshal(kc)
	if err != nil {
		return []string{fmt.Sprintf("spec.kubelet: %v", err)}
	}
	strict, err := sigsjson.UnmarshalStrict(data, &kubeletconfigv1beta1.KubeletConfiguration{})
	if err != nil {
		add("spec.kubelet: %v", err)
	}
	for _, e := range strict {
		add("spec.kubelet: %v", e)
	}

	// Semantic rules the upstream type cannot express.
	if _, ok := kc["registerWithTaints"]; ok {
		add("spec.kubelet.registerWithTaints: can't be set, Karpenter sets it from the NodeClaim's taints")
	}
	stringMap := func(field string) (map[string]string, bool) {
		raw, ok := kc[field].(map[string]any)
		if !ok {
			return nil, false
		}
		out := map[string]string{}
		for k, v := range raw {
			s, ok := v.(string)
			if !ok {
				return nil, false
			}
			out[k] = s
		}
		return out, true
	}
	intField := func(field string) (int64, bool) {
		switch v := kc[field].(type) {
		case int64:
			return v, true
		case float64:
			return int64(v), v == float64(int64(v))
		}
		return 0, false
	}
	for _, field := range []string{"evictionHard", "evictionSoft", "evictionSoftGracePeriod", "evictionMinimumReclaim"} {
		signals, ok := stringMap(field)
		if !ok {
			continue
		}
		for _, key := range sortedKeys(signals) {
			if !slices.Contains(evictionSignals, key) {
				add("spec.kubelet.%s: %q isn't a valid eviction signal", field, key)
			}
			value := signals[key]
			switch {
			case field == "evictionSoftGracePeriod":
				if d, err := time.ParseDuration(value); err != nil || d < 0 {
					add("spec.kubelet.%s[%s]: %q must be a non-negative duration", field, key, value)
				}
			case strings.HasSuffix(value, "%"):
				if p, err := strconv.ParseFloat(strings.TrimSuffix(value, "%"), 64); err != nil || p < 0 || p > 100 {
					add("spec.kubelet.%s[%s]: %q must be a percentage or a resource quantity", field, key, value)
				}
			default:
				if q, err := resource.ParseQuantity(value); err != nil || q.Sign() < 0 {
					add("spec.kubelet.%s[%s]: %q must be a percentage or a non-negative resource quantity", field, key, value)
				}
			}
		}
	}
	soft, _ := stringMap("evictionSoft")
	grace, _ := stringMap("evictionSoftGracePeriod")
	for _, s := range sortedKeys(soft) {
		if _, ok := grace[s]; !ok {
			add("spec.kubelet.evictionSoft[%s]: has no matching evictionSoftGracePeriod", s)
		}
	}
	for _, s := range sortedKeys(grace) {
		if _, ok := soft[s]; !ok {
			add("spec.kubelet.evictionSoftGracePeriod[%s]: has no matching evictionSoft", s)
		}
	}
	for _, field := range []string{"kubeReserved", "systemReserved"} {
		reserved, _ := stringMap(field)
		for _, key := range sortedKeys(reserved) {
			if !slices.Contains(reservedResources, key) {
				add("spec.kubelet.%s: %q isn't a reservable resource", field, key)
			}
			if strings.HasPrefix(reserved[key], "-") {
				add("spec.kubelet.%s[%s]: %q can't be negative", field, key, reserved[key])
			}
		}
	}
	for _, field := range []string{"imageGCHighThresholdPercent", "imageGCLowThresholdPercent"} {
		if v, ok := intField(field); ok && (v < 0 || v > 100) {
			add("spec.kubelet.%s: %d must be between 0 and 100", field, v)
		}
	}
	for _, field := range []string{"podsPerCore", "evictionMaxPodGracePeriod", "maxPods"} {
		if v, ok := intField(field); ok && v < 0 {
			add("spec.kubelet.%s: %d can't be negative", field, v)
		}
	}
	high, highOK := intField("imageGCHighThresholdPercent")
	low, lowOK := intField("imageGCLowThresholdPercent")
	if highOK && lowOK && high <= low {
		add("spec.kubelet: imageGCHighThresholdPercent (%d) must be greater than imageGCLowThresholdPercent (%d)", high, low)
	}

	// What the AMI family applies: only AL2023 passes the whole config through; Custom
	// ignores it. The others apply the mapped fields, one clusterDNS entry, and (Bottlerocket)
	// no podsPerCore; the controller rejects anything they would drop.
	family := amiFamily(nodeClass)
	if family != "AL2023" && family != "Custom" {
		var dropped []string
		for _, key := range sortedKeys(kc) {
			if !slices.Contains(managedKubeletFields, key) || (key == "podsPerCore" && family == "Bottlerocket") {
				dropped = append(dropped, key)
			}
		}
		if len(dropped) > 0 {
			add("spec.kubelet has fields not applied by the %s AMI family that would be silently dropped: %s", family, strings.Join(dropped, ", "))
		}
		if dns, _ := kc["clusterDNS"].([]any); len(dns) > 1 {
			add("spec.kubelet.clusterDNS: the %s AMI family takes one entry, %d were set", family, len(dns))
		}
	}
	return problems
}

// amiFamily is EC2NodeClass.AMIFamily() of Karpenter v1: spec.amiFamily, else the family of
// the first alias term ("al2023@latest" -> AL2023), else Custom.
func amiFamily(nodeClass *unstructured.Unstructured) string {
	if f, ok, _ := unstructured.NestedString(nodeClass.Object, "spec", "amiFamily"); ok && f != "" {
		return f
	}
	terms, _, _ := unstructured.NestedSlice(nodeClass.Object, "spec", "amiSelectorTerms")
	for _, t := range terms {
		alias, _ := t.(map[string]any)["alias"].(string)
		if alias == "" {
			continue
		}
		family, _, _ := strings.Cut(alias, "@")
		for _, f := range []string{"AL2", "AL2023", "Bottlerocket", "Windows2019", "Windows2022", "Windows2025"} {
			if strings.EqualFold(f, family) {
				return f
			}
		}
		return family
	}
	return "Custom"
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
