package inputs

import (
	"fmt"
	"strings"
	"time"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"
)

// ValidateChartValues checks the user's chart values the component knows about: values the
// release's chart does not read yet (Helm would ignore them), and the combinations the chart
// refuses to render, so both fail at preview naming the values instead of inside Helm.
func ValidateChartValues(values map[string]any, rel catalog.Release) []error {
	var errs []error
	for _, s := range rel.UnreadChartSettings() {
		if _, set := lookupValue(values, s.Path); set {
			errs = append(errs, field.Invalidf(valuesPath(s.Path), "the karpenter chart of %s does not read it, so Helm would ignore it (first in %s; version is %s)",
				rel.Version, s.Since, rel.Version))
		}
	}
	if v, set := lookupValue(values, "settings.ignoreDRARequests"); set && v == false && !rel.Has(catalog.FeatureIgnoreDRARequestsFalse) {
		errs = append(errs, field.Invalidf(valuesPath("settings.ignoreDRARequests"), "the karpenter chart of %s drops an explicit false, so the controller would keep ignoring DRA requests (honoured from %s; version is %s)",
			rel.Version, catalog.FeatureSince[catalog.FeatureIgnoreDRARequestsFalse], rel.Version))
	}
	if v, _ := lookupValue(values, "settings.enableDRA"); helmTrue(v) {
		for _, other := range []string{"settings.ignoreDRARequests", "settings.awsFeatureGates.draNVIDIAGPU", "settings.awsFeatureGates.draEFA"} {
			if _, set := lookupValue(values, other); set {
				errs = append(errs, field.Invalidf(valuesPath("settings.enableDRA"), "mutually exclusive with %s (enableDRA sets it; the chart refuses to render both): unset one", valuesPath(other)))
			}
		}
	}
	legacy, _ := lookupValue(values, "settings.legacyNodeRepair")
	terminateFirst, _ := lookupValue(values, "settings.featureGates.terminateFirstRepair")
	if helmTrue(legacy) && helmTrue(terminateFirst) {
		errs = append(errs, field.Invalidf(valuesPath("settings.legacyNodeRepair"), "cannot be combined with %s (the legacy node repair controller does not support terminate-first repair; the chart refuses to render both)",
			valuesPath("settings.featureGates.terminateFirstRepair")))
	}
	if v, set := lookupValue(values, "settings.securityGroupRefreshInterval"); set {
		s, _ := v.(string)
		if d, err := time.ParseDuration(s); err != nil || d < time.Minute {
			errs = append(errs, field.Invalidf(valuesPath("settings.securityGroupRefreshInterval"), "%q is not a duration of at least 1m, like 5m (Karpenter refuses shorter intervals)", fmt.Sprint(v)))
		}
	}
	return errs
}

// valuesPath is the input path of a dotted chart values path: values.settings.clusterName.
func valuesPath(dotted string) *field.Path {
	return field.NewPath("values", strings.Split(dotted, ".")...)
}

// lookupValue reads a dotted path of nested values; a key set to null counts as unset, as it
// does for Helm (and deepMerge removes it).
func lookupValue(values map[string]any, path string) (any, bool) {
	return lookupPath(values, strings.Split(path, "."))
}

// lookupPath reads nested values by their keys.
func lookupPath(values map[string]any, path []string) (any, bool) {
	v, found := walkPath(values, path)
	return v, found && v != nil
}

// walkPath reads nested values by their keys; found says the last key is there, null or not.
func walkPath(values map[string]any, path []string) (v any, found bool) {
	var cur any = values
	for _, key := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[key]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// helmTrue is Go template truthiness, which the chart's `if` uses: false, 0, "" and empty
// collections are false.
func helmTrue(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case float64:
		return x != 0
	case int:
		return x != 0
	case map[string]any:
		return len(x) > 0
	case []any:
		return len(x) > 0
	}
	return true
}

// CheckOwnedChartValues refuses values that set a chart value the component sets from one of
// its inputs (plan.OwnedChartValues), naming the input to use instead — a null too, which would
// remove the component's value when merged.
func CheckOwnedChartValues(values map[string]any, owned []catalog.OwnedValue) []error {
	var errs []error
	for _, o := range owned {
		if _, found := walkPath(values, o.Path); found {
			errs = append(errs, field.Invalidf(o.ValuesPath(), "the component sets it from %s (and made the controller's IAM, queue and service account for that value)", o.Input).
				WithHint("set "+o.Input+" instead"))
		}
	}
	return errs
}
