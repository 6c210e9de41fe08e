package conformance

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Finding is one way a rendered child or invoke does not match a package's declarations.
type Finding struct {
	Package *Package
	Token   string // the child's type token, or the invoke's
	Name    string // the child's logical name; empty for an invoke
	// Key names what the finding is about, without the child's name, for the allow-list:
	// "<token> input tags", "<token> result name".
	Key     string
	Message string
	// Deprecated marks a key that exists but is @deprecated in this version: a failure only
	// for the newest version of each provider, unless allow-listed.
	Deprecated bool
}

func (f Finding) String() string {
	who := f.Token + " " + f.Name
	if f.Name == "" {
		who = f.Token + " (invoke)"
	}
	return fmt.Sprintf("%s: %s: %s", f.Package, who, f.Message)
}

// CheckResource checks one rendered child against the package of its type token's provider:
// its type is declared, every input key is in the Args interface (recursively, through nested
// input types and maps), every value has a shape the declared type allows, required inputs are
// present, and nothing sent is @deprecated.
func CheckResource(pkg *Package, res Resource) []Finding {
	c := &checker{pkg: pkg, label: "input"}
	finding := func(key, msg string, deprecated bool) Finding {
		return Finding{Package: pkg, Token: res.Type, Name: res.Name, Key: res.Type + " " + key, Message: msg, Deprecated: deprecated}
	}
	file, typeName, argsName, err := resourceDeclaration(pkg, res.Type)
	if err != nil {
		return []Finding{finding("type", err.Error(), false)}
	}
	var out []Finding
	if cls := file.Decls[typeName]; cls == nil || cls.Kind != DeclClass {
		out = append(out, finding("type", fmt.Sprintf("%s declares no resource class %s", file.Path, typeName), false))
	} else if cls.Deprecated() {
		out = append(out, finding("type", fmt.Sprintf("resource type %s is deprecated: %s", typeName, deprecationNote(cls.Doc)), true))
	}
	if res.ReadID != "" {
		return out // a read sends an ID, not inputs
	}
	args := file.Decls[argsName]
	if args == nil || args.Kind != DeclInterface {
		return append(out, finding("type", fmt.Sprintf("%s declares no interface %s", file.Path, argsName), false))
	}
	for _, p := range c.object(res.Inputs, args.Iface, args.scope, argsName, "", 0) {
		out = append(out, finding(c.label+" "+p.path, p.msg, p.deprecated))
	}
	return out
}

// CheckInvoke checks one invoke: the function is declared, its arguments fit its Args
// interface, and every result field the component reads is in its Result interface. A read
// with a fallback ("region|name") passes when any field of the chain is declared; it is
// deprecated when the first declared one is.
func CheckInvoke(pkg *Package, inv Invoke) []Finding {
	c := &checker{pkg: pkg, label: "argument"}
	finding := func(key, msg string, deprecated bool) Finding {
		return Finding{Package: pkg, Token: inv.Token, Key: inv.Token + " " + key, Message: msg, Deprecated: deprecated}
	}
	file, fn, err := invokeDeclaration(pkg, inv.Token)
	if err != nil {
		return []Finding{finding("function", err.Error(), false)}
	}
	var out []Finding
	if d := file.Decls[fn]; d == nil || d.Kind != DeclValue {
		out = append(out, finding("function", fmt.Sprintf("%s declares no function %s", file.Path, fn), false))
	} else if d.Deprecated() {
		out = append(out, finding("function", fmt.Sprintf("function %s is deprecated: %s", fn, deprecationNote(d.Doc)), true))
	}
	argsName, resultName := upperFirst(fn)+"Args", upperFirst(fn)+"Result"
	if args := file.Decls[argsName]; args != nil && args.Kind == DeclInterface {
		for _, p := range c.object(inv.Args, args.Iface, args.scope, argsName, "", 0) {
			out = append(out, finding(c.label+" "+p.path, p.msg, p.deprecated))
		}
	} else {
		for _, k := range sortedKeys(inv.Args) {
			out = append(out, finding("argument "+k, fmt.Sprintf("argument %q: %s takes no arguments (%s declares no %s)", k, fn, file.Path, argsName), false))
		}
	}
	result := file.Decls[resultName]
	if result == nil || result.Kind != DeclInterface {
		return append(out, finding("result", fmt.Sprintf("%s declares no interface %s", file.Path, resultName), false))
	}
	members, _ := c.members(result.Iface, result.scope, 0)
	for _, read := range inv.Reads {
		chain := strings.Split(read, "|")
		var first *Member
		for _, field := range chain {
			if m, ok := members[field]; ok {
				first = m.Member
				break
			}
		}
		switch {
		case first == nil && len(chain) == 1:
			out = append(out, finding("result "+read, fmt.Sprintf("result field %q is not in %s", read, resultName), false))
		case first == nil:
			out = append(out, finding("result "+read, fmt.Sprintf("result field %q: none of %s is in %s", read, strings.Join(chain, ", "), resultName), false))
		case first.Deprecated():
			out = append(out, finding("result "+first.Name, fmt.Sprintf("result field %q is deprecated in %s: %s", first.Name, resultName, deprecationNote(first.Doc)), true))
		}
	}
	return out
}

