package harness

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/internal/repo"
)

// EKS Auto Mode serves two CRDs the component's Auto Mode objects are created against: the
// NodeClass (nodeclasses.eks.amazonaws.com) and its own NodePool (nodepools.karpenter.sh, shared
// with self-managed Karpenter). AWS publishes neither, so the harness builds each from a base
// schema and labelled overlays (tests/testdata/automode, README.md there):
//
//   - NodeClass base: the schema a third party dumped from an Auto Mode cluster in 2024-12
//     (nodeclass-published.json, from datree's CRDs-catalog, MIT: LICENSE.datree), byte for
//     byte, minus what the JSON Schema converter added (removeConverterAdditions), which a CRD
//     does not have.
//   - NodePool base: upstream Karpenter's NodePool CRD of v1.2.1 (AutoModeNodePoolModule,
//     Apache-2.0, a module zip from the Go module proxy), plus EKS's 2024-12 changes to it
//     (nodepool-eks.json: the eks.amazonaws.com label-domain rule, NodeNotHealthy, the lifetime
//     defaults and rules). Together they are the 2024-12 Auto Mode NodePool, descriptions aside
//     (checked once by hand against a third-party dump that cannot be redistributed).
//   - then the fields EKS documented later (nodeclass-extensions.json, nodepool-extensions.json),
//     from the EKS User Guide, not from a published schema.
//
// The loader checks the base files' sha256, so a change goes into an overlay, never into them.
// The overlays stand in for `kubectl get crd … -o yaml` on a current Auto Mode cluster. The CRD
// envelope (group, names, scope, subresources) is not in the NodeClass dump; it comes from the
// documentation and object dumps (facts.md §1) and, for the NodePool, from upstream Karpenter.

// Auto Mode type tokens and CRD names.
const (
	AutoModeNodeClassType = "kubernetes:eks.amazonaws.com/v1:NodeClass"
	AutoModeNodeClassCRD  = "nodeclasses.eks.amazonaws.com"
	AutoModeNodePoolCRD   = "nodepools.karpenter.sh"
)

// The upstream Karpenter release and CRD file the Auto Mode NodePool is built on. EKS's 2024-12
// NodePool is upstream's of v1.1.0-v1.2.x with EKS's changes (facts.md §4); v1.2.1 is the v1.2
// release the module proxy serves (it refuses v1.2.0). install-deps.sh fetches it (RequiredModules).
const (
	AutoModeNodePoolModule = KarpenterModule + "@v1.2.1"
	AutoModeNodePoolFile   = "pkg/apis/crds/karpenter.sh_nodepools.yaml"
)

// autoModeCRD is one CRD the harness serves as EKS Auto Mode does.
type autoModeCRD struct {
	// The base schema: published, a third-party dump (JSON Schema) in AutoModeDir whose converter
	// additions are removed; or, when module is set, the openAPIV3Schema of the v1 version of the
	// CRD moduleFile in that module. sha256 is the base file's.
	published, module, moduleFile, sha256 string
	overlays                              []string // files in AutoModeDir, applied in order
	group, kind, plural, singular         string
	categories                            []string
	scale                                 bool // the scale subresource (spec.replicas / status.nodes)
}

// autoModeCRDs: the sha256 are the base files' (testdata/automode/README.md gives their provenance).
var autoModeCRDs = []autoModeCRD{
	{
		published: "nodeclass-published.json", overlays: []string{"nodeclass-extensions.json"},
		sha256: "2346cc32edd49edfd2f103896b7d4f304e08eae910f98cbf1cf486057b4c3c62",
		// The EKS docs and object dumps: eks.amazonaws.com/v1 NodeClass, plural nodeclasses,
		// cluster-scoped; the dump has a status object, so the status subresource. Short names and
		// printer columns are unknown.
		group: "eks.amazonaws.com", kind: "NodeClass", plural: "nodeclasses", singular: "nodeclass",
	},
	{
		module: AutoModeNodePoolModule, moduleFile: AutoModeNodePoolFile,
		sha256:   "fde8e5a93cf5e809805bbcec1bf1eb37a98d0e5ecede405d6265992f79d01b82",
		overlays: []string{"nodepool-eks.json", "nodepool-extensions.json"},
		// Upstream Karpenter's envelope (the CRD is the shared karpenter.sh one); scale because
		// Auto Mode documents `kubectl scale nodepool` for static pools.
		group: "karpenter.sh", kind: "NodePool", plural: "nodepools", singular: "nodepool",
		categories: []string{"karpenter"}, scale: true,
	},
}

