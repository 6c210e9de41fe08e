package harness

import (
	"reflect"
	"testing"

	"sigs.k8s.io/yaml"
)

func TestCRDLeavesAndSetLeaves(t *testing.T) {
	var spec SchemaNode
	if err := yaml.Unmarshal([]byte(`
type: object
properties:
  tags: {type: object, additionalProperties: {type: string}}
  kubelet: {type: object, x-kubernetes-preserve-unknown-fields: true}
  values: {type: array, items: {type: string}}
  terms:
    type: array
    items:
      type: object
      properties:
        id: {type: string}
        ebs: {type: object, properties: {size: {type: string}, iops: {type: integer}}}
`), &spec); err != nil {
		t.Fatal(err)
	}
	if got, want := spec.Leaves("spec"), []string{"spec.kubelet", "spec.tags", "spec.terms[].ebs.iops", "spec.terms[].ebs.size", "spec.terms[].id", "spec.values"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Leaves = %v, want %v", got, want)
	}
	if !spec.Properties["kubelet"].Schemaless() || spec.Properties["tags"].Schemaless() {
		t.Error("only kubelet is schemaless")
	}
	got := spec.SetLeaves("spec", map[string]any{
		"tags":    map[string]any{"a": "b"},
		"kubelet": map[string]any{"anything": 1},
		"terms":   []any{map[string]any{"id": "x"}, map[string]any{"ebs": map[string]any{"size": "1Gi"}}},
		"extra":   map[string]any{"x": 1},
	})
	if want := []string{"spec.extra", "spec.kubelet", "spec.tags", "spec.terms[].ebs.size", "spec.terms[].id"}; !reflect.DeepEqual(got, want) {
		t.Errorf("SetLeaves = %v, want %v (undeclared content reported under its own path)", got, want)
	}
}
