package harness

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// TestAutoModeSchemas: the Auto Mode CRD schemas are their base files (checked by sha256) with
// only a converter's additions removed, and the overlays only add, except for the values listed
// here, which they replace on purpose.
func TestAutoModeSchemas(t *testing.T) {
	const tspec = "properties.spec.properties.template.properties.spec.properties."
	wantReplaced := map[string][]string{
		// role becomes optional: exactly one of role and instanceProfile (a CEL rule).
		"NodeClass": {"properties.spec.required"},
		"NodePool": {
			// nodepool-extensions.json: Balanced added to the enum (and its description labelled).
			"properties.spec.properties.disruption.properties.consolidationPolicy.description",
			"properties.spec.properties.disruption.properties.consolidationPolicy.enum",
			// nodepool-eks.json, EKS's 2024-12 changes to upstream v1.2.1: the expireAfter default
			// (336h, not 720h), and the labelled descriptions of what it changes (the budget
			// reasons, the label rules' fields, template.spec's rules, the two defaults).
			"properties.spec.properties.disruption.properties.budgets.items.properties.reasons.items.description",
			"properties.spec.properties.template.properties.metadata.properties.labels.description",
			"properties.spec.properties.template.properties.spec.description",
			tspec + "expireAfter.default",
			tspec + "expireAfter.description",
			tspec + "requirements.items.properties.key.description",
			tspec + "terminationGracePeriod.description",
		},
	}
	for _, kind := range []string{"NodeClass", "NodePool"} {
		schema, replaced, err := AutoModeSchema(kind)
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(wantReplaced[kind])
		if !reflect.DeepEqual(replaced, wantReplaced[kind]) {
			t.Errorf("%s: the overlay replaces %v, want only %v (an overlay adds what EKS changed or documented; it does not rewrite the base schema)", kind, replaced, wantReplaced[kind])
		}
		var check func(path string, n any)
		check = func(path string, n any) {
			switch x := n.(type) {
			case map[string]any:
				if x["additionalProperties"] == false {
					t.Errorf("%s: %s has additionalProperties: false (datree's converter adds it; a structural CRD schema cannot have it)", kind, path)
				}
				for k, v := range x {
					check(path+"."+k, v)
				}
			case []any:
				for _, v := range x {
					check(path+"[]", v)
				}
			}
		}
		check(kind, schema)
		if _, ok := Lookup(schema, "properties.metadata").(map[string]any)["allOf"]; ok {
			t.Errorf("%s: metadata still refers to ObjectMeta", kind)
		}
	}

	// Every spec field the overlays add carries its label ([harness overlay: ...]) on itself or
	// on the added field above it, and so does the owner of every array an overlay appends to.
	published := map[string]*SchemaNode{}
	for _, c := range autoModeCRDs {
		b, err := c.baseBytes(autoModeDir(t))
		if err != nil {
			t.Fatal(err)
		}
		schema, err := c.baseSchema(b)
		if err != nil {
			t.Fatal(err)
		}
		if published[c.kind], err = SpecNode(schema); err != nil {
			t.Fatal(err)
		}
		served, _, err := AutoModeSchema(c.kind)
		if err != nil {
			t.Fatal(err)
		}
		appended := 0
		for _, f := range c.overlays {
			o, err := readOverlay(filepath.Join(autoModeDir(t), f))
			if err != nil {
				t.Fatal(err)
			}
			for path := range o.Append {
				appended++
				owner := path[:strings.LastIndex(path, ".")]
				if d, _ := Lookup(served, owner+".description").(string); !strings.HasPrefix(d, "[harness overlay:") {
					t.Errorf("%s: %s appends to %s, whose description is not labelled [harness overlay: ...]: %q", c.kind, f, path, d)
				}
			}
		}
		// nodepool-eks.json: the label-domain rule (requirements, labels) and NodeNotHealthy.
		if want := map[string]int{"NodeClass": 0, "NodePool": 3}[c.kind]; appended != want {
			t.Errorf("%s: the overlays append to %d arrays, want %d", c.kind, appended, want)
		}
	}
	for _, kind := range []string{"NodeClass", "NodePool"} {
		schema, _, _ := AutoModeSchema(kind)
		spec, _ := SpecNode(schema)
		old := published[kind].Leaves("spec")
		var added []string
		for _, leaf := range spec.Leaves("spec") {
			if !slices.Contains(old, leaf) {
				added = append(added, leaf)
				if !labelled(Lookup(schema, "properties").(map[string]any), strings.Split(strings.TrimPrefix(leaf, "spec."), "."), "spec") {
					t.Errorf("%s: %s comes from the overlay but neither it nor an added field above it has a [harness overlay: ...] description", kind, leaf)
				}
			}
		}
		if len(added) == 0 {
			t.Errorf("%s: the overlay adds no spec field", kind)
		}
		t.Logf("%s: the overlay adds %v", kind, added)
	}
}

