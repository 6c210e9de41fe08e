package inputs

// From Karpenter 1.15 the EC2NodeClass kubelet is free-form: the CRD keeps any key, and the
// controller validates the configuration instead, reporting a rejected one as the class's
// ValidationSucceeded=False condition — which blocks every launch from the class. The checks
// below catch at preview what that controller would reject (karpenter-provider-aws v1.15.1,
// pkg/apis/v1/kubeletconfiguration_validation.go and pkg/controllers/nodeclass/validation.go).

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"
)

// checkAdditionalKubeletSettings checks the free-form settings of a class whose AMI family is
// family. Only AL2023 passes settings without a typed field to the kubelet; the other families
// would drop them, and the controller rejects the class rather than drop them silently.
func checkAdditionalKubeletSettings(path *field.Path, k *KubeletConfiguration, family string) []error {
	var errs []error
	typed := typedKubeletFields()
	settings := path.Child("additionalSettings")
	for _, key := range slices.Sorted(maps.Keys(k.AdditionalSettings)) {
		f := settings.Child(key) // a setting's name, as its typed field would be named
		switch {
		case key == "":
			errs = append(errs, field.Invalid(settings, "empty setting name"))
		case slices.Contains(typed, key):
			errs = append(errs, field.Invalidf(f, "%s has a typed field", key).WithHint(fmt.Sprintf("set %s instead", path.Child(key))))
		case catalog.KarpenterOwnedKubeletSettings[key] != "":
			errs = append(errs, field.Invalidf(f, "cannot be set (%s)", catalog.KarpenterOwnedKubeletSettings[key]))
		case !slices.Contains(catalog.UpstreamKubeletSettings, key):
			errs = append(errs, field.Invalidf(f, "%q is not a KubeletConfiguration setting (kubelet.config.k8s.io/v1beta1); Karpenter would reject the class", key))
		case k.AdditionalSettings[key] == nil:
			errs = append(errs, field.Invalid(f, "null is not a kubelet setting (leave the key out)"))
		}
	}
	if len(k.AdditionalSettings) > 0 && family != "AL2023" && family != "" {
		errs = append(errs, field.Invalidf(settings, "the %s AMI family applies only the typed kubelet settings, so Karpenter rejects the class", family).
			WithHint("use an AL2023 AMI or only typed settings"))
	}
	return errs
}

// checkKubeletForFamily reports typed settings the class's AMI family would drop (Karpenter
// 1.15 rejects the class for them instead).
func checkKubeletForFamily(path *field.Path, k *KubeletConfiguration, family string) []error {
	var errs []error
	if family == "Bottlerocket" && k.PodsPerCore != nil {
		errs = append(errs, field.Invalid(path.Child("podsPerCore"), "the Bottlerocket AMI family does not apply it, so Karpenter rejects the class"))
	}
	if family != "AL2023" && family != "" && len(k.ClusterDNS) > 1 {
		errs = append(errs, field.Invalidf(path.Child("clusterDNS"), "the %s AMI family takes one entry; %d were set", family, len(k.ClusterDNS)))
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

func validateKubelet(path *field.Path, k *KubeletConfiguration, c NodeClassSpec, rel catalog.Release) []error {
	var errs []error
	errs = append(errs, rel.Require(path.Child("additionalSettings"), len(k.AdditionalSettings) > 0, catalog.FeatureOpenKubelet))
	if rel.Has(catalog.FeatureOpenKubelet) {
		family := c.ResolvedAmiFamily(catalog.DefaultAmiAliasOf(rel))
		if !slices.Contains(rel.AmiFamilies, family) {
			family = "" // not a family of the release: amiFamily's own check reports it
		}
		errs = append(errs, checkAdditionalKubeletSettings(path, k, family)...)
		errs = append(errs, checkKubeletForFamily(path, k, family)...)
	}
	for _, m := range []struct {
		name    string
		values  map[string]string
		allowed []string
	}{
		{"systemReserved", k.SystemReserved, kubeletReserved},
		{"kubeReserved", k.KubeReserved, kubeletReserved},
		{"evictionHard", k.EvictionHard, kubeletEviction},
		{"evictionSoft", k.EvictionSoft, kubeletEviction},
		{"evictionSoftGracePeriod", k.EvictionSoftGracePeriod, kubeletEviction},
	} {
		for _, key := range slices.Sorted(maps.Keys(m.values)) {
			errs = append(errs, CheckEnum(path.Child(m.name).Key(key), key, m.allowed))
		}
	}
	for _, key := range slices.Sorted(maps.Keys(k.EvictionSoft)) {
		if _, ok := k.EvictionSoftGracePeriod[key]; !ok {
			errs = append(errs, field.Invalidf(path.Child("evictionSoftGracePeriod"), "missing a grace period for evictionSoft %q", key))
		}
	}
	for _, key := range slices.Sorted(maps.Keys(k.EvictionSoftGracePeriod)) {
		if _, ok := k.EvictionSoft[key]; !ok {
			errs = append(errs, field.Invalidf(path.Child("evictionSoft"), "missing a threshold for evictionSoftGracePeriod %q", key))
		}
	}
	if k.ImageGCHighThresholdPercent != nil && k.ImageGCLowThresholdPercent != nil && *k.ImageGCHighThresholdPercent <= *k.ImageGCLowThresholdPercent {
		errs = append(errs, field.Invalid(path, "imageGCHighThresholdPercent must be greater than imageGCLowThresholdPercent"))
	}
	return errs
}