// base names the base schema's file: published (in AutoModeDir) or module/moduleFile.
func (c autoModeCRD) base() string {
	if c.module != "" {
		return c.module + "/" + c.moduleFile
	}
	return c.published
}

// AutoModeDir holds the published NodeClass schema and the overlays (tests/testdata/automode).
func AutoModeDir() (string, error) {
	root, err := repo.Root()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "tests", "testdata", "automode"), nil
}

// AutoModeSchema is the openAPIV3Schema the harness serves for an Auto Mode CRD (kind NodeClass
// or NodePool), and the paths (dotted, from the schema root) of base values the overlays replaced
// rather than added.
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

// AutoModeNodePoolSpec is the spec of the NodePool the harness serves as Auto Mode does (upstream
// v1.2.1 with EKS's 2024-12 changes, plus the documented fields).
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
					SourceAnnotation:  c.sources(),
					StandInAnnotation: c.standIn(),
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

// sources names the base file and the overlays, in the order applied.
func (c autoModeCRD) sources() string {
	files := []string{c.base()}
	if c.module == "" {
		files[0] = "tests/testdata/automode/" + c.published
	}
	for _, f := range c.overlays {
		files = append(files, "tests/testdata/automode/"+f)
	}
	return strings.Join(files, " + ")
}

// standIn says what the CRD stands in for and what it is built from.
func (c autoModeCRD) standIn() string {
	if c.module != "" {
		return "EKS Auto Mode's " + c.kind + ": upstream Karpenter's of " + strings.TrimPrefix(c.module, KarpenterModule+"@") +
			" with EKS's 2024-12 changes, plus fields from the EKS User Guide (overlays, not a published schema)"
	}
	return "EKS Auto Mode's " + c.kind + ": the 2024-12 published schema plus fields from the EKS User Guide (not a published schema)"
}

// InstallAutoModeCRDs is the harness's stand-in for EKS enabling Auto Mode on a cluster: EKS, not
// the component, installs nodeclasses.eks.amazonaws.com and its nodepools.karpenter.sh (built
// from the 2024-12 schemas and the documented newer fields, AutoModeCRDs). It creates
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

// schema loads the base schema, checks it is the expected file, removes what a converter added
// and applies the overlays.
func (c autoModeCRD) schema() (map[string]any, []string, error) {
	dir, err := AutoModeDir()
	if err != nil {
		return nil, nil, err
	}
	b, err := c.baseBytes(dir)
	if err != nil {
		return nil, nil, err
	}
	return c.schemaFrom(b, dir)
}

// baseBytes reads the base file: the published one in dir, or the module's (downloaded into the Go
// module cache if needed; install-deps.sh pre-fetches it).
func (c autoModeCRD) baseBytes(dir string) ([]byte, error) {
	if c.module == "" {
		return os.ReadFile(filepath.Join(dir, c.published))
	}
	karpenterMu.Lock()
	mdir, err := moduleDir(c.module)
	karpenterMu.Unlock()
	if err != nil {
		return nil, err
	}
	return os.ReadFile(filepath.Join(mdir, filepath.FromSlash(c.moduleFile)))
}

