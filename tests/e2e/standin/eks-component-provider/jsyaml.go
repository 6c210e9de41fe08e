package main

import (
	"fmt"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
)

// pulumi-eks writes aws-auth's mapRoles with js-yaml's dump (cluster/authenticationMode.ts:138),
// and the ConfigMap holds that text: a program or a test that reads it back sees js-yaml's
// quoting, folding and escapes, not some other YAML writer's. This is js-yaml 4.2.0's
// (yarn.lock:4743-4747 at pulumi-eks v4.3.0; lib/dumper.js) dump with its default options, for
// the documents createAwsAuthData writes: a sequence of mappings whose values are strings, nulls
// or sequences of them, every string in block context. js-yaml measures and slices strings in
// UTF-16 code units, so the port does too.

// yamlField is one key of a mapRoles entry. A field that is absent (undefined in JavaScript) is
// not written at all: writeNode returns false for undefined (dumper.js:841-842).
type yamlField struct {
	key   string
	value any // string, nil (null), or []any of those
}

// dumpYAML is js-yaml's dump of a sequence of mappings (dumper.js:919-935: writeBlockSequence,
// :586-617, at level 0, writeBlockMapping, :659-729, at level 1, values at level 2, their items at
// level 3).
func dumpYAML(entries [][]yamlField) (string, error) {
	if len(entries) == 0 {
		return "[]\n", nil // an empty sequence is written in flow style
	}
	var b strings.Builder
	for i, fields := range entries {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString("- ")
		if len(fields) == 0 {
			b.WriteString("{}")
		}
		for j, f := range fields {
			if j > 0 {
				b.WriteString("\n  ")
			}
			v, err := yamlValue(f.value, 2)
			if err != nil {
				return "", fmt.Errorf("%s: %w", f.key, err)
			}
			// A block value starts on the next line: "key:" then the value (dumper.js:715-719).
			sep := ": "
			if strings.HasPrefix(v, "\n") {
				sep = ":"
			}
			b.WriteString(f.key + sep + v)
		}
	}
	return b.String() + "\n", nil
}

// yamlValue is writeNode for the values mapRoles holds.
func yamlValue(v any, level int) (string, error) {
	switch v := v.(type) {
	case nil:
		return "null", nil // the null type's lowercase representation
	case string:
		return yamlScalar(v, level), nil
	case []any:
		if len(v) == 0 {
			return "[]", nil
		}
		// writeBlockSequence, not compact: every item on its own line.
		var b strings.Builder
		for _, item := range v {
			if _, nested := item.([]any); nested {
				return "", fmt.Errorf("nested sequences are not written by the %s", standIn)
			}
			s, err := yamlValue(item, level+1)
			if err != nil {
				return "", err
			}
			b.WriteString("\n" + strings.Repeat("  ", level) + "- " + s)
		}
		return b.String(), nil
	}
	return "", fmt.Errorf("%T values are not written by the %s (pulumi-eks's schema types them as strings)", v, standIn)
}

const (
	yamlLineWidth = 80 // State.lineWidth's default
	yamlIndent    = 2  // State.indent's default
)

