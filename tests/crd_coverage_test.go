package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/harness"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/internal/repo"
)

// Every spec field of the newest NodePool and EC2NodeClass CRDs is reachable from the
// component's typed inputs (TestCRDFieldsReachableFromTypedInputs), and a render that sets
// every field is accepted by the real CRDs and read back equal (TestCRDEveryFieldInstalls).
// When a Karpenter release adds a field, the first test names it the day its CRD lands.

// How a CRD spec field is reached when its typed input is not the property of the same name
// one level down.
type crdMapping struct {
	how   mappingKind
	typed string // mappedTo: the typed property's name
}

type mappingKind int

const (
	// mappedTo: the typed property has another name (typed).
	mappedTo mappingKind = iota
	// flattened: the typed type holds the CRD object's fields itself.
	flattened
	// parentValue: the field is the value of its parent's typed property (a plain value).
	parentValue
	// componentSet: the component writes the field itself; there is nothing to choose.
	componentSet
	// statusOnly: a field Karpenter writes, not users.
	statusOnly
)

// specMappings is the one table of CRD spec fields (1.15.2) that are not reached by name.
var specMappings = map[string]map[string]crdMapping{
	"NodePool": {
		// The NodePool type is flat: labels and annotations are the template's metadata, and
		// requirements, taints, startupTaints, expireAfter, terminationGracePeriod and
		// nodeClassRef the template's spec.
		"spec.template":          {how: flattened},
		"spec.template.metadata": {how: flattened},
		"spec.template.spec":     {how: flattened},
		// nodeClassRef is the node class's name; the component writes the group and kind of the
		// release's EC2NodeClass.
		"spec.template.spec.nodeClassRef.name":  {how: parentValue},
		"spec.template.spec.nodeClassRef.group": {how: componentSet},
		"spec.template.spec.nodeClassRef.kind":  {how: componentSet},
		// Karpenter stamps when it tainted a node.
		"spec.template.spec.taints[].timeAdded":        {how: statusOnly},
		"spec.template.spec.startupTaints[].timeAdded": {how: statusOnly},
	},
	"NodeClass (Auto Mode)": {
		// The EKS docs name the reservation owner `owner`; the typed term (shared with the
		// EC2NodeClass) calls it ownerID, as upstream Karpenter does.
		"spec.capacityReservationSelectorTerms[].owner": {how: mappedTo, typed: "ownerID"},
	},
	"EC2NodeClass": {
		// Named before this check existed; kept so programs do not break.
		"spec.blockDeviceMappings[].ebs.kmsKeyID":   {how: mappedTo, typed: "kmsKeyId"},
		"spec.blockDeviceMappings[].ebs.snapshotID": {how: mappedTo, typed: "snapshotId"},
		// role is typed too (the component defaults it to its node role); amiSelectorTerms[].alias
		// also has the amiAlias shortcut.
	},
}

// typedOnly are typed inputs without a spec field of their name, and what they become.
var typedOnly = map[string]string{
	"NodePoolSpec.name":  "metadata.name",
	"NodeClassSpec.name": "metadata.name",
	// A shortcut for amiSelectorTerms: [{alias}].
	"NodeClassSpec.amiAlias": "amiSelectorTerms[].alias",
}

// specKinds are the CRDs checked, with their typed input types in schema.json and the type
// tokens of their rendered objects. The Auto Mode NodeClass is the one the harness serves as EKS
// does (harness.AutoModeNodeClassSpec: the published schema plus the documented fields).
var specKinds = []struct{ kind, crd, typed, rendered string }{
	{"NodePool", "karpenter.sh_nodepools.yaml", "NodePoolSpec", harness.NodePoolType},
	{"EC2NodeClass", "karpenter.k8s.aws_ec2nodeclasses.yaml", "NodeClassSpec", harness.NodeClassType},
	{"NodeClass (Auto Mode)", "", "NodeClassSpec", harness.AutoModeNodeClassType},
}