// schemaFrom builds the schema from the base file's content b and the overlays in dir.
func (c autoModeCRD) schemaFrom(b []byte, dir string) (map[string]any, []string, error) {
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != c.sha256 {
		return nil, nil, fmt.Errorf("%s has sha256 %x, not the expected %s: keep the base schema as published and put changes in %s",
			c.base(), sum, c.sha256, strings.Join(c.overlays, " or "))
	}
	schema, err := c.baseSchema(b)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", c.base(), err)
	}
	var replaced []string
	for _, f := range c.overlays {
		o, err := readOverlay(filepath.Join(dir, f))
		if err != nil {
			return nil, nil, err
		}
		if err := o.apply(schema, &replaced); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", f, err)
		}
	}
	slices.Sort(replaced)
	return schema, replaced, nil
}

// baseSchema decodes the base file: a published JSON Schema without its converter's additions, or
// the openAPIV3Schema of a CRD's v1 version.
func (c autoModeCRD) baseSchema(b []byte) (map[string]any, error) {
	if c.module == "" {
		schema, err := decodeJSONObject(b)
		if err != nil {
			return nil, err
		}
		return schema, removeConverterAdditions(schema)
	}
	var crd struct {
		Kind string
		Spec struct {
			Group    string
			Names    struct{ Kind string }
			Versions []struct {
				Name   string
				Schema struct {
					OpenAPIV3Schema map[string]any `json:"openAPIV3Schema"`
				}
			}
		}
	}
	if err := yaml.Unmarshal(b, &crd); err != nil {
		return nil, err
	}
	if crd.Kind != "CustomResourceDefinition" || crd.Spec.Group != c.group || crd.Spec.Names.Kind != c.kind {
		return nil, fmt.Errorf("not the CRD of %s %s (kind %q, group %q, names.kind %q)", c.group, c.kind, crd.Kind, crd.Spec.Group, crd.Spec.Names.Kind)
	}
	for _, v := range crd.Spec.Versions {
		if v.Name == "v1" && v.Schema.OpenAPIV3Schema != nil {
			return v.Schema.OpenAPIV3Schema, nil
		}
	}
	return nil, fmt.Errorf("no v1 openAPIV3Schema")
}

func decodeJSONObject(b []byte) (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// overlay is an overlay file: what it is and where it comes from (read by people), the items it
// appends to arrays of the base schema (append: dotted path from the schema root -> items), and the
// JSON Merge Patch (RFC 7396) it then applies.
type overlay struct {
	About      []string          `json:"about"`
	Sources    map[string]string `json:"sources"`
	Append     map[string][]any  `json:"append,omitempty"`
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

// apply appends the overlay's items (an append adds, so it is not recorded in replaced), then
// applies its merge patch.
func (o *overlay) apply(schema map[string]any, replaced *[]string) error {
	for _, path := range slices.Sorted(maps.Keys(o.Append)) {
		parent, key := "", path
		if i := strings.LastIndex(path, "."); i >= 0 {
			parent, key = path[:i], path[i+1:]
		}
		owner, ok := any(schema).(map[string]any)
		if parent != "" {
			owner, ok = Lookup(schema, parent).(map[string]any)
		}
		arr, isArr := owner[key].([]any)
		if !ok || !isArr {
			return fmt.Errorf("append: %s is not an array of the base schema", path)
		}
		owner[key] = append(arr, runtime.DeepCopyJSONValue(o.Append[path]).([]any)...)
	}
	mergePatch(schema, o.MergePatch, "", replaced)
	return nil
}

// removeConverterAdditions undoes what JSON Schema converters add to a dumped CRD schema
// (SOURCE.md): datree's `additionalProperties: false` on every object, which a structural CRD
// schema cannot have beside `properties`; and, in a dump taken from the API server's OpenAPI (as
// the 2024-12 NodePool dump was), the apiVersion/kind enums and their `required`, the
// group-version-kind and selectable-fields extensions, and metadata as a `$ref` to ObjectMeta (a
// CRD has `metadata: {type: object}`). Anything else a CRD schema cannot hold is an error.
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
