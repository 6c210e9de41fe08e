// Package cfntemplate reads Karpenter's getting-started CloudFormation template — the official
// artifact the component's IAM, queue and rules follow — into its resources, with the template's
// intrinsic functions evaluated for one cluster, account and region. Test support: the provider's
// tests compare the component's documents with the template's, and the engine tests' lab makes a
// getting-started install from it, as the guide's `aws cloudformation deploy` would.
//
// It evaluates what the templates use: `!Sub` (with ${AWS::Partition}, ${AWS::Region},
// ${AWS::AccountId}, ${AWS::URLSuffix}, the parameters and ${Resource.Attribute}), `!Ref` (a
// parameter, or a resource's reference value) and `!GetAtt Resource.Attribute`. Anything else
// fails, naming it.
package cfntemplate

import (
	"bytes"
	_ "embed"
	"fmt"
	"os"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// Template is a template's resources by logical id, in the template's order (Order).
type Template struct {
	Resources map[string]Resource
	Order     []string
}

// Resource is one resource: its type (AWS::IAM::Role) and its properties, evaluated: maps,
// lists, strings, and the numbers and booleans as YAML reads them.
type Resource struct {
	Type       string
	Properties map[string]any
}

// Stack is what the template is deployed into: the pseudo parameters, the parameters' values
// (ClusterName) and, by "Resource.Attribute" (Arn) or by logical id (a !Ref of a resource), the
// values of the resources the template refers to, which only a deployment knows.
type Stack struct {
	Partition, Region, AccountID, URLSuffix string
	Parameters                              map[string]string
	Attributes                              map[string]string
}

// Read reads the template at path for stack.
func Read(path string, stack Stack) (Template, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Template{}, err
	}
	return Parse(b, stack)
}

// Parse reads a template for stack.
func Parse(b []byte, stack Stack) (Template, error) {
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(b)).Decode(&doc); err != nil {
		return Template{}, err
	}
	root := doc.Content[0]
	resources := mapping(root)["Resources"]
	if resources == nil {
		return Template{}, fmt.Errorf("the template has no Resources")
	}
	t := Template{Resources: map[string]Resource{}}
	for i := 0; i < len(resources.Content); i += 2 {
		id, node := resources.Content[i].Value, resources.Content[i+1]
		fields := mapping(node)
		props := map[string]any{}
		if p := fields["Properties"]; p != nil {
			v, err := stack.eval(p)
			if err != nil {
				return Template{}, fmt.Errorf("%s: %w", id, err)
			}
			props = v.(map[string]any)
		}
		t.Resources[id] = Resource{Type: fields["Type"].Value, Properties: props}
		t.Order = append(t.Order, id)
	}
	return t, nil
}

// OfType are the logical ids of the resources of type typ, in the template's order.
func (t Template) OfType(typ string) []string {
	var ids []string
	for _, id := range t.Order {
		if t.Resources[id].Type == typ {
			ids = append(ids, id)
		}
	}
	return ids
}

func mapping(n *yaml.Node) map[string]*yaml.Node {
	out := map[string]*yaml.Node{}
	if n.Kind != yaml.MappingNode {
		return out
	}
	for i := 0; i < len(n.Content); i += 2 {
		out[n.Content[i].Value] = n.Content[i+1]
	}
	return out
}

func (s Stack) eval(n *yaml.Node) (any, error) {
	switch n.Tag {
	case "!Sub":
		return s.sub(n.Value)
	case "!Ref":
		return s.ref(n.Value)
	case "!GetAtt":
		return s.attribute(n.Value)
	}
	if strings.HasPrefix(n.Tag, "!") && !strings.HasPrefix(n.Tag, "!!") {
		return nil, fmt.Errorf("line %d: %s is not evaluated here", n.Line, n.Tag)
	}
	switch n.Kind {
	case yaml.MappingNode:
		out := map[string]any{}
		for i := 0; i < len(n.Content); i += 2 {
			if k := n.Content[i].Value; strings.HasPrefix(k, "Fn::") {
				return nil, fmt.Errorf("line %d: %s is not evaluated here", n.Line, k)
			}
			v, err := s.eval(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			out[n.Content[i].Value] = v
		}
		return out, nil
	case yaml.SequenceNode:
		out := []any{}
		for _, c := range n.Content {
			v, err := s.eval(c)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	var v any
	err := n.Decode(&v)
	return v, err
}

var variable = regexp.MustCompile(`\$\{([^}]+)\}`)

func (s Stack) sub(text string) (string, error) {
	var missing []string
	out := variable.ReplaceAllStringFunc(text, func(m string) string {
		name := m[2 : len(m)-1]
		var v string
		var err error
		if strings.Contains(name, ".") {
			v, err = s.attribute(name)
		} else {
			v, err = s.ref(name)
		}
		if err != nil {
			missing = append(missing, name)
		}
		return v
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("!Sub: no value for %s", strings.Join(missing, ", "))
	}
	return out, nil
}

func (s Stack) ref(name string) (string, error) {
	pseudo := map[string]string{"AWS::Partition": s.Partition, "AWS::Region": s.Region, "AWS::AccountId": s.AccountID, "AWS::URLSuffix": s.URLSuffix}
	if v, ok := pseudo[name]; ok && v != "" {
		return v, nil
	}
	if v, ok := s.Parameters[name]; ok {
		return v, nil
	}
	if v, ok := s.Attributes[name]; ok {
		return v, nil
	}
	return "", fmt.Errorf("!Ref %s: no value", name)
}

func (s Stack) attribute(name string) (string, error) {
	if v, ok := s.Attributes[name]; ok {
		return v, nil
	}
	return "", fmt.Errorf("!GetAtt %s: no value", name)
}

// GettingStartedV114 is Karpenter's getting-started CloudFormation template of v1.14, byte for
// byte: aws/karpenter-provider-aws,
// website/content/en/v1.14/getting-started/getting-started-with-karpenter/cloudformation.yaml, as
// commit 692ccdd0629e488300821443f0fa0bc3c3e08047 ("chore: Release v1.14.0", 2026-07-11) left it
// and unchanged through 1d927085dd81a9df9301e613f371dac5b4d16bfe (the v1.14.1 docs, 2026-08-21);
// the v1.12 and v1.13 pages carry the same file. Its sha256 is GettingStartedV114SHA256. The Go
// module proxy does not serve the website, so the copy is here.
//
//go:embed templates/cfn-v1.14.yaml
var GettingStartedV114 []byte

// GettingStartedV114SHA256 is the sha256 of upstream's file.
const GettingStartedV114SHA256 = "7ffeb01f04b5da482ef43087830de00a476098416e3b4576c38239ef1b0bef4b"
