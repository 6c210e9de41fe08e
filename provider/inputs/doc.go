// Package inputs holds the component's input types — KarpenterArgs, NodePoolSpec, NodeClassSpec
// and everything they contain, from which the schema and every SDK are generated — and every
// check on them. A check names the path of what it refuses (a field.Path, in a field error; the
// errors print one per line), and all problems of an input are reported together: the plain
// inputs (validate_*.go, against the catalog's release; a check of an input with a default is
// given the value the plan resolved), the raw inputs before they decode (properties.go: unknown
// keys, outputs inside plain fields), chart values (values.go), and the values only known once
// they resolve (checks.go), as functions of the resolved value that the children layer's gate
// runs.
//
// Layers: field ← catalog ← inputs ← plan ← children ← provider. inputs takes no Pulumi context
// and creates no Output: it names Pulumi's Input types only because the args carry them.
package inputs
