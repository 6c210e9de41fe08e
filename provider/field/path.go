// Package field is how a check names the input it refuses and says what is wrong with it: a
// Path to the input as a program writes it (nodePools[0].disruption.budgets[1].schedule), an
// Error (the path, what is wrong, and optionally what to do instead or the name meant), a List
// that prints every problem of the inputs, one per line, and a Warning (what a resource says of
// an input without refusing it, printed as an Error is). The ideas are those of
// k8s.io/apimachinery/pkg/util/validation/field; the format is the component's.
//
// It is below every layer of the provider (field ← catalog ← inputs ← plan ← children ←
// provider) and imports only the standard library.
package field

import (
	"slices"
	"strconv"
	"strings"
)

// Path is the path of an input from the top of a resource's inputs: names of properties,
// indexes of list elements and keys of map entries. A nil *Path is the top itself: its Child is
// a root. Paths are immutable; extending one never changes it, so a check can hand the same
// path to several others.
type Path struct {
	parent *Path
	kind   kind
	name   string // a child's name, or a key
	index  int
}

type kind uint8

const (
	child kind = iota // .name (name alone at the root)
	index             // [0]
	key               // ["key"]
)

// NewPath is the path of a top-level input, and of its children named by more.
func NewPath(name string, more ...string) *Path {
	return (*Path)(nil).Child(name, more...)
}

// Child is the path of the property name of the object at p, and of its children named by
// more: nodePools[0].disruption.
func (p *Path) Child(name string, more ...string) *Path {
	c := &Path{parent: p, kind: child, name: name}
	for _, m := range more {
		c = &Path{parent: c, kind: child, name: m}
	}
	return c
}

// Index is the path of element i of the list at p: nodePools[0].
func (p *Path) Index(i int) *Path {
	return &Path{parent: p, kind: index, index: i}
}

// Key is the path of the entry k of the map at p, the key quoted as Go quotes strings:
// nodePools[0].labels["team"].
func (p *Path) Key(k string) *Path {
	return &Path{parent: p, kind: key, name: k}
}

// Step is one step of a path from the top: into a property or a map entry by its name or key
// (Key, Index < 0), or into a list element (Index). A reader of the inputs a path names walks
// them by its steps, not by parsing what String prints.
type Step struct {
	Key   string
	Index int
}

// Steps are the steps of p from the top; the top (nil) has none.
func (p *Path) Steps() []Step {
	var out []Step
	for _, e := range p.elems() {
		if e.kind == index {
			out = append(out, Step{Index: e.index})
		} else {
			out = append(out, Step{Key: e.name, Index: -1})
		}
	}
	return out
}

// elems are p's elements from the top.
func (p *Path) elems() []*Path {
	var out []*Path
	for e := p; e != nil; e = e.parent {
		out = append(out, e)
	}
	slices.Reverse(out)
	return out
}

// String prints the path as messages name it: nodePools[0].labels["team"]. The top (nil)
// prints empty.
func (p *Path) String() string {
	var b strings.Builder
	for _, e := range p.elems() {
		switch e.kind {
		case child:
			if e.parent != nil {
				b.WriteByte('.')
			}
			b.WriteString(e.name)
		case index:
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(e.index))
			b.WriteByte(']')
		case key:
			b.WriteByte('[')
			b.WriteString(strconv.Quote(e.name))
			b.WriteByte(']')
		}
	}
	return b.String()
}
