package conformance

import (
	"fmt"
	"strings"
)

// TypeKind is the shape of a type expression.
type TypeKind int

const (
	TPrim    TypeKind = iota // string, number, boolean, any, unknown, undefined, null, never, void, object
	TLiteral                 // "v1", 3, true
	TArray                   // T[], Array<T>, tuples
	TObject                  // { a: T; [k: string]: U } (Object)
	TUnion                   // A | B (also A & B: see Intersect)
	TRef                     // a named type, maybe generic: inputs.iam.PolicyDocument, pulumi.Input<T>
	TFunc                    // (...) => T
	TOpaque                  // typeof X, keyof T, T[K]: not checked
)

// TypeExpr is a parsed TypeScript type expression.
type TypeExpr struct {
	Kind      TypeKind
	Prim      string      // TPrim
	Lit       string      // TLiteral (strings unquoted; numbers and booleans as written)
	LitKind   string      // "string", "number" or "boolean"
	Elem      *TypeExpr   // TArray
	Object    *ObjectType // TObject
	Alts      []*TypeExpr // TUnion
	Intersect bool        // TUnion built from &
	Name      string      // TRef: dotted name
	Module    string      // TRef from import("m").Name
	Args      []*TypeExpr // TRef type arguments
	Text      string      // TOpaque: what it was
}

func (t *TypeExpr) String() string {
	if t == nil {
		return "?"
	}
	switch t.Kind {
	case TPrim:
		return t.Prim
	case TLiteral:
		if t.LitKind == "string" {
			return fmt.Sprintf("%q", t.Lit)
		}
		return t.Lit
	case TArray:
		return t.Elem.String() + "[]"
	case TObject:
		if t.Object.Index != nil && len(t.Object.Members) == 0 {
			return "{[key: string]: " + t.Object.Index.String() + "}"
		}
		return "{" + strings.Join(t.Object.Order, ", ") + "}"
	case TUnion:
		var parts []string
		for _, a := range t.Alts {
			parts = append(parts, a.String())
		}
		sep := " | "
		if t.Intersect {
			sep = " & "
		}
		return strings.Join(parts, sep)
	case TRef:
		s := t.Name
		if t.Module != "" {
			s = fmt.Sprintf("import(%q).%s", t.Module, t.Name)
		}
		if len(t.Args) > 0 {
			var parts []string
			for _, a := range t.Args {
				parts = append(parts, a.String())
			}
			s += "<" + strings.Join(parts, ", ") + ">"
		}
		return s
	case TFunc:
		return "function"
	}
	return t.Text
}

var primitives = map[string]bool{
	"string": true, "number": true, "boolean": true, "any": true, "unknown": true, "undefined": true,
	"null": true, "never": true, "void": true, "object": true, "bigint": true, "symbol": true,
}

// parseType parses a type expression at the parser's position.
func (p *parser) parseType() (*TypeExpr, error) {
	p.accept("|")
	first, err := p.parseIntersection()
	if err != nil {
		return nil, err
	}
	alts := []*TypeExpr{first}
	for p.accept("|") {
		next, err := p.parseIntersection()
		if err != nil {
			return nil, err
		}
		alts = append(alts, next)
	}
	if len(alts) == 1 {
		return first, nil
	}
	return &TypeExpr{Kind: TUnion, Alts: alts}, nil
}

func (p *parser) parseIntersection() (*TypeExpr, error) {
	p.accept("&")
	first, err := p.parsePostfix()
	if err != nil {
		return nil, err
	}
	parts := []*TypeExpr{first}
	for p.accept("&") {
		next, err := p.parsePostfix()
		if err != nil {
			return nil, err
		}
		parts = append(parts, next)
	}
	if len(parts) == 1 {
		return first, nil
	}
	return &TypeExpr{Kind: TUnion, Alts: parts, Intersect: true}, nil
}

func (p *parser) parsePostfix() (*TypeExpr, error) {
	t, err := p.parsePrimary()
	if err != nil {
		return nil, err
	}
	for p.peek().is("[") {
		if p.peekN(1).is("]") {
			p.pos += 2
			t = &TypeExpr{Kind: TArray, Elem: t}
			continue
		}
		p.next()
		idx, err := p.parseType() // indexed access T[K]
		if err != nil {
			return nil, err
		}
		if err := p.expect("]"); err != nil {
			return nil, err
		}
		t = &TypeExpr{Kind: TOpaque, Text: t.String() + "[" + idx.String() + "]"}
	}
	return t, nil
}

