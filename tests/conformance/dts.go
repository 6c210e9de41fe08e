// Package conformance checks every child the component renders, and every provider function
// it invokes, against the providers' own published declarations: the TypeScript *.d.ts files
// of the @pulumi/aws and @pulumi/kubernetes npm packages (their Args interfaces name every
// input a resource accepts, with its type and deprecation).
//
// What it cannot see: validation on the provider's side (value formats, ARNs, enums typed as
// string, conflicting arguments, a bridged provider's plan-time checks); the shape of a secret
// (only its key is checked); the custom resources' specs (the harness holds those to the CRDs);
// and which outputs the component reads from its children (a render does not record them).
package conformance

import (
	"fmt"
	"strings"
)

// This file is a small parser for the subset of TypeScript declaration files the Pulumi SDK
// generators write: imports and re-exports, (nested) namespaces, interfaces (members, index
// signatures, extends), type aliases, and — skipped but noted — classes, functions, consts and
// enums. JSDoc comments are kept on the token that follows them, so a member knows whether it
// is @deprecated.

// DeclKind is what a declared name is.
type DeclKind int

const (
	DeclInterface DeclKind = iota
	DeclAlias
	DeclNamespace
	DeclClass
	DeclValue // const, function, enum: a value, not a type the checker can use
)

// Decl is one declared name in a file or namespace.
type Decl struct {
	Kind  DeclKind
	Name  string
	Doc   string
	Iface *ObjectType      // interfaces
	Alias *TypeExpr        // type aliases
	NS    map[string]*Decl // namespaces
	scope *scope           // where the declaration's own type references resolve
}

// Deprecated reports whether the declaration's JSDoc marks it @deprecated.
func (d *Decl) Deprecated() bool { return isDeprecated(d.Doc) }

func isDeprecated(doc string) bool { return strings.Contains(doc, "@deprecated") }

// deprecationNote is the text after @deprecated, on one line.
func deprecationNote(doc string) string {
	_, after, ok := strings.Cut(doc, "@deprecated")
	if !ok {
		return ""
	}
	after = strings.TrimSuffix(strings.TrimSpace(after), "*/")
	var words []string
	for _, l := range strings.Split(after, "\n") {
		l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "*"))
		if strings.HasPrefix(l, "@") {
			break
		}
		if l != "" {
			words = append(words, l)
		}
	}
	return strings.Join(words, " ")
}

// ObjectType is an interface or an object type literal.
type ObjectType struct {
	Members map[string]*Member
	Order   []string
	Index   *TypeExpr   // [key: string]: T
	Extends []*TypeExpr // interfaces only
}

// Member is one property of an object type.
type Member struct {
	Name     string
	Optional bool
	Type     *TypeExpr
	Doc      string
}

// Deprecated reports whether the member's JSDoc marks it @deprecated.
func (m *Member) Deprecated() bool { return isDeprecated(m.Doc) }

// File is one parsed declaration file.
type File struct {
	Path  string // relative to the package root
	Decls map[string]*Decl
	// Imports: `import * as X from "m"` (nsImports) and `import { A as B } from "m"` (named).
	nsImports map[string]string
	named     map[string]importRef
	// Re-exports: `export * from "m"` and `export { A as B } from "m"`.
	exportStar  []string
	exportNamed map[string]importRef
}

type importRef struct{ module, name string }

// scope is where names in a declaration resolve: its file and enclosing namespaces.
type scope struct {
	file *File
	ns   []string
}

type parser struct {
	toks []token
	pos  int
	file *File
}

