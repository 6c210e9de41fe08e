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

// TestAutoModeSchemas: the Auto Mode CRD schemas are the published files (checked by sha256) with
// only the converter's additions removed, and the overlays only add, except for the values listed
// here, which they replace on purpose.
func TestAutoModeSchemas(t *testing.T) {
	wantReplaced := map[string][]string{
		// role becomes optional: exactly one of role and instanceProfile (a CEL rule).
		"NodeClass": {"properties.spec.required"},
		// Balanced added to the enum (and its description labelled).
		"NodePool": {
			"properties.spec.properties.disruption.properties.consolidationPolicy.description",
			"properties.spec.properties.disruption.properties.consolidationPolicy.enum",
		},
	}
	for _, kind := range []string{"NodeClass", "NodePool"} {
		schema, replaced, err := AutoModeSchema(kind)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(replaced, wantReplaced[kind]) {
			t.Errorf("%s: the overlay replaces %v, want only %v (an overlay adds what EKS documented; it does not rewrite the published schema)", kind, replaced, wantReplaced[kind])
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

	// Every spec field the overlay adds carries its label ([harness overlay: ...]) on itself or
	// on the added field above it.
	published := map[string]*SchemaNode{}
	for _, c := range autoModeCRDs {
		schema, err := readJSONFile(filepath.Join(autoModeDir(t), c.published))
		if err != nil {
			t.Fatal(err)
		}
		if err := removeConverterAdditions(schema); err != nil {
			t.Fatal(err)
		}
		if published[c.kind], err = SpecNode(schema); err != nil {
			t.Fatal(err)
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

// TestAutoModePublishedSchemaUnchanged: a hand edit of a published schema is refused, so changes
// go into the labelled overlay.
func TestAutoModePublishedSchemaUnchanged(t *testing.T) {
	dir := t.TempDir()
	for _, c := range autoModeCRDs {
		for _, f := range []string{c.published, c.extensions} {
			b, err := os.ReadFile(filepath.Join(autoModeDir(t), f))
			if err != nil {
				t.Fatal(err)
			}
			if f == c.published {
				b = []byte(strings.Replace(string(b), `"type": "string"`, `"type": "string", "maxLength": 1`, 1))
			}
			if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if _, _, err := c.schemaIn(dir); err == nil || !strings.Contains(err.Error(), "sha256") {
			t.Errorf("%s edited: error %v, want a sha256 mismatch", c.published, err)
		}
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
	cp, err := Start(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cp.Stop)
	c, err := NewCluster(cp)
	if err != nil {
		t.Fatal(err)
	}

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
