package harness

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// EKS Auto Mode serves two CRDs the component's Auto Mode objects are created against: the
// NodeClass (nodeclasses.eks.amazonaws.com) and its own NodePool (nodepools.karpenter.sh, shared
// with self-managed Karpenter). AWS publishes neither, so the harness builds them from what is
// public (tests/testdata/automode, README.md there):
//
//   - the schema third parties dumped from Auto Mode clusters in 2024-12 (nodeclass-published.json,
//     nodepool-published.json), byte for byte; the loader checks their sha256, so a change goes
//     into the overlay, never into them;
//   - minus what the JSON Schema converters added (converterAdditions), which a CRD does not have;
//   - plus an overlay each (nodeclass-extensions.json, nodepool-extensions.json): the fields EKS
//     documented later, from the EKS User Guide, not from a published schema. They stand in for
//     `kubectl get crd … -o yaml` on a current Auto Mode cluster.
//
// The CRD envelope (group, names, scope, subresources) is not in the dumps; it comes from the
// documentation and object dumps (facts.md §1) and, for the NodePool, from upstream Karpenter.

// Auto Mode type tokens and CRD names.
const (
	AutoModeNodeClassType = "kubernetes:eks.amazonaws.com/v1:NodeClass"
	AutoModeNodeClassCRD  = "nodeclasses.eks.amazonaws.com"
	AutoModeNodePoolCRD   = "nodepools.karpenter.sh"
)

// autoModeCRD is one CRD the harness serves as EKS Auto Mode does.
type autoModeCRD struct {
	published, sha256, extensions string // files in AutoModeDir
	group, kind, plural, singular string
	categories                    []string
	scale                         bool // the scale subresource (spec.replicas / status.nodes)
}

// autoModeCRDs: the sha256 are the published files' (testdata/automode/README.md gives their provenance).
var autoModeCRDs = []autoModeCRD{
	{
		published: "nodeclass-published.json", extensions: "nodeclass-extensions.json",
		sha256: "2346cc32edd49edfd2f103896b7d4f304e08eae910f98cbf1cf486057b4c3c62",
		// The EKS docs and object dumps: eks.amazonaws.com/v1 NodeClass, plural nodeclasses,
		// cluster-scoped; the dump has a status object, so the status subresource. Short names and
		// printer columns are unknown.
		group: "eks.amazonaws.com", kind: "NodeClass", plural: "nodeclasses", singular: "nodeclass",
	},
	{
		published: "nodepool-published.json", extensions: "nodepool-extensions.json",
		sha256: "8b92fda74f83ec381d9c2d2f9b3ce7e031399e0c7f0e051adabd35d7bcc400ae",
		// Upstream Karpenter's envelope (the CRD is the shared karpenter.sh one); scale because
		// Auto Mode documents `kubectl scale nodepool` for static pools.
		group: "karpenter.sh", kind: "NodePool", plural: "nodepools", singular: "nodepool",
		categories: []string{"karpenter"}, scale: true,
	},
}

// AutoModeDir holds the published schemas and the overlays (tests/testdata/automode).
func AutoModeDir() (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "tests", "testdata", "automode"), nil
}

// AutoModeSchema is the openAPIV3Schema the harness serves for an Auto Mode CRD (kind NodeClass
// or NodePool), and the paths (dotted, from the schema root) of published values the overlay
// replaced rather than added.
func AutoModeSchema(kind string) (schema map[string]any, replaced []string, err error) {
	for _, c := range autoModeCRDs {
		if c.kind == kind {
			return c.schema()
		}
	}
	return nil, nil, fmt.Errorf("no Auto Mode CRD of kind %q", kind)
}

// AutoModeNodeClassSpec is the spec of the NodeClass the harness serves (published 2024-12 schema
// plus the documented fields), for walks over its fields (Leaves, SetLeaves).
func AutoModeNodeClassSpec() (*SchemaNode, error) { return autoModeSpec("NodeClass") }

// AutoModeNodePoolSpec is the spec of the NodePool the harness serves as Auto Mode does.
func AutoModeNodePoolSpec() (*SchemaNode, error) { return autoModeSpec("NodePool") }

func autoModeSpec(kind string) (*SchemaNode, error) {
	schema, _, err := AutoModeSchema(kind)
	if err != nil {
		return nil, err
	}
	return SpecNode(schema)
}