// kindSpec is the spec of a checked CRD: the newest Karpenter's, or the Auto Mode NodeClass's.
func kindSpec(t *testing.T, version, crd string) *harness.SchemaNode {
	t.Helper()
	if crd != "" {
		return crdSpec(t, version, crd)
	}
	spec, err := harness.AutoModeNodeClassSpec()
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// schemaType is a type of schema.json, as far as the walk needs it.
type schemaType struct {
	Type       string                    `json:"type"`
	Properties map[string]schemaProperty `json:"properties"`
}

type schemaProperty struct {
	Type  string `json:"type"`
	Ref   string `json:"$ref"`
	Items *struct {
		Ref string `json:"$ref"`
	} `json:"items"`
}

func TestCRDFieldsReachableFromTypedInputs(t *testing.T) {
	types := loadSchemaTypes(t)
	consulted := map[string]bool{}
	// NodeClassSpec serves both node class kinds: each typed input must be some kind's field.
	used, reached := map[string]bool{}, map[string]bool{}
	for _, k := range specKinds {
		spec := kindSpec(t, harness.KarpenterVersions[0], k.crd)
		w := &typedWalk{kind: k.kind, types: types, used: used, consulted: consulted, reached: map[string]bool{k.typed: true}}
		w.walk(spec, "spec", k.typed)
		for _, p := range w.problems {
			t.Errorf("%s %s: %s", k.kind, harness.KarpenterVersions[0], p)
		}
		for typ := range w.reached {
			reached[typ] = true
		}
	}
	// The other direction: a typed input must be named as a field (or be listed).
	for _, typ := range sortedKeys(reached) {
		for _, prop := range sortedKeys(types[typ].Properties) {
			key := typ + "." + prop
			if _, ok := typedOnly[key]; ok {
				consulted["typedOnly "+key] = true
			} else if !used[key] {
				t.Errorf("typed input %s has no spec field of that name in any CRD it serves (name it as the CRD does, or list it in typedOnly)", key)
			}
		}
	}
	// The tables must not outlive the fields they describe.
	for _, k := range specKinds {
		for p := range specMappings[k.kind] {
			if !consulted[k.kind+" "+p] {
				t.Errorf("specMappings[%q][%q]: no such field in the %s CRD (%s): remove the entry", k.kind, p, k.kind, harness.KarpenterVersions[0])
			}
		}
	}
	for key := range typedOnly {
		if !consulted["typedOnly "+key] {
			t.Errorf("typedOnly[%q]: no such typed input: remove the entry", key)
		}
	}
}

// TestCRDEveryFieldInstalls renders every-field.json, whose pools and classes together set
// every spec field of the CRDs (statusOnly fields aside; several objects, since some fields
// exclude others: role/instanceProfile, alias/other AMI terms, a static pool's weight), checks
// the render does set each one, and installs it: every object must be accepted by the real
// CRDs and read back equal. At 1.15.2, and at 1.14.1 without the inputs 1.14.1 lacks.
func TestCRDEveryFieldInstalls(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"1.15.2", "1.14.1"} {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			r := render(t, everyField(t, v))
			for _, k := range specKinds[:2] { // the Auto Mode NodeClass: TestAutoModeEveryFieldInstalls
				spec := crdSpec(t, v, k.crd)
				leaves := spec.Leaves("spec")
				set := map[string]bool{}
				for _, res := range r.OfType(k.rendered) {
					for _, p := range spec.SetLeaves("spec", res.Inputs["spec"]) {
						set[p] = true
					}
				}
				for _, leaf := range leaves {
					if m, ok := specMappings[k.kind][leaf]; ok && m.how == statusOnly {
						continue
					}
					if !set[leaf] {
						t.Errorf("%s %s: no rendered object sets %s (set it in testdata/args/every-field.json)", k.kind, v, leaf)
					}
				}
				for _, p := range sortedKeys(set) {
					if !slices.Contains(leaves, p) {
						t.Errorf("%s %s: the render sets %s, which the CRD does not have", k.kind, v, p)
					}
				}
			}
			c, ctx := cluster(t)
			install(t, ctx, c, r)
		})
	}
}

// everyField is every-field.json at a version: as written at 1.15.2; at 1.14.1 without the
// inputs first in 1.15.0 (enclaveOptions, kubelet.additionalSettings, the Unhealthy budget
// reason).
func everyField(t *testing.T, version string) string {
	t.Helper()
	file := args("every-field.json")
	in := readArgs(t, file)
	if in["version"] != "1.15.2" {
		t.Fatalf("%s: version %v, want 1.15.2", file, in["version"])
	}
	if version == "1.15.2" {
		return file
	}
	in["version"] = version
	for _, c := range in["nodeClasses"].([]any) {
		class := c.(map[string]any)
		delete(class, "enclaveOptions")
		if k, ok := class["kubelet"].(map[string]any); ok {
			delete(k, "additionalSettings")
		}
	}
	for _, p := range in["nodePools"].([]any) {
		d, _ := p.(map[string]any)["disruption"].(map[string]any)
		budgets, _ := d["budgets"].([]any)
		for _, b := range budgets {
			budget := b.(map[string]any)
			if reasons, ok := budget["reasons"].([]any); ok {
				budget["reasons"] = slices.DeleteFunc(reasons, func(r any) bool { return r == "Unhealthy" })
			}
		}
	}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "every-field-"+version+".json")
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// typedWalk walks a CRD spec alongside the typed input types of schema.json.
type typedWalk struct {
	kind      string // the CRD's kind, its key in specMappings
	types     map[string]schemaType
	used      map[string]bool // "Type.property" reached from a CRD field
	reached   map[string]bool // types the walk entered
	consulted map[string]bool // "<kind> <path>" of the mapping entries used
	problems  []string
}

