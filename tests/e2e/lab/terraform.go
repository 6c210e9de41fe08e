package lab

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/dynblock"
	"github.com/hashicorp/hcl/v2/ext/tryfunc"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// terraformModule evaluates a Terraform module's own files just far enough to make what `terraform
// apply` of it makes: its variables' defaults with the caller's arguments over them, its locals,
// the data sources it reads (given: region, partition, account, service principal) and its
// aws_iam_policy_document data sources, and each resource's arguments — with count, for_each,
// dynamic blocks and the functions the module calls. It is not Terraform: no plan, no provider,
// no state; the world makes each resource with the AWS call terraform-provider-aws makes for it
// and records the attributes later expressions read (arn, name, url) with set.
type terraformModule struct {
	body      *hclsyntax.Body // every file's top-level blocks
	variables map[string]cty.Value
	locals    map[string]cty.Value
	data      map[string]map[string]cty.Value // type -> name -> the data source (a one-element tuple: count)
	resources map[string]map[string]cty.Value // type -> name -> its instances (a tuple for count, an object for for_each)
}

// loadTerraformModule parses every *.tf file of dir in fsys, applies the caller's arguments over
// the variables' defaults, and sets the data sources the module reads (type.name -> attributes).
func loadTerraformModule(fsys fs.FS, dir string, args map[string]cty.Value, data map[string]map[string]map[string]cty.Value) (*terraformModule, error) {
	files, err := fs.Glob(fsys, dir+"/*.tf")
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no .tf files in %s (%v)", dir, err)
	}
	m := &terraformModule{body: &hclsyntax.Body{}, variables: map[string]cty.Value{}, locals: map[string]cty.Value{},
		data: map[string]map[string]cty.Value{}, resources: map[string]map[string]cty.Value{}}
	parser := hclparse.NewParser()
	for _, name := range files {
		src, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		f, diags := parser.ParseHCL(src, name)
		if diags.HasErrors() {
			return nil, diags
		}
		m.body.Blocks = append(m.body.Blocks, f.Body.(*hclsyntax.Body).Blocks...)
	}
	for _, b := range m.blocks("variable") {
		name := b.Labels[0]
		if v, ok := args[name]; ok {
			m.variables[name] = v
			continue
		}
		def, ok := b.Body.Attributes["default"]
		if !ok {
			return nil, fmt.Errorf("variable %q has no default and no argument", name)
		}
		v, diags := def.Expr.Value(nil)
		if diags.HasErrors() {
			return nil, fmt.Errorf("variable %q: %w", name, diags)
		}
		m.variables[name] = v
	}
	for name := range args {
		if _, ok := m.variables[name]; !ok {
			return nil, fmt.Errorf("the module has no variable %q", name)
		}
	}
	for typ, byName := range data {
		for name, attrs := range byName {
			m.setData(typ, name, cty.ObjectVal(attrs))
		}
	}
	m.resolveLocals()
	m.readDocuments()
	return m, nil
}

// readDocuments evaluates each aws_iam_policy_document data source that can be now, as Terraform
// reads a data source once what it refers to is known: at load, and again after each resource the
// world makes (made). One that names what is not made yet is left for then.
func (m *terraformModule) readDocuments() {
	for _, b := range m.blocks("data", "aws_iam_policy_document") {
		_, _ = m.policyDocument(b.Labels[1])
	}
}

func (m *terraformModule) blocks(typ string, labels ...string) []*hclsyntax.Block {
	var out []*hclsyntax.Block
	for _, b := range m.body.Blocks {
		if b.Type == typ && len(b.Labels) >= len(labels) && strings.Join(b.Labels[:len(labels)], ".") == strings.Join(labels, ".") {
			out = append(out, b)
		}
	}
	return out
}

func (m *terraformModule) block(typ string, labels ...string) (*hclsyntax.Block, error) {
	bs := m.blocks(typ, labels...)
	if len(bs) != 1 {
		return nil, fmt.Errorf("the module has %d %s %s blocks, want one", len(bs), typ, strings.Join(labels, "."))
	}
	return bs[0], nil
}

// setData records data source type.name (count = 1).
func (m *terraformModule) setData(typ, name string, v cty.Value) {
	if m.data[typ] == nil {
		m.data[typ] = map[string]cty.Value{}
	}
	m.data[typ][name] = cty.TupleVal([]cty.Value{v})
}