// SpecNode is the spec of an openAPIV3Schema (as a CRD version holds it) as a SchemaNode.
func SpecNode(openAPIV3Schema map[string]any) (*SchemaNode, error) {
	spec, ok := Lookup(openAPIV3Schema, "properties.spec").(map[string]any)
	if !ok {
		return nil, fmt.Errorf("schema has no properties.spec")
	}
	b, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	var n SchemaNode
	return &n, json.Unmarshal(b, &n)
}

// AutoModeCRDs are the CustomResourceDefinitions EKS serves for Auto Mode's NodeClass and NodePool,
// as the harness builds them (see the top of this file).
func AutoModeCRDs() ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for _, c := range autoModeCRDs {
		schema, _, err := c.schema()
		if err != nil {
			return nil, err
		}
		subresources := map[string]any{"status": map[string]any{}}
		if c.scale {
			subresources["scale"] = map[string]any{"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.nodes"}
		}
		names := map[string]any{"kind": c.kind, "listKind": c.kind + "List", "plural": c.plural, "singular": c.singular}
		if len(c.categories) > 0 {
			names["categories"] = toAny(c.categories)
		}
		out = append(out, &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "apiextensions.k8s.io/v1",
			"kind":       "CustomResourceDefinition",
			"metadata": map[string]any{
				"name": c.plural + "." + c.group,
				"annotations": map[string]any{
					SourceAnnotation:  "tests/testdata/automode/" + c.published + " + " + c.extensions,
					StandInAnnotation: "EKS Auto Mode's " + c.kind + ": the 2024-12 published schema plus fields from the EKS User Guide (not a published schema)",
				},
			},
			"spec": map[string]any{
				"group": c.group,
				"names": names,
				"scope": "Cluster",
				"versions": []any{map[string]any{
					"name": "v1", "served": true, "storage": true,
					"schema":       map[string]any{"openAPIV3Schema": schema},
					"subresources": subresources,
				}},
			},
		}})
	}
	return out, nil
}

// InstallAutoModeCRDs is the harness's stand-in for EKS enabling Auto Mode on a cluster: EKS, not
// the component, installs nodeclasses.eks.amazonaws.com and its nodepools.karpenter.sh (built
// from the published 2024-12 schemas and the documented newer fields, AutoModeCRDs). It creates
// both (strict field validation: the API server must take every schema keyword) and waits until
// they are Established. A render with mode autoMode has no Helm release, so Install then creates
// its NodeClasses and NodePools on these CRDs. It fails if either CRD already exists (Karpenter's
// CRD release on this cluster, say): which schema EKS would leave there is unknown.
func (c *Cluster) InstallAutoModeCRDs(ctx context.Context) error {
	crds, err := AutoModeCRDs()
	if err != nil {
		return err
	}
	var names []string
	for _, crd := range crds {
		_, err := c.Dynamic.Resource(crdGVR).Create(ctx, crd, metav1.CreateOptions{FieldManager: "eks", FieldValidation: "Strict"})
		if apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create CRD %s as EKS Auto Mode serves it: it already exists (installed by a Karpenter CRD release?): %w", crd.GetName(), err)
		}
		if err != nil {
			return fmt.Errorf("create CRD %s as EKS Auto Mode serves it: %w", crd.GetName(), err)
		}
		names = append(names, crd.GetName())
	}
	return c.waitEstablished(ctx, names)
}

// schema loads the published schema, checks it is the published one, removes what the converter
// added and applies the overlay.
func (c autoModeCRD) schema() (map[string]any, []string, error) {
	dir, err := AutoModeDir()
	if err != nil {
		return nil, nil, err
	}
	return c.schemaIn(dir)
}

func (c autoModeCRD) schemaIn(dir string) (map[string]any, []string, error) {
	file := filepath.Join(dir, c.published)
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, nil, err
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != c.sha256 {
		return nil, nil, fmt.Errorf("%s has sha256 %x, not the published file's %s: keep the published schema as published and put changes in %s",
			file, sum, c.sha256, c.extensions)
	}
	schema, err := decodeJSONObject(b)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", file, err)
	}
	if err := removeConverterAdditions(schema); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", file, err)
	}
	ext, err := readOverlay(filepath.Join(dir, c.extensions))
	if err != nil {
		return nil, nil, err
	}
	var replaced []string
	mergePatch(schema, ext.MergePatch, "", &replaced)
	return schema, replaced, nil
}