func (p *parser) peek() token { return p.toks[p.pos] }
func (p *parser) peekN(n int) token {
	if p.pos+n < len(p.toks) {
		return p.toks[p.pos+n]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) next() token {
	t := p.toks[p.pos]
	if t.kind != tEOF {
		p.pos++
	}
	return t
}

func (p *parser) accept(s string) bool {
	if p.peek().is(s) {
		p.pos++
		return true
	}
	return false
}

func (p *parser) expect(s string) error {
	if !p.accept(s) {
		t := p.peek()
		return fmt.Errorf("%s:%d: want %q, got %q", p.file.Path, t.line, s, t.text)
	}
	return nil
}

// ParseFile parses one declaration file's text.
func ParseFile(path, src string) (*File, error) {
	toks, err := tokenize(src)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	f := &File{Path: path, Decls: map[string]*Decl{}, nsImports: map[string]string{}, named: map[string]importRef{}, exportNamed: map[string]importRef{}}
	p := &parser{toks: toks, file: f}
	if err := p.decls(f.Decls, nil, true); err != nil {
		return nil, err
	}
	return f, nil
}

// decls parses declarations into into until the closing brace of a namespace (or EOF at top level).
func (p *parser) decls(into map[string]*Decl, ns []string, top bool) error {
	for {
		t := p.peek()
		switch {
		case t.kind == tEOF:
			if !top {
				return fmt.Errorf("%s: unterminated namespace %s", p.file.Path, strings.Join(ns, "."))
			}
			return nil
		case t.is("}"):
			if top {
				return fmt.Errorf("%s:%d: unexpected }", p.file.Path, t.line)
			}
			p.next()
			return nil
		case t.is("import") && top:
			if err := p.importDecl(); err != nil {
				return err
			}
		case t.is("export"):
			doc := t.doc
			p.next()
			switch {
			case p.peek().is("*") || p.peek().is("{"):
				if err := p.exportFrom(top); err != nil {
					return err
				}
				continue
			case p.peek().is("="), p.peek().is("default"):
				p.skipStatement()
				continue
			}
			if err := p.decl(into, ns, doc); err != nil {
				return err
			}
		default:
			if err := p.decl(into, ns, t.doc); err != nil {
				return err
			}
		}
	}
}

func (p *parser) importDecl() error {
	p.next() // import
	p.accept("type")
	switch {
	case p.accept("*"):
		if err := p.expect("as"); err != nil {
			return err
		}
		alias := p.next().text
		if err := p.expect("from"); err != nil {
			return err
		}
		p.file.nsImports[alias] = p.next().text
	case p.accept("{"):
		var names [][2]string
		for !p.peek().is("}") && p.peek().kind != tEOF {
			p.accept("type")
			name := p.next().text
			local := name
			if p.accept("as") {
				local = p.next().text
			}
			names = append(names, [2]string{name, local})
			p.accept(",")
		}
		p.next()
		if err := p.expect("from"); err != nil {
			return err
		}
		module := p.next().text
		for _, n := range names {
			p.file.named[n[1]] = importRef{module, n[0]}
		}
	default:
		// import x = require("m"), side-effect imports: not used by the generators' types.
	}
	p.skipStatement()
	return nil
}

func (p *parser) exportFrom(top bool) error {
	if p.accept("*") {
		if p.accept("as") { // export * as X from "m": a namespace alias
			alias := p.next().text
			if p.accept("from") && top {
				p.file.nsImports[alias] = p.next().text
				p.file.exportNamed[alias] = importRef{module: p.file.nsImports[alias], name: "*"}
			}
			p.skipStatement()
			return nil
		}
		if err := p.expect("from"); err != nil {
			return err
		}
		if top {
			p.file.exportStar = append(p.file.exportStar, p.next().text)
		}
		p.skipStatement()
		return nil
	}
	p.next() // {
	var names [][2]string
	for !p.peek().is("}") && p.peek().kind != tEOF {
		p.accept("type")
		name := p.next().text
		exported := name
		if p.accept("as") {
			exported = p.next().text
		}
		names = append(names, [2]string{name, exported})
		p.accept(",")
	}
	p.next()
	if p.accept("from") && top {
		module := p.next().text
		for _, n := range names {
			p.file.exportNamed[n[1]] = importRef{module, n[0]}
		}
	}
	p.skipStatement()
	return nil
}

// decl parses one declaration (after any `export`).
func (p *parser) decl(into map[string]*Decl, ns []string, doc string) error {
	for p.peek().is("declare") || p.peek().is("abstract") || p.peek().is("default") {
		p.next()
	}
	t := p.peek()
	sc := &scope{file: p.file, ns: append([]string(nil), ns...)}
	switch {
	case t.is("namespace") || t.is("module"):
		p.next()
		var path []string
		path = append(path, p.next().text)
		for p.accept(".") {
			path = append(path, p.next().text)
		}
		if err := p.expect("{"); err != nil {
			return err
		}
		target := into
		inner := append([]string(nil), ns...)
		for _, name := range path {
			d := target[name]
			if d == nil || d.Kind != DeclNamespace {
				d = &Decl{Kind: DeclNamespace, Name: name, Doc: doc, NS: map[string]*Decl{}}
				target[name] = d
			}
			target = d.NS
			inner = append(inner, name)
		}
		return p.decls(target, inner, false)
	case t.is("interface"):
		p.next()
		name := p.next().text
		p.skipTypeParams()
		obj := &ObjectType{Members: map[string]*Member{}}
		if p.accept("extends") {
			for {
				e, err := p.parseType()
				if err != nil {
					return err
				}
				obj.Extends = append(obj.Extends, e)
				if !p.accept(",") {
					break
				}
			}
		}
		if err := p.expect("{"); err != nil {
			return err
		}
		if err := p.members(obj); err != nil {
			return err
		}
		if old := into[name]; old != nil && old.Kind == DeclInterface { // declaration merging
			for _, k := range obj.Order {
				if _, ok := old.Iface.Members[k]; !ok {
					old.Iface.Order = append(old.Iface.Order, k)
				}
				old.Iface.Members[k] = obj.Members[k]
			}
			old.Iface.Extends = append(old.Iface.Extends, obj.Extends...)
			if obj.Index != nil {
				old.Iface.Index = obj.Index
			}
			return nil
		}
		into[name] = &Decl{Kind: DeclInterface, Name: name, Doc: doc, Iface: obj, scope: sc}
	case t.is("type"):
		p.next()
		name := p.next().text
		p.skipTypeParams()
		if err := p.expect("="); err != nil {
			return err
		}
		ty, err := p.parseType()
		if err != nil {
			return err
		}
		p.accept(";")
		into[name] = &Decl{Kind: DeclAlias, Name: name, Doc: doc, Alias: ty, scope: sc}
	case t.is("class"):
		p.next()
		name := p.next().text
		for !p.peek().is("{") && p.peek().kind != tEOF {
			p.next()
		}
		p.skipBraces()
		into[name] = &Decl{Kind: DeclClass, Name: name, Doc: doc, scope: sc}
	case t.is("enum") || (t.is("const") && p.peekN(1).is("enum")):
		p.accept("const")
		p.next()
		name := p.next().text
		p.skipBraces()
		into[name] = &Decl{Kind: DeclValue, Name: name, Doc: doc, scope: sc}
	case t.is("function") || t.is("const") || t.is("let") || t.is("var"):
		p.next()
		name := p.peek().text
		p.skipStatement()
		if _, exists := into[name]; !exists {
			into[name] = &Decl{Kind: DeclValue, Name: name, Doc: doc, scope: sc}
		}
	default:
		p.next() // anything else is skipped a token at a time
	}
	return nil
}

// members parses an object type's body up to and including its closing brace.
func (p *parser) members(obj *ObjectType) error {
	for {
		t := p.peek()
		if t.kind == tEOF {
			return fmt.Errorf("%s: unterminated object type", p.file.Path)
		}
		if p.accept("}") {
			return nil
		}
		if p.accept(";") || p.accept(",") {
			continue
		}
		doc := t.doc
		if t.is("readonly") && !(p.peekN(1).is(":") || p.peekN(1).is("?") || p.peekN(1).is("(")) {
			p.next()
			if doc == "" {
				doc = p.peek().doc
			}
		}
		if p.peek().is("[") {
			// [key: string]: T, or a mapped type [K in ...]: T
			p.next()
			depth := 1
			for depth > 0 && p.peek().kind != tEOF {
				switch tk := p.next(); {
				case tk.is("["):
					depth++
				case tk.is("]"):
					depth--
				}
			}
			p.accept("?")
			if err := p.expect(":"); err != nil {
				return err
			}
			ty, err := p.parseType()
			if err != nil {
				return err
			}
			obj.Index = ty
			continue
		}
		if p.peek().is("(") || p.peek().is("<") || p.peek().is("new") && (p.peekN(1).is("(") || p.peekN(1).is("<")) {
			p.skipMember() // call or construct signature
			continue
		}
		nameTok := p.next()
		if nameTok.kind != tIdent && nameTok.kind != tString && nameTok.kind != tNumber {
			return fmt.Errorf("%s:%d: unexpected %q in an object type", p.file.Path, nameTok.line, nameTok.text)
		}
		m := &Member{Name: nameTok.text, Doc: doc}
		if p.accept("?") {
			m.Optional = true
		}
		if p.peek().is("(") || p.peek().is("<") {
			p.skipMember() // method
			continue
		}
		if err := p.expect(":"); err != nil {
			return err
		}
		ty, err := p.parseType()
		if err != nil {
			return err
		}
		m.Type = ty
		if _, dup := obj.Members[m.Name]; !dup {
			obj.Order = append(obj.Order, m.Name)
		}
		obj.Members[m.Name] = m
	}
}

// skipStatement skips to the end of a statement: a `;` outside brackets, or (not consumed)
// the closing brace of the enclosing block.
func (p *parser) skipStatement() {
	depth := 0
	for {
		t := p.peek()
		if t.kind == tEOF {
			return
		}
		if depth == 0 && t.is(";") {
			p.next()
			return
		}
		if depth == 0 && t.is("}") {
			return
		}
		p.next()
		switch {
		case t.is("(") || t.is("[") || t.is("{") || t.is("<"):
			depth++
		case t.is(")") || t.is("]") || t.is("}") || t.is(">"):
			depth--
		}
	}
}

// skipMember skips a method or call signature up to its `;` or the object's closing brace.
func (p *parser) skipMember() {
	depth := 0
	for {
		t := p.peek()
		if t.kind == tEOF {
			return
		}
		if depth == 0 && (t.is(";") || t.is(",")) {
			p.next()
			return
		}
		if depth == 0 && t.is("}") {
			return
		}
		p.next()
		switch {
		case t.is("(") || t.is("[") || t.is("{") || t.is("<"):
			depth++
		case t.is(")") || t.is("]") || t.is("}") || t.is(">"):
			depth--
		}
	}
}

func (p *parser) skipBraces() {
	if !p.accept("{") {
		return
	}
	depth := 1
	for depth > 0 && p.peek().kind != tEOF {
		switch t := p.next(); {
		case t.is("{"):
			depth++
		case t.is("}"):
			depth--
		}
	}
}

func (p *parser) skipTypeParams() {
	if !p.accept("<") {
		return
	}
	depth := 1
	for depth > 0 && p.peek().kind != tEOF {
		switch t := p.next(); {
		case t.is("<"):
			depth++
		case t.is(">"):
			depth--
		}
	}
}