func (w *typedWalk) lookup(path string) (crdMapping, bool) {
	m, ok := specMappings[w.kind][path]
	if ok {
		w.consulted[w.kind+" "+path] = true
	}
	return m, ok
}

// walk checks the fields of node (an object of the CRD at path) against the typed type typ.
func (w *typedWalk) walk(node *harness.SchemaNode, path, typ string) {
	for _, k := range node.SortedProperties() {
		child, p := node.Properties[k], path+"."+k
		name := k
		if m, ok := w.lookup(p); ok {
			switch m.how {
			case flattened:
				w.walk(child, p, typ)
				continue
			case componentSet, statusOnly:
				continue
			case parentValue:
				w.problems = append(w.problems, p+": mapped as its parent's value, but the parent is not a plain typed value")
				continue
			case mappedTo:
				name = m.typed
			}
		}
		prop, ok := w.types[typ].Properties[name]
		if !ok {
			w.problems = append(w.problems, p+": not reachable from typed inputs ("+typ+" has no property "+name+")")
			continue
		}
		w.used[typ+"."+name] = true
		switch {
		case child.Schemaless():
			// The API server keeps anything under a schemaless field (the 1.15 kubelet): the typed
			// fields under it are the component's (the provider checks them against upstream).
			w.useAll(prop)
			continue
		case child.IsLeaf():
			if obj := w.objectType(prop); obj != "" {
				w.problems = append(w.problems, p+": a plain value in the CRD, typed as the object "+obj)
			}
			continue
		}
		inner, innerPath := child, p
		if len(child.Properties) == 0 {
			inner, innerPath = child.Items, p+"[]"
		}
		next := w.objectType(prop)
		if next == "" {
			// A plain typed value standing for an object: each of the object's fields must say how
			// it is reached.
			for _, leaf := range inner.Leaves(innerPath) {
				if m, ok := w.lookup(leaf); !ok || m.how == mappedTo || m.how == flattened {
					w.problems = append(w.problems, leaf+": not reachable from typed inputs ("+typ+"."+name+" is a plain value)")
				}
			}
			continue
		}
		w.reached[next] = true
		w.walk(inner, innerPath, next)
	}
}

// objectType is the object type a property refers to (directly or as list items), or "".
func (w *typedWalk) objectType(p schemaProperty) string {
	ref := p.Ref
	if p.Items != nil {
		ref = p.Items.Ref
	}
	name := strings.TrimPrefix(ref, "#/types/karpenter:index:")
	if t, ok := w.types[name]; ok && t.Type == "object" {
		return name
	}
	return ""
}

// useAll marks a property's object type, and everything below it, as reached and used.
func (w *typedWalk) useAll(p schemaProperty) {
	typ := w.objectType(p)
	if typ == "" || w.reached[typ] {
		return
	}
	w.reached[typ] = true
	for name, prop := range w.types[typ].Properties {
		w.used[typ+"."+name] = true
		w.useAll(prop)
	}
}

func loadSchemaTypes(t *testing.T) map[string]schemaType {
	t.Helper()
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Types map[string]schemaType `json:"types"`
	}
	if err := json.Unmarshal(b, &schema); err != nil {
		t.Fatal(err)
	}
	types := map[string]schemaType{}
	for token, typ := range schema.Types {
		types[strings.TrimPrefix(token, "karpenter:index:")] = typ
	}
	return types
}

// crdSpec reads the v1 spec schema of one of a version's CRD files.
func crdSpec(t *testing.T, version, file string) *harness.SchemaNode {
	t.Helper()
	k, err := harness.LoadKarpenter(version)
	if err != nil {
		t.Fatal(err)
	}
	files, err := k.CRDFiles()
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(files, func(f string) bool { return filepath.Base(f) == file })
	if i < 0 {
		t.Fatalf("Karpenter %s has no %s (CRDs: %v)", version, file, files)
	}
	spec, err := harness.CRDSpec(files[i], "v1")
	if err != nil {
		t.Fatal(err)
	}
	return spec
}