func readJSONFile(file string) (map[string]any, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	m, err := decodeJSONObject(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return m, nil
}

func decodeJSONObject(b []byte) (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// overlay is an extensions file: what it is and where it comes from (read by people), and the
// JSON Merge Patch (RFC 7396) the harness applies to the published openAPIV3Schema.
type overlay struct {
	About      []string          `json:"about"`
	Sources    map[string]string `json:"sources"`
	MergePatch map[string]any    `json:"mergePatch"`
}

func readOverlay(file string) (*overlay, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var o overlay
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(o.About) == 0 || len(o.Sources) == 0 || len(o.MergePatch) == 0 {
		return nil, fmt.Errorf("%s: want about, sources and mergePatch", file)
	}
	return &o, nil
}

// removeConverterAdditions undoes what the JSON Schema converters added to the CRDs' schemas
// (SOURCE.md): datree's `additionalProperties: false` on every object, which a structural CRD
// schema cannot have beside `properties`; and, in the NodePool dump taken from the API server's
// OpenAPI, the apiVersion/kind enums and their `required`, the group-version-kind and
// selectable-fields extensions, and metadata as a `$ref` to ObjectMeta (a CRD has
// `metadata: {type: object}`). Anything else a CRD schema cannot hold is an error.
func removeConverterAdditions(schema map[string]any) error {
	var walk func(n any)
	walk = func(n any) {
		switch x := n.(type) {
		case map[string]any:
			if x["additionalProperties"] == false {
				delete(x, "additionalProperties")
			}
			for _, v := range x {
				walk(v)
			}
		case []any:
			for _, v := range x {
				walk(v)
			}
		}
	}
	walk(schema)
	delete(schema, "x-kubernetes-group-version-kind")
	delete(schema, "x-kubernetes-selectable-fields")
	if req, ok := schema["required"].([]any); ok {
		req = slices.DeleteFunc(req, func(v any) bool { return v == "apiVersion" || v == "kind" })
		schema["required"] = req
		if len(req) == 0 {
			delete(schema, "required")
		}
	}
	for _, k := range []string{"apiVersion", "kind"} {
		if p, ok := Lookup(schema, "properties."+k).(map[string]any); ok {
			delete(p, "enum")
		}
	}
	if props, ok := schema["properties"].(map[string]any); ok {
		if md, ok := props["metadata"].(map[string]any); ok && md["allOf"] != nil {
			props["metadata"] = map[string]any{"type": "object"}
		}
	}
	var bad []string
	var check func(path string, n any)
	check = func(path string, n any) {
		switch x := n.(type) {
		case map[string]any:
			for k, v := range x {
				if k == "$ref" || k == "allOf" || (k == "additionalProperties" && !isMap(v)) || strings.HasPrefix(k, "$") {
					bad = append(bad, path+"."+k)
				}
				check(path+"."+k, v)
			}
		case []any:
			for i, v := range x {
				check(fmt.Sprintf("%s[%d]", path, i), v)
			}
		}
	}
	check("", schema)
	if len(bad) > 0 {
		slices.Sort(bad)
		return fmt.Errorf("converter output a CRD schema cannot hold: %v", bad)
	}
	return nil
}

func isMap(v any) bool { _, ok := v.(map[string]any); return ok }

// mergePatch applies a JSON Merge Patch (RFC 7396) to target in place, recording in replaced the
// path of every value of target it replaced or removed (as opposed to added).
func mergePatch(target, patch map[string]any, path string, replaced *[]string) {
	for k, pv := range patch {
		p := strings.TrimPrefix(path+"."+k, ".")
		tv, exists := target[k]
		if pv == nil {
			if exists {
				*replaced = append(*replaced, p)
				delete(target, k)
			}
			continue
		}
		pm, patchIsMap := pv.(map[string]any)
		tm, targetIsMap := tv.(map[string]any)
		switch {
		case patchIsMap && targetIsMap:
			mergePatch(tm, pm, p, replaced)
		case patchIsMap:
			if exists {
				*replaced = append(*replaced, p)
			}
			fresh := map[string]any{}
			mergePatch(fresh, pm, p, new([]string))
			target[k] = fresh
		default:
			if exists {
				*replaced = append(*replaced, p)
			}
			target[k] = pv
		}
	}
	slices.Sort(*replaced)
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// MergePatch returns a copy of target with a JSON Merge Patch (RFC 7396) applied: objects merge,
// null removes, anything else replaces. Tests use it to derive variants of an object.
func MergePatch(target, patch map[string]any) map[string]any {
	out := runtimeDeepCopy(target)
	mergePatch(out, runtimeDeepCopy(patch), "", new([]string))
	return out
}

func runtimeDeepCopy(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return runtime.DeepCopyJSON(m)
}
