package harness

import (
	"fmt"
	"os"
	"sort"

	"sigs.k8s.io/yaml"
)

// The fields of a Karpenter CRD's spec, read from the CRD file itself, so tests can ask
// whether the component's typed inputs reach each one and whether a render sets each one.
//
// Paths name fields the way the CRD nests them: `spec.template.spec.taints[].key` (`[]` for
// the items of a list). A leaf is a field without properties of its own: a scalar, a list of
// scalars, a map (`tags`, `limits`) or a schemaless object (the 1.15 EC2NodeClass `kubelet`).

// SchemaNode is the part of an OpenAPI v3 schema (as a CRD holds it) the walks need.
type SchemaNode struct {
	Type       string                 `json:"type,omitempty"`
	Properties map[string]*SchemaNode `json:"properties,omitempty"`
	Items      *SchemaNode            `json:"items,omitempty"`
	// Schemaless: x-kubernetes-preserve-unknown-fields without properties; the API server
	// stores any content.
	PreserveUnknown bool `json:"x-kubernetes-preserve-unknown-fields,omitempty"`
}

// IsLeaf says whether the node has no fields of its own to walk.
func (n *SchemaNode) IsLeaf() bool {
	return len(n.Properties) == 0 && (n.Items == nil || n.Items.IsLeaf())
}

// Schemaless says whether the API server keeps any content under the node.
func (n *SchemaNode) Schemaless() bool {
	return n.PreserveUnknown && len(n.Properties) == 0
}

// SortedProperties are the node's property names in order.
func (n *SchemaNode) SortedProperties() []string {
	names := make([]string, 0, len(n.Properties))
	for k := range n.Properties {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// CRDSpec reads the spec schema of one served version (e.g. "v1") of a CRD file.
func CRDSpec(file, version string) (*SchemaNode, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var crd struct {
		Spec struct {
			Names    struct{ Kind string }
			Versions []struct {
				Name   string
				Schema struct {
					OpenAPIV3Schema SchemaNode `json:"openAPIV3Schema"`
				}
			}
		}
	}
	if err := yaml.Unmarshal(b, &crd); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	for _, v := range crd.Spec.Versions {
		if v.Name == version {
			spec := v.Schema.OpenAPIV3Schema.Properties["spec"]
			if spec == nil {
				return nil, fmt.Errorf("%s: %s %s has no spec", file, crd.Spec.Names.Kind, version)
			}
			return spec, nil
		}
	}
	return nil, fmt.Errorf("%s: no version %s", file, version)
}

// Leaves are the leaf paths under n, prefixed with path.
func (n *SchemaNode) Leaves(path string) []string {
	if n.IsLeaf() {
		return []string{path}
	}
	if len(n.Properties) == 0 { // a list of objects
		return n.Items.Leaves(path + "[]")
	}
	var out []string
	for _, k := range n.SortedProperties() {
		out = append(out, n.Properties[k].Leaves(path+"."+k)...)
	}
	return out
}

// SetLeaves are the leaf paths under n that the value v (an object's content at path) sets,
// deduplicated and sorted. Content the schema does not declare is reported too, under its
// own path, so a caller comparing with Leaves sees it.
func (n *SchemaNode) SetLeaves(path string, v any) []string {
	set := map[string]bool{}
	n.setLeaves(path, v, set)
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

func (n *SchemaNode) setLeaves(path string, v any, set map[string]bool) {
	if v == nil {
		return
	}
	if n == nil || n.IsLeaf() {
		set[path] = true
		return
	}
	switch x := v.(type) {
	case []any:
		if len(n.Properties) == 0 {
			for _, elem := range x {
				n.Items.setLeaves(path+"[]", elem, set)
			}
			return
		}
	case map[string]any:
		for k, child := range x {
			n.Properties[k].setLeaves(path+"."+k, child, set)
		}
		return
	}
	set[path] = true // a scalar where the schema has fields: the API server will say
}