// labelled walks a leaf's path down the schema (properties, items) and reports whether a node on it
// has a description starting with [harness overlay:.
func labelled(props map[string]any, path []string, first string) bool {
	node, _ := props[first].(map[string]any)
	for i := 0; node != nil; i++ {
		if d, _ := node["description"].(string); strings.HasPrefix(d, "[harness overlay:") {
			return true
		}
		if i == len(path) {
			return false
		}
		if items, ok := node["items"].(map[string]any); ok && node["properties"] == nil {
			node = items
		}
		name := strings.TrimSuffix(path[i], "[]")
		node, _ = Lookup(node, "properties."+name).(map[string]any)
	}
	return false
}

func autoModeDir(t *testing.T) string {
	t.Helper()
	dir, err := AutoModeDir()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestAutoModePublishedSchemaUnchanged: an edited base schema (the published NodeClass file, the
// upstream NodePool CRD) is refused, so changes go into the labelled overlays.
func TestAutoModePublishedSchemaUnchanged(t *testing.T) {
	for _, c := range autoModeCRDs {
		b, err := c.baseBytes(autoModeDir(t))
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.schemaFrom(b, autoModeDir(t)); err != nil {
			t.Fatalf("%s unedited: %v", c.base(), err)
		}
		edited := strings.Replace(string(b), `"type": "string"`, `"type": "string", "maxLength": 1`, 1)
		if c.module != "" { // a CRD file: a schema change in YAML
			edited = strings.Replace(string(b), "type: string\n", "type: string\n                maxLength: 1\n", 1)
		}
		if edited == string(b) {
			t.Fatalf("%s: the test's edit changed nothing", c.base())
		}
		if _, _, err := c.schemaFrom([]byte(edited), autoModeDir(t)); err == nil || !strings.Contains(err.Error(), "sha256") {
			t.Errorf("%s edited: error %v, want a sha256 mismatch", c.base(), err)
		}
	}
}

// TestAutoModeOverlayAppend: append adds items at the end of an array of the base schema (not
// recorded as a replacement) and fails naming a path that is not an array.
func TestAutoModeOverlayAppend(t *testing.T) {
	schema := map[string]any{"properties": map[string]any{"reasons": map[string]any{"enum": []any{"Empty"}}}}
	o := &overlay{Append: map[string][]any{"properties.reasons.enum": {"NodeNotHealthy"}}, MergePatch: map[string]any{"x": true}}
	var replaced []string
	if err := o.apply(schema, &replaced); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"x": true, "properties": map[string]any{"reasons": map[string]any{"enum": []any{"Empty", "NodeNotHealthy"}}}}
	if !reflect.DeepEqual(schema, want) || len(replaced) != 0 {
		t.Errorf("got %v (replaced %v), want %v", schema, replaced, want)
	}
	o = &overlay{Append: map[string][]any{"properties.reasons.items.enum": {"x"}}}
	if err := o.apply(schema, &replaced); err == nil || !strings.Contains(err.Error(), "properties.reasons.items.enum") {
		t.Errorf("append to a missing array: error %v, want it named", err)
	}
}

func TestRemoveConverterAdditions(t *testing.T) {
	schema := map[string]any{
		"required":                        []any{"apiVersion", "kind", "spec"},
		"x-kubernetes-group-version-kind": []any{map[string]any{"group": "g"}},
		"properties": map[string]any{
			"apiVersion": map[string]any{"type": "string", "enum": []any{"g/v1"}},
			"metadata":   map[string]any{"allOf": []any{map[string]any{"$ref": "objectmeta_v1.json"}}},
			"spec": map[string]any{"type": "object", "additionalProperties": false, "properties": map[string]any{
				"tags": map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}},
			}},
		},
	}
	if err := removeConverterAdditions(schema); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"required": []any{"spec"},
		"properties": map[string]any{
			"apiVersion": map[string]any{"type": "string"},
			"metadata":   map[string]any{"type": "object"},
			"spec": map[string]any{"type": "object", "properties": map[string]any{
				"tags": map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}},
			}},
		},
	}
	if !reflect.DeepEqual(schema, want) {
		t.Errorf("got %v\nwant %v", schema, want)
	}
	bad := map[string]any{"properties": map[string]any{"spec": map[string]any{"$ref": "x.json"}}}
	if err := removeConverterAdditions(bad); err == nil || !strings.Contains(err.Error(), ".properties.spec.$ref") {
		t.Errorf("a $ref left in the schema: error %v, want it named", err)
	}
}