// resourceDeclaration finds the file and names that declare a type token:
// aws:iam/rolePolicyAttachment:RolePolicyAttachment → iam/rolePolicyAttachment.d.ts,
// RolePolicyAttachment, RolePolicyAttachmentArgs; kubernetes:helm.sh/v3:Release →
// helm/v3/release.d.ts; a kubernetes kind of a group the package does not have (a custom
// resource, kubernetes:karpenter.sh/v1:NodePool) → apiextensions/customResource.d.ts,
// CustomResource, CustomResourceArgs.
func resourceDeclaration(pkg *Package, token string) (*File, string, string, error) {
	parts := strings.Split(token, ":")
	if len(parts) != 3 || parts[0] != pkg.Provider {
		return nil, "", "", fmt.Errorf("type token %q is not a %s token", token, pkg.Provider)
	}
	module, typeName := parts[1], parts[2]
	var rel string
	switch pkg.Provider {
	case "kubernetes":
		group, version, ok := strings.Cut(module, "/")
		if !ok {
			return nil, "", "", fmt.Errorf("type token %q has no API version", token)
		}
		dir := strings.Split(group, ".")[0] + "/" + version
		if !pkg.exists(dir) {
			rel, typeName = "apiextensions/customResource.d.ts", "CustomResource"
			break
		}
		rel = dir + "/" + lowerFirst(parts[2]) + ".d.ts"
	default:
		if module == "index" {
			rel = lowerFirst(typeName) + ".d.ts"
		} else {
			rel = module + ".d.ts"
		}
	}
	f, err := pkg.File(rel)
	if err != nil {
		return nil, "", "", fmt.Errorf("type %s is not in the package (no %s)", token, rel)
	}
	return f, typeName, typeName + "Args", nil
}

// invokeDeclaration finds the file and function of an invoke token:
// aws:index/getRegion:getRegion → getRegion.d.ts, getRegion.
func invokeDeclaration(pkg *Package, token string) (*File, string, error) {
	parts := strings.Split(token, ":")
	if len(parts) != 3 || parts[0] != pkg.Provider {
		return nil, "", fmt.Errorf("function token %q is not a %s token", token, pkg.Provider)
	}
	rel := parts[1] + ".d.ts"
	if base, _, _ := strings.Cut(parts[1], "/"); base == "index" {
		rel = parts[2] + ".d.ts"
	}
	f, err := pkg.File(rel)
	if err != nil {
		return nil, "", fmt.Errorf("function %s is not in the package (no %s)", token, rel)
	}
	return f, parts[2], nil
}

type checker struct {
	pkg   *Package
	label string // "input" or "argument"
}

type problem struct {
	path       string
	msg        string
	deprecated bool
}

func (p problem) isError() bool { return !p.deprecated }

func errorCount(ps []problem) int {
	n := 0
	for _, p := range ps {
		if p.isError() {
			n++
		}
	}
	return n
}

// alt is one alternative of a (resolved) type: a structural type, or a declaration that is
// not one (a class, an enum), or a name that could not be resolved.
type alt struct {
	t          *TypeExpr
	sc         *scope
	decl       *Decl
	name       string
	unresolved error
}

const maxDepth = 40