var (
	deprecatedBooleans = []string{"y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "n", "N", "no", "No", "NO", "off", "Off", "OFF"}
	deprecatedBase60   = regexp.MustCompile(`^[-+]?[0-9_]+(?::[0-9_]+)+(?:\.[0-9_]*)?$`)
)

// yamlScalar is writeScalar (dumper.js:392-441) for a string value in block context, not a key.
func yamlScalar(s string, level int) string {
	if s == "" {
		return "''"
	}
	// Compatibility with YAML 1.1 readers: their booleans and base-60 numbers are quoted.
	if slices.Contains(deprecatedBooleans, s) || deprecatedBase60.MatchString(s) {
		return "'" + s + "'"
	}
	indent := yamlIndent * max(1, level)
	// The width shrinks with the indentation, down to 40.
	width := max(min(yamlLineWidth, 40), yamlLineWidth-indent)
	u := utf16.Encode([]rune(s))
	switch chooseScalarStyle(u, width) {
	case stylePlain:
		return s
	case styleSingle:
		return "'" + strings.ReplaceAll(s, "'", "''") + "'"
	case styleLiteral:
		return "|" + blockHeader(u) + dropEndingNewline(indentString(s, indent))
	case styleFolded:
		return ">" + blockHeader(u) + dropEndingNewline(indentString(string(utf16.Decode(foldString(u, width))), indent))
	default:
		return `"` + escapeString(s) + `"`
	}
}

const (
	stylePlain = iota
	styleSingle
	styleLiteral
	styleFolded
	styleDouble
)

// chooseScalarStyle (dumper.js:315-384) with block styles allowed, single quotes preferred and
// no forced quotes.
func chooseScalarStyle(u []uint16, width int) int {
	var hasLineBreak, hasFoldableLine bool
	prevLineBreak := -1
	plain := isPlainSafeFirst(codePointAt(u, 0)) && isPlainSafeLast(codePointAt(u, len(u)-1))
	prev := rune(-1)
	i := 0
	for i < len(u) {
		c := codePointAt(u, i)
		if c == '\n' {
			hasLineBreak = true
			// A line is foldable when it is too long and not more-indented.
			hasFoldableLine = hasFoldableLine || (i-prevLineBreak-1 > width && unitAt(u, prevLineBreak+1) != ' ')
			prevLineBreak = i
		} else if !isPrintable(c) {
			return styleDouble
		}
		plain = plain && isPlainSafe(c, prev)
		prev = c
		if c >= 0x10000 {
			i += 2
		} else {
			i++
		}
	}
	hasFoldableLine = hasFoldableLine || (i-prevLineBreak-1 > width && unitAt(u, prevLineBreak+1) != ' ')
	if !hasLineBreak && !hasFoldableLine {
		if plain && !implicitlyTyped(string(utf16.Decode(u))) {
			return stylePlain
		}
		return styleSingle
	}
	if hasFoldableLine {
		return styleFolded
	}
	return styleLiteral
}

// codePointAt is JavaScript's String.prototype.codePointAt on UTF-16 code units.
func codePointAt(u []uint16, i int) rune {
	first := rune(u[i])
	if first >= 0xD800 && first <= 0xDBFF && i+1 < len(u) {
		if second := rune(u[i+1]); second >= 0xDC00 && second <= 0xDFFF {
			return (first-0xD800)*0x400 + second - 0xDC00 + 0x10000
		}
	}
	return first
}

// unitAt is u[i], or -1 past the end (JavaScript's undefined, unequal to any character).
func unitAt(u []uint16, i int) rune {
	if i < len(u) {
		return rune(u[i])
	}
	return -1
}

func isWhitespace(c rune) bool { return c == ' ' || c == '\t' }

func isPrintable(c rune) bool {
	return (c >= 0x20 && c <= 0x7E) ||
		(c >= 0xA1 && c <= 0xD7FF && c != 0x2028 && c != 0x2029) ||
		(c >= 0xE000 && c <= 0xFFFD && c != 0xFEFF) ||
		(c >= 0x10000 && c <= 0x10FFFF)
}

func isNsCharOrWhitespace(c rune) bool {
	return isPrintable(c) && c != 0xFEFF && c != '\r' && c != '\n'
}

// isPlainSafe is dumper.js:217-239's isPlainSafe in block context (flow indicators allowed).
func isPlainSafe(c, prev rune) bool {
	cNsOrWhite := isNsCharOrWhitespace(c)
	cNs := cNsOrWhite && !isWhitespace(c)
	return (cNsOrWhite && c != '#' && !(prev == ':' && !cNs)) ||
		(isNsCharOrWhitespace(prev) && !isWhitespace(prev) && c == '#') ||
		(prev == ':' && cNs)
}

func isPlainSafeFirst(c rune) bool {
	return isPrintable(c) && c != 0xFEFF && !isWhitespace(c) && !strings.ContainsRune("-?:,[]{}#&*!|=>'\"%@`", c)
}

func isPlainSafeLast(c rune) bool { return !isWhitespace(c) && c != ':' }

// implicitlyTyped is testImplicitResolving with the default schema's implicit types, in its
// order: null, bool, int, float (lib/schema/json.js), timestamp, merge (lib/schema/default.js).
func implicitlyTyped(s string) bool {
	switch s {
	case "~", "null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE", "<<":
		return true
	}
	return yamlInt(s) || yamlFloat(s) || yamlDate.MatchString(s) || yamlTimestamp.MatchString(s)
}

// yamlInt is lib/type/int.js's resolveYamlInteger.
func yamlInt(s string) bool {
	i := 0
	if s == "" {
		return false
	}
	if s[0] == '-' || s[0] == '+' {
		i++
	}
	if i < len(s) && s[i] == '0' {
		if i+1 == len(s) {
			return true
		}
		i++
		base := 0
		switch s[i] {
		case 'b':
			base = 2
		case 'x':
			base = 16
		case 'o':
			base = 8
		}
		if base != 0 {
			digits := s[i+1:]
			_, ok := new(big.Int).SetString(digits, base)
			return digits != "" && ok && !strings.ContainsAny(digits, "+-_") && finite(digits, base)
		}
	}
	digits := s[i:]
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return false
	}
	return finite(digits, 10)
}

// finite is Number.isFinite(parseInt(digits, base)): false past the largest double.
func finite(digits string, base int) bool {
	n, _ := new(big.Int).SetString(digits, base)
	f, _ := new(big.Float).SetInt(n).Float64()
	return !math.IsInf(f, 0)
}

