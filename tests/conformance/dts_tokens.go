package conformance

import (
	"fmt"
	"strings"
)

// The tokens of a declaration file (dts.go parses them): identifiers, strings, numbers and
// punctuation, each with the JSDoc comment right before it.

type tokKind int

const (
	tEOF tokKind = iota
	tIdent
	tString
	tNumber
	tPunct
)

type token struct {
	kind tokKind
	text string // for strings: the unquoted value
	doc  string // the JSDoc comment right before this token, if any
	line int
}

func (t token) is(p string) bool { return (t.kind == tPunct || t.kind == tIdent) && t.text == p }

// tokenize splits a declaration file into tokens; comments are dropped except JSDoc, which is
// attached to the next token.
func tokenize(src string) ([]token, error) {
	var toks []token
	line := 1
	doc := ""
	i := 0
	emit := func(k tokKind, text string) {
		toks = append(toks, token{kind: k, text: text, doc: doc, line: line})
		doc = ""
	}
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return nil, fmt.Errorf("line %d: unterminated comment", line)
			}
			body := src[i : i+2+end+2]
			if strings.HasPrefix(body, "/**") {
				doc = body
			}
			line += strings.Count(body, "\n")
			i += len(body)
		case strings.HasPrefix(src[i:], "//"):
			end := strings.IndexByte(src[i:], '\n')
			if end < 0 {
				end = len(src) - i
			}
			i += end
		case c == '"' || c == '\'' || c == '`':
			j := i + 1
			var sb strings.Builder
			for j < len(src) && src[j] != c {
				if src[j] == '\\' && j+1 < len(src) {
					j++
				}
				if src[j] == '\n' {
					line++
				}
				sb.WriteByte(src[j])
				j++
			}
			if j >= len(src) {
				return nil, fmt.Errorf("line %d: unterminated string", line)
			}
			emit(tString, sb.String())
			i = j + 1
		case isIdentStart(c):
			j := i + 1
			for j < len(src) && isIdentPart(src[j]) {
				j++
			}
			emit(tIdent, src[i:j])
			i = j
		case c >= '0' && c <= '9':
			j := i + 1
			for j < len(src) && (isIdentPart(src[j]) || src[j] == '.') {
				j++
			}
			emit(tNumber, src[i:j])
			i = j
		case strings.HasPrefix(src[i:], "=>"):
			emit(tPunct, "=>")
			i += 2
		case strings.HasPrefix(src[i:], "..."):
			emit(tPunct, "...")
			i += 3
		default:
			emit(tPunct, string(c))
			i++
		}
	}
	toks = append(toks, token{kind: tEOF, line: line})
	return toks, nil
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentPart(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') }
