// Command yamlcheck validates the karpenter resources of Pulumi YAML programs against the
// package schema: every property under a karpenter resource must exist in schema.json and have
// the schema's type, nested object types and enums included. No Pulumi CLI can run here, so
// this is what stands between a typo in examples/yaml and a user's failed `pulumi up`.
//
// Usage: yamlcheck SCHEMA PROGRAM...
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: yamlcheck SCHEMA PROGRAM...")
		os.Exit(2)
	}
	schema, err := loadSchema(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	failed := false
	for _, program := range os.Args[2:] {
		data, err := os.ReadFile(program)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		checked, problems, err := schema.checkProgram(data)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", program, err)
			os.Exit(2)
		}
		for _, p := range problems {
			fmt.Fprintf(os.Stderr, "%s:%s\n", program, p)
		}
		if len(problems) > 0 {
			failed = true
			continue
		}
		if checked == 0 {
			fmt.Fprintf(os.Stderr, "%s: no %s resource to check\n", program, schema.Name)
			failed = true
			continue
		}
		fmt.Printf("%s: %d %s resource(s) match the schema\n", program, checked, schema.Name)
	}
	if failed {
		os.Exit(1)
	}
}

// Schema is the part of a Pulumi package schema that describes resource inputs.
type Schema struct {
	Name      string                  `json:"name"`
	Resources map[string]ResourceSpec `json:"resources"`
	Types     map[string]TypeSpec     `json:"types"`
}

type ResourceSpec struct {
	InputProperties map[string]PropertySpec `json:"inputProperties"`
	RequiredInputs  []string                `json:"requiredInputs"`
}

type TypeSpec struct {
	Type       string                  `json:"type"`
	Properties map[string]PropertySpec `json:"properties"`
	Required   []string                `json:"required"`
	Enum       []struct {
		Value any `json:"value"`
	} `json:"enum"`
}

type PropertySpec struct {
	Type                 string        `json:"type"`
	Ref                  string        `json:"$ref"`
	Items                *PropertySpec `json:"items"`
	AdditionalProperties *PropertySpec `json:"additionalProperties"`
}

func loadSchema(path string) (*Schema, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s Schema
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &s, nil
}

// resourceToken maps a YAML type to the schema's token: Pulumi YAML accepts `pkg:Type` for
// `pkg:index:Type`.
func (s *Schema) resourceToken(typ string) (string, bool) {
	parts := strings.Split(typ, ":")
	if parts[0] != s.Name {
		return "", false
	}
	if len(parts) == 2 {
		parts = []string{parts[0], "index", parts[1]}
	}
	return strings.Join(parts, ":"), true
}

// checkProgram checks every resource of this package in a Pulumi YAML program and returns how
// many it checked and the problems found, each prefixed with its line number.
func (s *Schema) checkProgram(data []byte) (int, []string, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return 0, nil, err
	}
	if len(doc.Content) == 0 {
		return 0, nil, fmt.Errorf("empty document")
	}
	var problems []string
	report := func(n *yaml.Node, format string, args ...any) {
		problems = append(problems, fmt.Sprintf("%d: %s", n.Line, fmt.Sprintf(format, args...)))
	}
	checked := 0
	resources := field(doc.Content[0], "resources")
	if resources == nil {
		return 0, nil, nil
	}
	for i := 0; i+1 < len(resources.Content); i += 2 {
		name, decl := resources.Content[i].Value, resources.Content[i+1]
		typ := field(decl, "type")
		if typ == nil {
			continue
		}
		token, ours := s.resourceToken(typ.Value)
		if !ours {
			continue
		}
		checked++
		res, ok := s.Resources[token]
		if !ok {
			report(typ, "%s: the schema has no resource %s", name, token)
			continue
		}
		props := field(decl, "properties")
		if props == nil {
			props = &yaml.Node{Kind: yaml.MappingNode, Line: decl.Line}
		}
		s.checkObject(name+".properties", props, res.InputProperties, res.RequiredInputs, token, report)
	}
	return checked, problems, nil
}

type reporter func(n *yaml.Node, format string, args ...any)