// expand resolves references and flattens unions into alternatives.
func (c *checker) expand(t *TypeExpr, sc *scope, depth int) []alt {
	if depth > maxDepth {
		return []alt{{name: t.String(), unresolved: errors.New("type nests too deep")}}
	}
	switch t.Kind {
	case TUnion:
		if t.Intersect {
			return []alt{c.intersection(t, sc)}
		}
		var out []alt
		for _, a := range t.Alts {
			out = append(out, c.expand(a, sc, depth+1)...)
		}
		return out
	case TRef:
		switch t.Name {
		case "pulumi.Input", "pulumi.Output", "pulumi.OutputInstance", "Promise", "Readonly", "Partial", "Required", "NonNullable":
			if len(t.Args) == 1 && t.Module == "" {
				return c.expand(t.Args[0], sc, depth+1)
			}
		case "Array", "ReadonlyArray":
			if len(t.Args) == 1 && t.Module == "" {
				return []alt{{t: &TypeExpr{Kind: TArray, Elem: t.Args[0]}, sc: sc}}
			}
		case "Record":
			if len(t.Args) == 2 && t.Module == "" {
				return []alt{{t: &TypeExpr{Kind: TObject, Object: &ObjectType{Members: map[string]*Member{}, Index: t.Args[1]}}, sc: sc}}
			}
		case "pulumi.Inputs":
			return []alt{{t: &TypeExpr{Kind: TObject, Object: &ObjectType{Members: map[string]*Member{}, Index: &TypeExpr{Kind: TPrim, Prim: "any"}}}, sc: sc}}
		}
		var d *Decl
		var err error
		if t.Module != "" {
			d, err = c.pkg.lookupModule(sc, t.Module, t.Name)
		} else {
			d, err = c.pkg.lookup(sc, t.Name)
		}
		if err != nil {
			return []alt{{name: t.Name, unresolved: err}}
		}
		switch d.Kind {
		case DeclAlias:
			return c.expand(d.Alias, d.scope, depth+1)
		case DeclInterface:
			return []alt{{t: &TypeExpr{Kind: TObject, Object: d.Iface}, sc: d.scope, decl: d, name: d.Name}}
		case DeclNamespace:
			return []alt{{name: t.Name, unresolved: fmt.Errorf("%s is a namespace, not a type", t.Name)}}
		}
		return []alt{{decl: d, name: d.Name}}
	}
	return []alt{{t: t, sc: sc}}
}

// intersection merges the object parts of A & B into one object type.
func (c *checker) intersection(t *TypeExpr, sc *scope) alt {
	merged := &ObjectType{Members: map[string]*Member{}}
	merged.Extends = append(merged.Extends, t.Alts...)
	return alt{t: &TypeExpr{Kind: TObject, Object: merged}, sc: sc, name: t.String()}
}

// scopedMember is a member with the scope its type resolves in.
type scopedMember struct {
	*Member
	sc *scope
}

// members collects an object type's members, its base interfaces' included, and its index
// signature.
func (c *checker) members(obj *ObjectType, sc *scope, depth int) (map[string]scopedMember, *scopedMember) {
	out := map[string]scopedMember{}
	var index *scopedMember
	for _, name := range obj.Order {
		out[name] = scopedMember{obj.Members[name], sc}
	}
	if obj.Index != nil {
		index = &scopedMember{&Member{Type: obj.Index, Optional: true}, sc}
	}
	if depth > maxDepth {
		return out, index
	}
	for _, e := range obj.Extends {
		for _, a := range c.expand(e, sc, depth+1) {
			if a.t == nil || a.t.Kind != TObject {
				continue
			}
			base, baseIndex := c.members(a.t.Object, a.sc, depth+1)
			for k, m := range base {
				if _, own := out[k]; !own {
					out[k] = m
				}
			}
			if index == nil {
				index = baseIndex
			}
		}
	}
	return out, index
}

// object checks an object value against an object type.
func (c *checker) object(v map[string]any, obj *ObjectType, sc *scope, typeName, path string, depth int) []problem {
	members, index := c.members(obj, sc, depth)
	if typeName == "" {
		typeName = "the object type of " + quote(path)
	}
	var out []problem
	for _, k := range sortedKeys(v) {
		p := joinPath(path, k)
		if m, ok := members[k]; ok {
			if m.Deprecated() {
				out = append(out, problem{path: p, deprecated: true,
					msg: fmt.Sprintf("%s %q is deprecated in %s: %s", c.label, p, typeName, deprecationNote(m.Doc))})
			}
			out = append(out, c.value(v[k], m.Type, m.sc, p, m.Optional, depth+1)...)
			continue
		}
		if index != nil {
			out = append(out, c.value(v[k], index.Type, index.sc, mapPath(path, k), true, depth+1)...)
			continue
		}
		out = append(out, problem{path: p, msg: fmt.Sprintf("%s %q is not in %s", c.label, p, typeName)})
	}
	for _, k := range sortedKeys(members) {
		if m := members[k]; !m.Optional {
			if _, sent := v[k]; !sent {
				p := joinPath(path, k)
				out = append(out, problem{path: p, msg: fmt.Sprintf("required %s %q of %s is missing", c.label, p, typeName)})
			}
		}
	}
	return out
}