func (p *parser) parsePrimary() (*TypeExpr, error) {
	t := p.peek()
	switch {
	case t.is("("):
		// A parenthesized type or a function type: look past the matching ")" for "=>".
		depth, j := 0, p.pos
		for ; j < len(p.toks); j++ {
			if p.toks[j].is("(") {
				depth++
			} else if p.toks[j].is(")") {
				depth--
				if depth == 0 {
					break
				}
			}
		}
		if j+1 < len(p.toks) && p.toks[j+1].is("=>") {
			p.pos = j + 2
			if _, err := p.parseType(); err != nil {
				return nil, err
			}
			return &TypeExpr{Kind: TFunc}, nil
		}
		p.next()
		inner, err := p.parseType()
		if err != nil {
			return nil, err
		}
		return inner, p.expect(")")
	case t.is("new") && (p.peekN(1).is("(") || p.peekN(1).is("<")):
		p.next()
		p.skipTypeParams()
		return p.parsePrimary()
	case t.is("<"): // generic function type <T>(...) => R
		p.skipTypeParams()
		return p.parsePrimary()
	case t.is("{"):
		p.next()
		obj := &ObjectType{Members: map[string]*Member{}}
		if err := p.members(obj); err != nil {
			return nil, err
		}
		return &TypeExpr{Kind: TObject, Object: obj}, nil
	case t.is("["): // tuple
		p.next()
		var elems []*TypeExpr
		for !p.peek().is("]") && p.peek().kind != tEOF {
			p.accept("...")
			if p.peek().kind == tIdent && (p.peekN(1).is(":") || p.peekN(1).is("?") && p.peekN(2).is(":")) {
				p.next() // named tuple member
				p.accept("?")
				p.next()
			}
			e, err := p.parseType()
			if err != nil {
				return nil, err
			}
			p.accept("?")
			elems = append(elems, e)
			if !p.accept(",") {
				break
			}
		}
		if err := p.expect("]"); err != nil {
			return nil, err
		}
		elem := &TypeExpr{Kind: TPrim, Prim: "never"}
		if len(elems) == 1 {
			elem = elems[0]
		} else if len(elems) > 1 {
			elem = &TypeExpr{Kind: TUnion, Alts: elems}
		}
		return &TypeExpr{Kind: TArray, Elem: elem}, nil
	case t.kind == tString:
		p.next()
		return &TypeExpr{Kind: TLiteral, Lit: t.text, LitKind: "string"}, nil
	case t.kind == tNumber || t.is("-") && p.peekN(1).kind == tNumber:
		lit := ""
		if p.accept("-") {
			lit = "-"
		}
		lit += p.next().text
		return &TypeExpr{Kind: TLiteral, Lit: lit, LitKind: "number"}, nil
	case t.is("true") || t.is("false"):
		p.next()
		return &TypeExpr{Kind: TLiteral, Lit: t.text, LitKind: "boolean"}, nil
	case t.is("typeof"):
		p.next()
		var name []string
		if p.peek().is("import") {
			ref, err := p.importType()
			if err != nil {
				return nil, err
			}
			name = append(name, ref.String())
		} else {
			name = append(name, p.next().text)
			for p.accept(".") {
				name = append(name, p.next().text)
			}
		}
		return &TypeExpr{Kind: TOpaque, Text: "typeof " + strings.Join(name, ".")}, nil
	case t.is("keyof") || t.is("unique") || t.is("readonly") || t.is("infer"):
		p.next()
		inner, err := p.parsePostfix()
		if err != nil {
			return nil, err
		}
		if t.is("readonly") {
			return inner, nil
		}
		return &TypeExpr{Kind: TOpaque, Text: t.text + " " + inner.String()}, nil
	case t.is("import"):
		return p.importType()
	case t.kind == tIdent:
		p.next()
		if primitives[t.text] {
			return &TypeExpr{Kind: TPrim, Prim: t.text}, nil
		}
		name := t.text
		for p.peek().is(".") && p.peekN(1).kind == tIdent {
			p.next()
			name += "." + p.next().text
		}
		ref := &TypeExpr{Kind: TRef, Name: name}
		if err := p.typeArgs(ref); err != nil {
			return nil, err
		}
		return ref, nil
	}
	return nil, fmt.Errorf("%s:%d: unexpected %q in a type", p.file.Path, t.line, t.text)
}

// importType parses import("m").Name<Args>.
func (p *parser) importType() (*TypeExpr, error) {
	p.next() // import
	if err := p.expect("("); err != nil {
		return nil, err
	}
	module := p.next().text
	if err := p.expect(")"); err != nil {
		return nil, err
	}
	var name []string
	for p.accept(".") {
		name = append(name, p.next().text)
	}
	ref := &TypeExpr{Kind: TRef, Module: module, Name: strings.Join(name, ".")}
	return ref, p.typeArgs(ref)
}

func (p *parser) typeArgs(ref *TypeExpr) error {
	if !p.accept("<") {
		return nil
	}
	for {
		a, err := p.parseType()
		if err != nil {
			return err
		}
		ref.Args = append(ref.Args, a)
		if !p.accept(",") {
			break
		}
	}
	return p.expect(">")
}