func (s *Schema) checkObject(path string, n *yaml.Node, props map[string]PropertySpec, required []string,
	typeName string, report reporter) {
	if isExpression(n) {
		return
	}
	if n.Kind != yaml.MappingNode {
		report(n, "%s: want an object (%s), got %s", path, typeName, describe(n))
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, value := n.Content[i], n.Content[i+1]
		seen[key.Value] = true
		spec, ok := props[key.Value]
		if !ok {
			report(key, "%s.%s: %s has no property %q (it has: %s)", path, key.Value, typeName, key.Value,
				strings.Join(sortedKeys(props), ", "))
			continue
		}
		s.checkValue(path+"."+key.Value, value, spec, report)
	}
	for _, r := range required {
		if !seen[r] {
			report(n, "%s: missing required property %q of %s", path, r, typeName)
		}
	}
}

// anyRef is the schema's type of a value of any shape.
const anyRef = "pulumi.json#/Any"

func (s *Schema) checkValue(path string, n *yaml.Node, spec PropertySpec, report reporter) {
	if isExpression(n) {
		return // an interpolation or fn:: call: its type is known only when the program runs
	}
	if spec.Ref != "" {
		s.checkRef(path, n, spec.Ref, report)
		return
	}
	switch spec.Type {
	case "string":
		if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
			report(n, "%s: want a string, got %s", path, describe(n))
		}
	case "boolean":
		if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
			report(n, "%s: want a boolean, got %s", path, describe(n))
		}
	case "integer":
		if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
			report(n, "%s: want an integer, got %s", path, describe(n))
		}
	case "number":
		if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!float") {
			report(n, "%s: want a number, got %s", path, describe(n))
		}
	case "array":
		if n.Kind != yaml.SequenceNode {
			report(n, "%s: want a list, got %s", path, describe(n))
			return
		}
		for i, item := range n.Content {
			s.checkValue(fmt.Sprintf("%s[%d]", path, i), item, *spec.Items, report)
		}
	case "object":
		if n.Kind != yaml.MappingNode {
			report(n, "%s: want a map, got %s", path, describe(n))
			return
		}
		if spec.AdditionalProperties == nil {
			return // a map of anything (e.g. Helm values)
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			s.checkValue(path+"."+n.Content[i].Value, n.Content[i+1], *spec.AdditionalProperties, report)
		}
	default:
		report(n, "%s: the validator does not know schema type %q", path, spec.Type)
	}
}

func (s *Schema) checkRef(path string, n *yaml.Node, ref string, report reporter) {
	if ref == anyRef {
		return // any value (Helm values below their top keys)
	}
	name, ok := strings.CutPrefix(ref, "#/types/")
	if !ok {
		// The schema is self-contained (no refs to other packages); anything else is a bug here.
		report(n, "%s: cannot check reference %q", path, ref)
		return
	}
	t, ok := s.Types[name]
	if !ok {
		report(n, "%s: the schema has no type %s", path, name)
		return
	}
	if len(t.Enum) > 0 {
		var allowed []string
		for _, e := range t.Enum {
			allowed = append(allowed, fmt.Sprint(e.Value))
		}
		if n.Kind != yaml.ScalarNode || !slices.Contains(allowed, n.Value) {
			report(n, "%s: want one of %s (%s), got %s", path, strings.Join(allowed, ", "), name, describe(n))
		}
		return
	}
	s.checkObject(path, n, t.Properties, t.Required, name, report)
}

// isExpression reports whether a value is computed by Pulumi YAML: a string that is exactly one
// ${...} interpolation, or an object with a single fn:: key.
func isExpression(n *yaml.Node) bool {
	switch n.Kind {
	case yaml.ScalarNode:
		v := n.Value
		return n.Tag == "!!str" && strings.HasPrefix(v, "${") && strings.HasSuffix(v, "}") &&
			strings.Count(v, "${") == 1
	case yaml.MappingNode:
		return len(n.Content) == 2 && strings.HasPrefix(n.Content[0].Value, "fn::")
	}
	return false
}

func field(n *yaml.Node, name string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == name {
			return n.Content[i+1]
		}
	}
	return nil
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "an object"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return fmt.Sprintf("%s %q", strings.TrimPrefix(n.Tag, "!!"), n.Value)
	}
	return "an alias"
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
