package provider

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// From Karpenter 1.15 the EC2NodeClass kubelet is free-form: the CRD keeps any key, and the
// controller validates the configuration instead, reporting a rejected one as the class's
// ValidationSucceeded=False condition — which blocks every launch from the class. The checks
// below catch at preview what that controller would reject (karpenter-provider-aws v1.15.1,
// pkg/apis/v1/kubeletconfiguration_validation.go and pkg/controllers/nodeclass/validation.go).

// upstreamKubeletSettings are the fields of the upstream KubeletConfiguration
// (kubelet.config.k8s.io/v1beta1, k8s.io/kubelet v0.37.0, which Karpenter 1.15.1 decodes
// against), by their JSON names. tests/harness checks this list against that type.
var upstreamKubeletSettings = strings.Fields(`
	enableServer staticPodPath podLogsDir syncFrequency fileCheckFrequency httpCheckFrequency staticPodURL
	staticPodURLHeader address port readOnlyPort tlsCertFile tlsPrivateKeyFile tlsCipherSuites tlsCurvePreferences
	tlsMinVersion rotateCertificates serverTLSBootstrap authentication authorization registryPullQPS registryBurst
	imagePullCredentialsVerificationPolicy preloadedImagesVerificationAllowlist eventRecordQPS eventBurst
	enableDebuggingHandlers enableContentionProfiling healthzPort healthzBindAddress oomScoreAdj clusterDomain
	clusterDNS streamingConnectionIdleTimeout nodeStatusUpdateFrequency nodeStatusReportFrequency
	nodeLeaseDurationSeconds imageMinimumGCAge imageMaximumGCAge imageGCHighThresholdPercent
	imageGCLowThresholdPercent volumeStatsAggPeriod kubeletCgroups systemCgroups cgroupRoot cgroupsPerQOS
	cgroupDriver cpuManagerPolicy singleProcessOOMKill cpuManagerPolicyOptions cpuManagerReconcilePeriod
	memoryManagerPolicy topologyManagerPolicy topologyManagerScope topologyManagerPolicyOptions qosReserved
	runtimeRequestTimeout hairpinMode maxPods podCIDR podPidsLimit resolvConf runOnce cpuCFSQuota
	cpuCFSQuotaPeriod nodeStatusMaxImages maxOpenFiles contentType kubeAPIQPS kubeAPIBurst serializeImagePulls
	maxParallelImagePulls evictionHard evictionSoft evictionSoftGracePeriod evictionPressureTransitionPeriod
	evictionMaxPodGracePeriod evictionMinimumReclaim mergeDefaultEvictionSettings podsPerCore
	enableControllerAttachDetach protectKernelDefaults makeIPTablesUtilChains iptablesMasqueradeBit
	iptablesDropBit featureGates failSwapOn memorySwap containerLogMaxSize containerLogMaxFiles
	containerLogMaxWorkers containerLogMonitorInterval configMapAndSecretChangeDetectionStrategy systemReserved
	kubeReserved reservedSystemCPUs showHiddenMetricsForVersion systemReservedCgroup kubeReservedCgroup
	enforceNodeAllocatable allowedUnsafeSysctls defaultPodSysctls volumePluginDir providerID
	kernelMemcgNotification logging enableSystemLogHandler enableSystemLogQuery shutdownGracePeriod
	shutdownGracePeriodCriticalPods shutdownGracePeriodByPodPriority crashLoopBackOff reservedMemory
	enableProfilingHandler enableDebugFlagsHandler seccompDefault memoryThrottlingFactor memoryReservationPolicy
	registerWithTaints registerNode tracing localStorageCapacityIsolation containerRuntimeEndpoint
	imageServiceEndpoint failCgroupV1 userNamespaces`)

// karpenterOwnedKubeletSettings are set by Karpenter itself; the controller rejects them.
var karpenterOwnedKubeletSettings = map[string]string{
	"registerWithTaints": "Karpenter sets it from the NodePool's taints and startupTaints",
}

// checkAdditionalKubeletSettings checks the free-form settings of a class whose AMI family is
// family. Only AL2023 passes settings without a typed field to the kubelet; the other families
// would drop them, and the controller rejects the class rather than drop them silently.
func checkAdditionalKubeletSettings(field string, k *KubeletConfiguration, family string) []error {
	var errs []error
	typed := typedKubeletFields()
	for _, key := range sortedKeys(k.AdditionalSettings) {
		f := field + ".additionalSettings." + key
		switch {
		case key == "":
			errs = append(errs, fmt.Errorf("%s.additionalSettings: empty setting name", field))
		case slices.Contains(typed, key):
			errs = append(errs, fmt.Errorf("%s: %s has a typed field; set %s.%s instead", f, key, field, key))
		case karpenterOwnedKubeletSettings[key] != "":
			errs = append(errs, fmt.Errorf("%s: cannot be set (%s)", f, karpenterOwnedKubeletSettings[key]))
		case !slices.Contains(upstreamKubeletSettings, key):
			errs = append(errs, fmt.Errorf("%s: %q is not a KubeletConfiguration setting (kubelet.config.k8s.io/v1beta1); Karpenter would reject the class", f, key))
		case k.AdditionalSettings[key] == nil:
			errs = append(errs, fmt.Errorf("%s: null is not a kubelet setting (leave the key out)", f))
		}
	}
	if len(k.AdditionalSettings) > 0 && family != "AL2023" && family != "" {
		errs = append(errs, fmt.Errorf("%s.additionalSettings: the %s AMI family applies only the typed kubelet settings, so Karpenter rejects the class; use an AL2023 AMI or only typed settings", field, family))
	}
	return errs
}

// checkKubeletForFamily reports typed settings the class's AMI family would drop (Karpenter
// 1.15 rejects the class for them instead).
func checkKubeletForFamily(field string, k *KubeletConfiguration, family string) []error {
	var errs []error
	if family == "Bottlerocket" && k.PodsPerCore != nil {
		errs = append(errs, fmt.Errorf("%s.podsPerCore: the Bottlerocket AMI family does not apply it, so Karpenter rejects the class", field))
	}
	if family != "AL2023" && family != "" && len(k.ClusterDNS) > 1 {
		errs = append(errs, fmt.Errorf("%s.clusterDNS: the %s AMI family takes one entry; %d were set", field, family, len(k.ClusterDNS)))
	}
	return errs
}

// typedKubeletFields are the kubelet settings with a typed input (their schema names).
func typedKubeletFields() []string {
	var names []string
	t := reflect.TypeFor[KubeletConfiguration]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("pulumi"), ",")
		if name != "additionalSettings" {
			names = append(names, name)
		}
	}
	return names
}
