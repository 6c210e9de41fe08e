package main

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/harness"
)

// releaseInputs are the Release inputs the stand-in installs with, the same set the harness
// implements (harness.releaseFor refuses any other at install; Check refuses it already, so a
// preview fails naming it). "compat" is pulumi-kubernetes' marker; skipAwait and timeout only
// change waiting.
var releaseInputs = map[string]bool{
	"name": true, "chart": true, "version": true, "namespace": true, "createNamespace": true,
	"skipCrds": true, "values": true, "repositoryOpts": true, "compat": true,
	"skipAwait": true, "timeout": true, "description": true,
}

var repositoryOptsInputs = map[string]bool{"repo": true, "username": true, "password": true}

// defaultReleaseTimeout is pulumi-kubernetes' defaultTimeoutSeconds (helm_release.go): Check
// sets `timeout` to it unless skipAwait is true; it bounds the wait after an uninstall.
const defaultReleaseTimeout = 300

// checkRelease validates and defaults a Release's inputs as pulumi-kubernetes'
// helmReleaseProvider.Check does: the old name is kept, else the release is autonamed
// (logical name + "-" + 8 hex digits, from the engine's random seed so runs are
// reproducible), namespace defaults to "default", timeout to 300 unless skipAwait, and with
// no unknowns the chart is loaded (failures name "chart") and version set to the chart's.
func checkRelease(urnName string, seed []byte, olds, news resource.PropertyMap) ([]*pulumirpc.CheckFailure, error) {
	var failures []*pulumirpc.CheckFailure
	for _, k := range news.StableKeys() {
		if !releaseInputs[string(k)] {
			failures = append(failures, &pulumirpc.CheckFailure{Property: string(k),
				Reason: fmt.Sprintf("Release input %q is not implemented by the %s", k, StandIn)})
		}
	}
	if ro := unsecret(news["repositoryOpts"]); ro.IsObject() {
		for _, k := range ro.ObjectValue().StableKeys() {
			if !repositoryOptsInputs[string(k)] {
				failures = append(failures, &pulumirpc.CheckFailure{Property: "repositoryOpts." + string(k),
					Reason: fmt.Sprintf("repositoryOpts.%s is not implemented by the %s", k, StandIn)})
			}
		}
	}
	if v, ok := news["name"]; !ok || (v.IsString() && v.StringValue() == "") {
		if old := str(olds, "name"); old != "" {
			news["name"] = resource.NewStringProperty(old)
		} else {
			name, err := resource.NewUniqueName(seed, urnName+"-", 8, 0, nil)
			if err != nil {
				return nil, err
			}
			news["name"] = resource.NewStringProperty(name)
		}
	}
	if v, ok := news["namespace"]; !ok || (v.IsString() && v.StringValue() == "") {
		news["namespace"] = resource.NewStringProperty("default")
	}
	if sa := unsecret(news["skipAwait"]); !(sa.IsBool() && sa.BoolValue()) {
		if _, ok := news["timeout"]; !ok {
			news["timeout"] = resource.NewNumberProperty(defaultReleaseTimeout)
		}
	}
	if len(failures) > 0 || news.ContainsUnknowns() {
		return failures, nil
	}
	in, err := plain(news)
	if err != nil {
		return nil, err
	}
	ch, err := loadChart(in)
	if err != nil {
		return append(failures, &pulumirpc.CheckFailure{Property: "chart",
			Reason: fmt.Sprintf("%v; check the chart name and repository configuration.", err)}), nil
	}
	news["version"] = resource.NewStringProperty(ch.Metadata.Version)
	return failures, nil
}

// loadChart resolves a Release's chart the way the harness installs it (harness.releaseFor):
// repositoryOpts.repo joined to a bare chart name, a local chart directory as it is, else the
// Karpenter chart of the release's version from the module zip (harness.LoadKarpenter).
func loadChart(in map[string]any) (*chart.Chart, error) {
	ref, _ := in["chart"].(string)
	version, _ := in["version"].(string)
	if ro, ok := in["repositoryOpts"].(map[string]any); ok {
		if repo, _ := ro["repo"].(string); repo != "" && !strings.Contains(ref, "/") {
			ref = strings.TrimSuffix(repo, "/") + "/" + ref
		}
	}
	if st, err := os.Stat(ref); err == nil && st.IsDir() {
		return loader.Load(ref)
	}
	if version == "" {
		return nil, fmt.Errorf("chart %q has no version; the %s needs one to pick the Karpenter module", ref, StandIn)
	}
	k, err := harness.LoadKarpenter(version)
	if err != nil {
		return nil, err
	}
	return k.LoadChart(ref)
}

// checkObject validates and defaults a Kubernetes object's inputs as pulumi-kubernetes'
// Check does: apiVersion and kind from the type token (a mismatch is a failure), a Patch needs
// metadata.name, other objects without a name keep their old autoname or get a new one
// (logical name + "-" + 8 hex digits, from the engine's random seed) marked with the
// pulumi.com/autonamed annotation.
func checkObject(t typeInfo, urnName string, seed []byte, olds, news resource.PropertyMap) ([]*pulumirpc.CheckFailure, error) {
	var failures []*pulumirpc.CheckFailure
	want := map[resource.PropertyKey]string{"apiVersion": t.APIVersion(), "kind": t.GVK.Kind}
	keys := []resource.PropertyKey{"apiVersion", "kind"}
	for _, k := range keys {
		v, ok := news[k]
		switch {
		case !ok || v.IsNull():
			news[k] = resource.NewStringProperty(want[k])
		case isUnknown(v):
		case !unsecret(v).IsString() || unsecret(v).StringValue() != want[k]:
			failures = append(failures, &pulumirpc.CheckFailure{Property: string(k),
				Reason: fmt.Sprintf("%s is %v, but the type %s says %q", k, unsecret(v).Mappable(), t.Token, want[k])})
		}
	}
	md, ok := news["metadata"]
	switch {
	case ok && isUnknown(md):
		return failures, nil
	case ok && !md.IsObject():
		return append(failures, &pulumirpc.CheckFailure{Property: "metadata", Reason: "metadata must be an object"}), nil
	case !ok:
		md = resource.NewObjectProperty(resource.PropertyMap{})
	}
	m := md.ObjectValue().Copy()
	if v, ok := m["name"]; !ok || (v.IsString() && v.StringValue() == "") {
		oldName, _ := nameOf(olds)
		switch {
		case t.Patch:
			return append(failures, &pulumirpc.CheckFailure{Property: "metadata.name",
				Reason: "patch resources require the resource `.metadata.name` to be set"}), nil
		case oldName != "" && autonamed(olds):
			m["name"] = resource.NewStringProperty(oldName)
		default:
			name, err := resource.NewUniqueName(seed, urnName+"-", 8, 0, nil)
			if err != nil {
				return nil, err
			}
			m["name"] = resource.NewStringProperty(name)
		}
		ann := resource.PropertyMap{}
		if a := m["annotations"]; a.IsObject() {
			ann = a.ObjectValue().Copy()
		}
		ann[autonamedAnnotation] = resource.NewStringProperty("true")
		m["annotations"] = resource.NewObjectProperty(ann)
	}
	news["metadata"] = resource.NewObjectProperty(m)
	sort.Slice(failures, func(i, j int) bool { return failures[i].Property < failures[j].Property })
	return failures, nil
}
