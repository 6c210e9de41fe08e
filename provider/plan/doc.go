// Package plan turns the component's inputs and the catalog into the resolved install, a Plan:
// the release and who runs it (Mode), the defaults applied (the args hold what the program
// wrote; every default is resolved here, once, from the catalog's), which children exist
// (controller IAM, node role, instance profile, interruption queue, CRD release, node access, Pod
// Identity), the completed NodePool and node class lists, the chart source, the warnings the
// component says (Warnings: one list of field.Warning, about the inputs, the checks against the
// cluster and what a preview could not know), and everything the children layer reads — the
// Input-typed values it wires into the children (Deferred) and what the engine sent known at
// Construct (Known; how each kind of value not known at Construct is handled: inputs/doc.go).
// Plans are made here only: New (the component; ClusterToRead says which cluster to read
// first), ForNodePool and ForNodeClass (one custom resource declared outside it).
// Making a Plan validates every plain input (validate.go runs the component's checks in order),
// so an invalid one creates nothing. The plan is checked against the cluster here too
// (cluster_checks.go, cluster_checks_classes.go), through a ClusterReader the children layer implements.
//
// Layers: catalog ← inputs ← plan ← children ← provider. plan is pure: it imports nothing of
// Pulumi and is tested without a Pulumi context (refusals_*_test.go: the plain inputs' refusals
// from render's JSON args).
package plan