func TestMergePatch(t *testing.T) {
	target := map[string]any{"a": map[string]any{"b": 1, "c": []any{1}}, "d": "x", "e": 1}
	patch := map[string]any{"a": map[string]any{"c": []any{2}, "n": map[string]any{"m": nil, "k": 1}}, "d": nil, "f": true}
	var replaced []string
	mergePatch(target, patch, "", &replaced)
	want := map[string]any{"a": map[string]any{"b": 1, "c": []any{2}, "n": map[string]any{"k": 1}}, "e": 1, "f": true}
	if !reflect.DeepEqual(target, want) {
		t.Errorf("merged %v, want %v", target, want)
	}
	if w := []string{"a.c", "d"}; !reflect.DeepEqual(replaced, w) {
		t.Errorf("replaced %v, want %v", replaced, w)
	}
}

// TestInstallAutoModeFixture installs a hand-written Auto Mode render (testdata/render/automode.json:
// node role, policy attachments, EC2 access entry and policy association, a NodeClass and a NodePool,
// no Helm release): without the CRDs EKS serves the install fails naming the missing kind; after
// InstallAutoModeCRDs both objects are created and read back equal, AWS resources are skipped.
func TestInstallAutoModeFixture(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Kubernetes API server")
	}
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "render", "automode.json"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := ParseRender(b)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(r.OfType(ReleaseType)); n != 0 {
		t.Fatalf("fixture has %d releases; an Auto Mode render has none", n)
	}
	ctx := context.Background()
	c := startCluster(t, ctx)

	applied, err := c.Install(ctx, r)
	if err == nil || !strings.Contains(err.Error(), "NodeClass") || !strings.Contains(err.Error(), "InstallAutoModeCRDs") {
		t.Errorf("install without the Auto Mode CRDs: error %v, want one naming NodeClass and InstallAutoModeCRDs", err)
	}
	if len(applied) != 0 {
		t.Errorf("install without the Auto Mode CRDs applied %d resources, want none", len(applied))
	}

	if err := c.InstallAutoModeCRDs(ctx); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{AutoModeNodeClassCRD, AutoModeNodePoolCRD} {
		crd, err := c.CRD(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if crd.GetAnnotations()[StandInAnnotation] == "" {
			t.Errorf("CRD %s does not say it is a stand-in (annotation %s)", name, StandInAnnotation)
		}
	}
	if err := c.InstallAutoModeCRDs(ctx); !apierrors.IsAlreadyExists(err) {
		t.Errorf("InstallAutoModeCRDs twice: error %v, want AlreadyExists", err)
	}

	applied, err = c.Install(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range applied {
		got = append(got, a.Resource.Type+" "+a.Got.GetName())
		if a.Release != nil {
			t.Errorf("%s: a Helm release was installed", a.Resource.Name)
		}
	}
	if want := []string{AutoModeNodeClassType + " general", NodePoolType + " general"}; !reflect.DeepEqual(got, want) {
		t.Errorf("applied %v, want %v", got, want)
	}
	// The served defaults: Auto Mode's expireAfter and terminationGracePeriod, the NodeClass's
	// ephemeral storage IOPS and throughput beside the rendered size.
	for _, a := range applied {
		switch a.Resource.Type {
		case NodePoolType:
			if v := Lookup(a.Got.Object, "spec.template.spec.expireAfter"); v != "336h" {
				t.Errorf("NodePool expireAfter %v, want Auto Mode's default 336h", v)
			}
			if v := Lookup(a.Got.Object, "spec.template.spec.terminationGracePeriod"); v != "24h" {
				t.Errorf("NodePool terminationGracePeriod %v, want Auto Mode's default 24h", v)
			}
		case AutoModeNodeClassType:
			if v := Lookup(a.Got.Object, "spec.ephemeralStorage"); !reflect.DeepEqual(v, map[string]any{"size": "100Gi", "kmsKeyID": "alias/eks-nodes", "iops": int64(3000), "throughput": int64(125)}) {
				t.Errorf("NodeClass ephemeralStorage %v", v)
			}
		}
	}
}
