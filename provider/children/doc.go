// Package children registers a Plan's children with Pulumi — the only layer that handles
// Outputs, and it reads only the Plan. install.go reads top to bottom in dependency order: node
// IAM and its cluster access, discovery tags, the interruption queue, controller IAM and Pod
// Identity, the CRD and controller Helm releases, then the node classes and NodePools
// (customresources.go; their bodies in nodeclasses.go, nodepools.go, body.go), so a destroy
// removes them in reverse while Karpenter still runs. standalone.go registers the one custom
// resource of a NodePool or NodeClass resource. gate.go holds the gate every child waits on: the
// inputs layer's checks of Input values run once the values resolve, so bad input creates
// nothing even when it was unknown at preview. readcluster.go reads the cluster through the aws
// provider's functions for the plan's checks. Children are registered by type token
// (resources.go), without the aws and kubernetes SDKs.
//
// Layers: catalog ← inputs ← plan ← children ← provider.
package children
