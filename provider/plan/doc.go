// Package plan turns the component's inputs (spec) and the catalog into the resolved install, a
// Plan: the release, the defaults applied, which children exist (controller IAM, node role,
// instance profile, interruption queue, CRD release, node access, Pod Identity), the completed
// NodePool and node class lists, the chart source and the warnings a preview says. Building a
// Plan validates every plain input, so an invalid one creates nothing.
//
// Layers: catalog ← inputs ← plan ← children ← provider. plan is pure: it imports nothing of Pulumi
// and is tested without a Pulumi context.
package plan