// resolveLocals evaluates every local, in as many rounds as their references to one another need.
// A local that cannot be evaluated (none of this module's reads a resource) is left out: an
// expression that reads it then fails, naming it.
func (m *terraformModule) resolveLocals() {
	pending := map[string]hcl.Expression{}
	for _, b := range m.blocks("locals") {
		for name, attr := range b.Body.Attributes {
			pending[name] = attr.Expr
		}
	}
	for progress := true; progress && len(pending) > 0; {
		progress = false
		for name, expr := range pending {
			v, diags := expr.Value(m.evalContext(nil))
			if diags.HasErrors() || !v.IsWhollyKnown() {
				continue
			}
			m.locals[name] = v
			delete(pending, name)
			progress = true
		}
	}
}

// terraformFunctions are the functions of Terraform's language this module calls.
var terraformFunctions = map[string]function.Function{
	"coalesce":     stdlib.CoalesceFunc,
	"coalescelist": stdlib.CoalesceListFunc,
	"distinct":     stdlib.DistinctFunc,
	"jsonencode":   stdlib.JSONEncodeFunc,
	"merge":        stdlib.MergeFunc,
	"replace":      stdlib.RegexReplaceFunc, // the module's one call is a /regex/ replace, inside try()
	"try":          tryfunc.TryFunc,
	"can":          tryfunc.CanFunc,
}

// evalContext is the module's scope, with each (for_each) when set.
func (m *terraformModule) evalContext(each map[string]cty.Value) *hcl.EvalContext {
	ctx := &hcl.EvalContext{Functions: terraformFunctions, Variables: map[string]cty.Value{
		"var":   cty.ObjectVal(m.variables),
		"local": cty.ObjectVal(m.locals),
	}}
	data := map[string]cty.Value{}
	for typ, byName := range m.data {
		data[typ] = cty.ObjectVal(byName)
	}
	ctx.Variables["data"] = cty.ObjectVal(data)
	for typ, byName := range m.resources {
		ctx.Variables[typ] = cty.ObjectVal(byName)
	}
	if each != nil {
		ctx.Variables["each"] = cty.ObjectVal(each)
	}
	return ctx
}

// terraformInstance is one instance of a resource: its key ("" for count) and arguments.
type terraformInstance struct {
	Key  string
	Args map[string]cty.Value
}

// instances evaluates resource typ.name's count or for_each and, for each instance, its
// top-level arguments (nested blocks are not read: the resources the world makes have none).
func (m *terraformModule) instances(typ, name string) ([]terraformInstance, error) {
	b, err := m.block("resource", typ, name)
	if err != nil {
		return nil, err
	}
	eval := func(each map[string]cty.Value) (map[string]cty.Value, error) {
		args := map[string]cty.Value{}
		for k, attr := range b.Body.Attributes {
			switch k {
			case "count", "for_each", "depends_on":
				continue
			}
			v, diags := attr.Expr.Value(m.evalContext(each))
			if diags.HasErrors() {
				return nil, fmt.Errorf("%s.%s.%s: %w", typ, name, k, diags)
			}
			args[k] = v
		}
		return args, nil
	}
	ctx := m.evalContext(nil)
	if attr, ok := b.Body.Attributes["for_each"]; ok {
		v, diags := attr.Expr.Value(ctx)
		if diags.HasErrors() {
			return nil, fmt.Errorf("%s.%s for_each: %w", typ, name, diags)
		}
		var out []terraformInstance
		for it := v.ElementIterator(); it.Next(); {
			k, val := it.Element()
			args, err := eval(map[string]cty.Value{"key": k, "value": val})
			if err != nil {
				return nil, err
			}
			out = append(out, terraformInstance{Key: k.AsString(), Args: args})
		}
		return out, nil
	}
	count := 1
	if attr, ok := b.Body.Attributes["count"]; ok {
		v, diags := attr.Expr.Value(ctx)
		if diags.HasErrors() {
			return nil, fmt.Errorf("%s.%s count: %w", typ, name, diags)
		}
		n, _ := v.AsBigFloat().Int64()
		count = int(n)
	}
	if count > 1 {
		return nil, fmt.Errorf("%s.%s: count %d (the world makes one instance)", typ, name, count)
	}
	if count == 0 {
		return nil, nil
	}
	args, err := eval(nil)
	if err != nil {
		return nil, err
	}
	return []terraformInstance{{Args: args}}, nil
}

// made records what the world made for resource typ.name (key "" for a count instance): the
// attributes later expressions read.
func (m *terraformModule) made(typ, name, key string, attrs map[string]cty.Value) {
	if m.resources[typ] == nil {
		m.resources[typ] = map[string]cty.Value{}
	}
	obj := cty.ObjectVal(attrs)
	if key == "" {
		m.resources[typ][name] = cty.TupleVal([]cty.Value{obj})
		m.readDocuments()
		return
	}
	instances := map[string]cty.Value{}
	if prev, ok := m.resources[typ][name]; ok {
		instances = prev.AsValueMap()
	}
	instances[key] = obj
	m.resources[typ][name] = cty.ObjectVal(instances)
	m.readDocuments()
}

