package main

import (
	"fmt"
	"sort"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// Replacement rules, as pulumi-kubernetes v4 has them. Sources (github.com/pulumi/pulumi-kubernetes):
//
//   - provider/pkg/provider/provider.go, (*kubeProvider).Diff: "Changing the identity of the
//     resource always causes a replacement": forceNewFields := {".metadata.name",
//     ".metadata.namespace"}; for resources that are not Patch resources it is
//     k.forceNewProperties(newInputs) instead ("Patch resources can be updated in place for all
//     other properties"). DeleteBeforeReplace when replacing an object that is not autonamed
//     and keeps its name and namespace.
//   - provider/pkg/provider/diff.go, forceNewProperties: metadataForceNewProperties(".metadata")
//     (name, namespace) plus the forceNew table's entry for the group/version/kind. The table
//     has entries only for built-in kinds (apps, core, policy, rbac, storage, batch), none for
//     custom resources; core/v1 ConfigMap: {".binaryData", ".data"} (ported below; the other
//     built-in kinds are refused by typeInfo.supported).
//   - provider/pkg/provider/helm_release.go, (*helmReleaseProvider).Diff: forceNewFields :=
//     {".name", ".namespace"}, DeleteBeforeReplace false. provider.go only delegates to it
//     when the new inputs hold no unknowns (`isHelmRelease(urn) && !hasComputedValue(newInputs)`);
//     otherwise the generic diff runs, whose .metadata.* paths a Release does not have, so a
//     Release whose new inputs hold an unknown (a preview with an unknown role ARN in values)
//     is an update, never a replacement — recomputed with known values during `up`.
//
// apiVersion is in none of these lists: a change of apiVersion for the same kind (a v1 NodePool
// aliased to its v1beta1 type, pulumi-kubernetes#798 "Auto-alias resource apiVersions") is an
// update, applied in place. Kind is the stand-in's own addition: pulumi-kubernetes does not
// list it (a kind can only change through an alias across kinds, which the component never
// registers), and applying another kind in place would leave the old object behind.
var (
	objectReplace    = []resource.PropertyPath{{"metadata", "name"}, {"metadata", "namespace"}, {"kind"}}
	patchReplace     = []resource.PropertyPath{{"metadata", "name"}, {"metadata", "namespace"}}
	configMapReplace = []resource.PropertyPath{{"binaryData"}, {"data"}}
	releaseReplace   = []resource.PropertyPath{{"name"}, {"namespace"}}
)

// replacePaths are the properties whose change replaces a resource of type t with new inputs news.
func replacePaths(t typeInfo, news resource.PropertyMap) []resource.PropertyPath {
	switch {
	case t.Release:
		if news.ContainsUnknowns() {
			return nil
		}
		return releaseReplace
	case t.Patch:
		return patchReplace
	case t.GVK.Group == "" && t.GVK.Version == "v1" && t.GVK.Kind == "ConfigMap":
		return append(append([]resource.PropertyPath{}, objectReplace...), configMapReplace...)
	}
	return objectReplace
}

// diffInputs compares old and new inputs property by property. An unknown new value counts as
// a change (it may differ once known). Secrets compare by their values.
func diffInputs(olds, news resource.PropertyMap) map[string]*pulumirpc.PropertyDiff {
	out := map[string]*pulumirpc.PropertyDiff{}
	diffObjects(nil, olds, news, out)
	return out
}

func diffObjects(path resource.PropertyPath, olds, news resource.PropertyMap, out map[string]*pulumirpc.PropertyDiff) {
	keys := map[resource.PropertyKey]bool{}
	for k := range olds {
		keys[k] = true
	}
	for k := range news {
		keys[k] = true
	}
	for k := range keys {
		o, hasOld := olds[k]
		n, hasNew := news[k]
		diffValues(append(append(resource.PropertyPath{}, path...), string(k)), o, n, hasOld && !o.IsNull(), hasNew && !n.IsNull(), out)
	}
}

func diffValues(path resource.PropertyPath, o, n resource.PropertyValue, hasOld, hasNew bool, out map[string]*pulumirpc.PropertyDiff) {
	o, n = unsecret(o), unsecret(n)
	key := path.String()
	switch {
	case !hasOld && !hasNew:
	case !hasOld:
		out[key] = &pulumirpc.PropertyDiff{Kind: pulumirpc.PropertyDiff_ADD}
	case !hasNew:
		out[key] = &pulumirpc.PropertyDiff{Kind: pulumirpc.PropertyDiff_DELETE}
	case isUnknown(n):
		out[key] = &pulumirpc.PropertyDiff{Kind: pulumirpc.PropertyDiff_UPDATE}
	case o.IsObject() && n.IsObject():
		diffObjects(path, o.ObjectValue(), n.ObjectValue(), out)
	case o.IsArray() && n.IsArray():
		oa, na := o.ArrayValue(), n.ArrayValue()
		for i := 0; i < max(len(oa), len(na)); i++ {
			var ov, nv resource.PropertyValue
			if i < len(oa) {
				ov = oa[i]
			}
			if i < len(na) {
				nv = na[i]
			}
			diffValues(append(append(resource.PropertyPath{}, path...), i), ov, nv, i < len(oa), i < len(na), out)
		}
	case !o.DeepEquals(n):
		out[key] = &pulumirpc.PropertyDiff{Kind: pulumirpc.PropertyDiff_UPDATE}
	}
}

func unsecret(v resource.PropertyValue) resource.PropertyValue {
	for v.IsSecret() {
		v = v.SecretValue().Element
	}
	if v.IsOutput() && v.OutputValue().Known {
		return v.OutputValue().Element
	}
	return v
}

func isUnknown(v resource.PropertyValue) bool {
	return v.IsComputed() || (v.IsOutput() && !v.OutputValue().Known)
}

// related says whether a changed path touches a replacement path: equal, inside it (a key of
// a ConfigMap's data) or containing it (all of metadata added or removed).
func related(changed, rule resource.PropertyPath) bool {
	return rule.Contains(changed) || changed.Contains(rule)
}

// diffResponse turns a property diff into the engine's answer: kinds upgraded to *_REPLACE for
// replacement paths, changes under ignoreChanges dropped.
func diffResponse(t typeInfo, olds, news resource.PropertyMap, ignoreChanges []string) (*pulumirpc.DiffResponse, error) {
	detailed := diffInputs(olds, news)
	for _, ig := range ignoreChanges {
		ip, err := resource.ParsePropertyPath(ig)
		if err != nil {
			return nil, fmt.Errorf("ignoreChanges %q: %w", ig, err)
		}
		for k := range detailed {
			if p, err := resource.ParsePropertyPath(k); err == nil && ip.Contains(p) {
				delete(detailed, k)
			}
		}
	}
	rules := replacePaths(t, news)
	var replaces, diffs []string
	for k, d := range detailed {
		p, err := resource.ParsePropertyPath(k)
		if err != nil {
			return nil, fmt.Errorf("diff path %q: %w", k, err)
		}
		diffs = append(diffs, fmt.Sprint(p[0]))
		for _, r := range rules {
			if related(p, r) {
				switch d.Kind {
				case pulumirpc.PropertyDiff_ADD:
					d.Kind = pulumirpc.PropertyDiff_ADD_REPLACE
				case pulumirpc.PropertyDiff_DELETE:
					d.Kind = pulumirpc.PropertyDiff_DELETE_REPLACE
				case pulumirpc.PropertyDiff_UPDATE:
					d.Kind = pulumirpc.PropertyDiff_UPDATE_REPLACE
				}
				replaces = append(replaces, k)
				break
			}
		}
	}
	sort.Strings(replaces)
	diffs = dedupe(diffs)
	resp := &pulumirpc.DiffResponse{
		Changes:         pulumirpc.DiffResponse_DIFF_NONE,
		Replaces:        replaces,
		Diffs:           diffs,
		DetailedDiff:    detailed,
		HasDetailedDiff: true,
	}
	if len(detailed) > 0 {
		resp.Changes = pulumirpc.DiffResponse_DIFF_SOME
	}
	if len(replaces) > 0 && !t.Release {
		// provider.go: replace before deleting only when the new object can coexist with the
		// old one, i.e. when it is autonamed or its name or namespace changes.
		oldName, oldNS := nameOf(olds)
		newName, newNS := nameOf(news)
		resp.DeleteBeforeReplace = !autonamed(news) && newName != "" && newName == oldName && newNS == oldNS
	}
	return resp, nil
}

func dedupe(s []string) []string {
	sort.Strings(s)
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// nameOf returns metadata.name and metadata.namespace when they are known strings.
func nameOf(pm resource.PropertyMap) (name, namespace string) {
	md := unsecret(pm["metadata"])
	if !md.IsObject() {
		return "", ""
	}
	str := func(k resource.PropertyKey) string {
		if v := unsecret(md.ObjectValue()[k]); v.IsString() {
			return v.StringValue()
		}
		return ""
	}
	return str("name"), str("namespace")
}

// autonamedAnnotation marks a name pulumi-kubernetes chose (metadata.AnnotationAutonamed).
const autonamedAnnotation = "pulumi.com/autonamed"

func autonamed(pm resource.PropertyMap) bool {
	md := unsecret(pm["metadata"])
	if !md.IsObject() {
		return false
	}
	ann := unsecret(md.ObjectValue()["annotations"])
	if !ann.IsObject() {
		return false
	}
	v := unsecret(ann.ObjectValue()[autonamedAnnotation])
	return v.IsString() && v.StringValue() == "true"
}
