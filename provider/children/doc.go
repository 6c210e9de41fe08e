// Package children registers a Plan's children with Pulumi — the only layer that handles Outputs.
// install.go reads top to bottom in dependency order: node IAM and its cluster access, discovery
// tags, the interruption queue, controller IAM and Pod Identity, the CRD and controller Helm
// releases, then the node classes and NodePools, so a destroy removes them in reverse while
// Karpenter still runs. gate.go holds the gate every child waits on: the checks of Input values
// (spec) run once the values resolve, so bad input creates nothing even when it was unknown at
// preview. Children are registered by type token (resources.go), without the aws and kubernetes
// SDKs.
//
// Layers: catalog ← inputs ← plan ← children ← provider.
package children