var (
	yamlFloatPattern   = regexp.MustCompile(`^(?:[-+]?(?:[0-9]+)(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?|\.[0-9]+(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)
	yamlFloatSpecial   = regexp.MustCompile(`^(?:[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)
	yamlDate           = regexp.MustCompile(`^([0-9][0-9][0-9][0-9])-([0-9][0-9])-([0-9][0-9])$`)
	yamlTimestamp      = regexp.MustCompile(`^([0-9][0-9][0-9][0-9])-([0-9][0-9]?)-([0-9][0-9]?)(?:[Tt]|[ \t]+)([0-9][0-9]?):([0-9][0-9]):([0-9][0-9])(?:\.([0-9]*))?(?:[ \t]*(Z|([-+])([0-9][0-9]?)(?::([0-9][0-9]))?))?$`)
	leadingSpaceInBody = regexp.MustCompile(`^\n* `)
)

// yamlFloat is lib/type/float.js's resolveYamlFloat.
func yamlFloat(s string) bool {
	if !yamlFloatPattern.MatchString(s) {
		return false
	}
	if f, _ := strconv.ParseFloat(s, 64); !math.IsInf(f, 0) {
		return true
	}
	return yamlFloatSpecial.MatchString(s)
}

// blockHeader (dumper.js:444-453): an indentation indicator when the text starts with a space
// (after newlines), and the chomping indicator of its trailing newlines.
func blockHeader(u []uint16) string {
	indicator := ""
	if leadingSpaceInBody.MatchString(string(utf16.Decode(u))) {
		indicator = strconv.Itoa(yamlIndent)
	}
	clip := unitAt(u, len(u)-1) == '\n'
	keep := clip && (len(u) == 1 || unitAt(u, len(u)-2) == '\n')
	switch {
	case keep:
		return indicator + "+\n"
	case clip:
		return indicator + "\n"
	}
	return indicator + "-\n"
}

func dropEndingNewline(s string) string { return strings.TrimSuffix(s, "\n") }

// indentString indents every line but the empty ones.
func indentString(s string, spaces int) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		if line != "" && line != "\n" {
			b.WriteString(strings.Repeat(" ", spaces))
		}
		b.WriteString(line)
	}
	return b.String()
}

// foldString (dumper.js:462-494): each run of newlines and the line after it; a newline is
// doubled between two lines that are not more-indented, as folded style reads one back as a
// space.
func foldString(u []uint16, width int) []uint16 {
	first := len(u)
	if i := slices.Index(u, '\n'); i >= 0 {
		first = i
	}
	out := foldLine(u[:first], width)
	prevMoreIndented := unitAt(u, 0) == '\n' || unitAt(u, 0) == ' '
	for i := first; i < len(u); {
		j := i
		for j < len(u) && u[j] == '\n' {
			j++
		}
		k := j
		for k < len(u) && u[k] != '\n' {
			k++
		}
		prefix, line := u[i:j], u[j:k]
		moreIndented := unitAt(line, 0) == ' '
		out = append(out, prefix...)
		if !prevMoreIndented && !moreIndented && len(line) > 0 {
			out = append(out, '\n')
		}
		out = append(out, foldLine(line, width)...)
		prevMoreIndented = moreIndented
		i = k
	}
	return out
}

// foldLine (dumper.js:500-540): greedy breaks at a space followed by a non-space, the longest
// piece under width, else the shortest over it.
func foldLine(line []uint16, width int) []uint16 {
	if len(line) == 0 || line[0] == ' ' {
		return line
	}
	var out []uint16
	start, curr := 0, 0
	for i := 0; i+1 < len(line); i++ {
		if line[i] != ' ' || line[i+1] == ' ' {
			continue
		}
		next := i
		if next-start > width {
			end := next
			if curr > start {
				end = curr
			}
			out = append(append(out, '\n'), line[start:end]...)
			start = end + 1
		}
		curr = next
		i++ // the regular expression resumes after the matched non-space
	}
	out = append(out, '\n')
	if len(line)-start > width && curr > start {
		out = append(append(append(out, line[start:curr]...), '\n'), line[curr+1:]...)
	} else {
		out = append(out, line[start:]...)
	}
	return out[1:]
}

var yamlEscapes = map[rune]string{
	0x00: `\0`, 0x07: `\a`, 0x08: `\b`, 0x09: `\t`, 0x0A: `\n`, 0x0B: `\v`, 0x0C: `\f`, 0x0D: `\r`,
	0x1B: `\e`, 0x22: `\"`, 0x5C: `\\`, 0x85: `\N`, 0xA0: `\_`, 0x2028: `\L`, 0x2029: `\P`,
}

// escapeString (dumper.js:543-560): the escapes above, else \xXX, \uXXXX or \UXXXXXXXX for what
// is not printable.
func escapeString(s string) string {
	var b strings.Builder
	for _, c := range s {
		if esc, ok := yamlEscapes[c]; ok {
			b.WriteString(esc)
			continue
		}
		switch {
		case isPrintable(c):
			b.WriteRune(c)
		case c <= 0xFF:
			fmt.Fprintf(&b, `\x%02X`, c)
		case c <= 0xFFFF:
			fmt.Fprintf(&b, `\u%04X`, c)
		default:
			fmt.Fprintf(&b, `\U%08X`, c)
		}
	}
	return b.String()
}