// The arguments of an aws_iam_policy_document data source that the module uses.
type tfPolicyDocument struct {
	Statements []tfStatement `hcl:"statement,block"`
	Remain     hcl.Body      `hcl:",remain"` // count, override_policy_documents, source_policy_documents
}

type tfStatement struct {
	Sid           *string       `hcl:"sid,optional"`
	Effect        *string       `hcl:"effect,optional"`
	Actions       []string      `hcl:"actions,optional"`
	NotActions    []string      `hcl:"not_actions,optional"`
	Resources     []string      `hcl:"resources,optional"`
	NotResources  []string      `hcl:"not_resources,optional"`
	Principals    []tfPrincipal `hcl:"principals,block"`
	NotPrincipals []tfPrincipal `hcl:"not_principals,block"`
	Conditions    []tfCondition `hcl:"condition,block"`
}

type tfPrincipal struct {
	Type        string   `hcl:"type"`
	Identifiers []string `hcl:"identifiers"`
}

type tfCondition struct {
	Test     string   `hcl:"test"`
	Variable string   `hcl:"variable"`
	Values   []string `hcl:"values"`
}

// policyDocument evaluates data "aws_iam_policy_document" name to the JSON its `json` attribute
// holds (terraform-provider-aws's iam_policy_document data source: Version 2012-10-17, Effect
// Allow unless set, a one-element list written as a string), and records it for the expressions
// that read it. Override and source documents are not merged in: the module passes none.
func (m *terraformModule) policyDocument(name string) (string, error) {
	b, err := m.block("data", "aws_iam_policy_document", name)
	if err != nil {
		return "", err
	}
	ctx := m.evalContext(nil)
	var doc tfPolicyDocument
	if diags := gohcl.DecodeBody(dynblock.Expand(b.Body, ctx), ctx, &doc); diags.HasErrors() {
		return "", fmt.Errorf("aws_iam_policy_document.%s: %w", name, diags)
	}
	for _, k := range []string{"override_policy_documents", "source_policy_documents"} {
		if attr, ok := b.Body.Attributes[k]; ok {
			if v, diags := attr.Expr.Value(ctx); diags.HasErrors() || !v.IsNull() && v.LengthInt() > 0 {
				return "", fmt.Errorf("aws_iam_policy_document.%s: %s is set: not modelled", name, k)
			}
		}
	}
	one := func(list []string) any {
		if len(list) == 1 {
			return list[0]
		}
		return list
	}
	principals := func(ps []tfPrincipal) map[string]any {
		out := map[string]any{}
		for _, p := range ps {
			out[p.Type] = one(p.Identifiers)
		}
		return out
	}
	var statements []any
	for _, s := range doc.Statements {
		st := map[string]any{"Effect": "Allow"}
		if s.Sid != nil && *s.Sid != "" {
			st["Sid"] = *s.Sid
		}
		if s.Effect != nil {
			st["Effect"] = *s.Effect
		}
		for k, list := range map[string][]string{"Action": s.Actions, "NotAction": s.NotActions, "Resource": s.Resources, "NotResource": s.NotResources} {
			if len(list) > 0 {
				st[k] = one(list)
			}
		}
		if len(s.Principals) > 0 {
			st["Principal"] = principals(s.Principals)
		}
		if len(s.NotPrincipals) > 0 {
			st["NotPrincipal"] = principals(s.NotPrincipals)
		}
		if len(s.Conditions) > 0 {
			cond := map[string]map[string]any{}
			for _, c := range s.Conditions {
				if cond[c.Test] == nil {
					cond[c.Test] = map[string]any{}
				}
				cond[c.Test][c.Variable] = one(c.Values)
			}
			st["Condition"] = cond
		}
		statements = append(statements, st)
	}
	out, err := json.Marshal(map[string]any{"Version": "2012-10-17", "Statement": statements})
	if err != nil {
		return "", err
	}
	m.setData("aws_iam_policy_document", name, cty.ObjectVal(map[string]cty.Value{"json": cty.StringVal(string(out))}))
	return string(out), nil
}

// ctyString is v as a Go string ("" for null).
func ctyString(v cty.Value) string {
	if v.IsNull() {
		return ""
	}
	return v.AsString()
}

// ctyStrings is a map of strings (tags) as Go's, keys sorted on output by the callers.
func ctyStrings(v cty.Value) map[string]string {
	out := map[string]string{}
	if v.IsNull() {
		return out
	}
	for it := v.ElementIterator(); it.Next(); {
		k, val := it.Element()
		out[k.AsString()] = ctyString(val)
	}
	return out
}