// value checks one value against a declared type: its kind (string, number, boolean, array,
// object or map) and, for objects, its keys.
func (c *checker) value(v any, t *TypeExpr, sc *scope, path string, optional bool, depth int) []problem {
	kind := kindOf(v)
	if kind == "masked" || depth > maxDepth {
		return nil // a secret or unknown: its shape is not visible in the render
	}
	alts := c.expand(t, sc, depth)
	for _, a := range alts {
		if a.t != nil && a.t.Kind == TPrim && (a.t.Prim == "any" || a.t.Prim == "unknown") {
			return nil
		}
	}
	mismatch := func() []problem {
		what := fmt.Sprintf("%s %q is %s, want %s", c.label, path, describeValue(v, kind), t)
		for _, a := range alts {
			if a.unresolved != nil {
				what += fmt.Sprintf(" (%s: %v)", a.name, a.unresolved)
				break
			}
		}
		return []problem{{path: path, msg: what}}
	}
	switch kind {
	case "null":
		if optional {
			return nil
		}
		for _, a := range alts {
			if a.t != nil && a.t.Kind == TPrim && (a.t.Prim == "undefined" || a.t.Prim == "null" || a.t.Prim == "void") {
				return nil
			}
		}
		return mismatch()
	case "string", "number", "boolean":
		lit := fmt.Sprint(v)
		var literals []string
		for _, a := range alts {
			switch {
			case a.t != nil && a.t.Kind == TPrim && a.t.Prim == kind:
				return nil
			case a.t != nil && a.t.Kind == TLiteral && a.t.LitKind == kind:
				if a.t.Lit == lit {
					return nil
				}
				literals = append(literals, a.t.String())
			case a.t != nil && a.t.Kind == TOpaque && kind != "boolean":
				return nil // typeof/keyof: an enum's values, which this checker does not evaluate
			case a.decl != nil && a.decl.Kind == DeclValue && kind != "boolean":
				return nil // an enum
			case a.decl != nil && a.decl.Kind == DeclClass && kind == "string" && strings.HasPrefix(lit, "urn:pulumi:"):
				return nil // a resource reference, rendered as its URN
			}
		}
		if len(literals) > 0 {
			return []problem{{path: path, msg: fmt.Sprintf("%s %q is %s, want one of %s", c.label, path, describeValue(v, kind), strings.Join(literals, ", "))}}
		}
		return mismatch()
	case "array":
		var first []problem
		found := false
		for _, a := range alts {
			if a.t == nil || a.t.Kind != TArray {
				continue
			}
			var probs []problem
			for i, e := range v.([]any) {
				probs = append(probs, c.value(e, a.t.Elem, a.sc, fmt.Sprintf("%s[%d]", path, i), false, depth+1)...)
			}
			if errorCount(probs) == 0 {
				return probs
			}
			if !found {
				first, found = probs, true
			}
		}
		if found {
			return first
		}
		return mismatch()
	case "object":
		var best []problem
		found := false
		for _, a := range alts {
			if a.t != nil && a.t.Kind == TPrim && a.t.Prim == "object" {
				return nil
			}
			if a.t == nil || a.t.Kind != TObject {
				continue
			}
			name := a.name
			if name == "" && len(a.t.Object.Members) == 0 && a.t.Object.Index != nil {
				name = "map" // { [key: string]: T }
			}
			probs := c.object(v.(map[string]any), a.t.Object, a.sc, name, path, depth+1)
			if errorCount(probs) == 0 {
				return probs
			}
			if !found || errorCount(probs) < errorCount(best) {
				best, found = probs, true
			}
		}
		if found {
			return best
		}
		return mismatch()
	}
	return mismatch()
}

func kindOf(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		if x == "[secret]" || x == "[unknown]" {
			return "masked"
		}
		return "string"
	case float64, int, int64:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func describeValue(v any, kind string) string {
	switch kind {
	case "string":
		s := v.(string)
		if len(s) > 40 {
			s = s[:40] + "..."
		}
		return fmt.Sprintf("a string (%q)", s)
	case "number", "boolean":
		return fmt.Sprintf("a %s (%v)", kind, v)
	case "array":
		return "an array"
	case "object":
		return "an object"
	}
	return kind
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// mapPath names a map entry: tags[team], metadata.annotations[pulumi.com/patchForce].
func mapPath(path, key string) string {
	if path == "" {
		return key // the top level's index signature (a custom resource's spec)
	}
	return path + "[" + key + "]"
}

func quote(s string) string { return fmt.Sprintf("%q", s) }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[n:]
}

func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}
