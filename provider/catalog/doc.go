// Package catalog is what the component knows about Karpenter and EKS, as data: the supported
// generations and releases (versions.go; a Release answers Has and Require for a Feature, and
// nothing above this package compares versions), the controller and node IAM policies of each
// generation and their layout into managed policies (policies.go), the interruption rules, the
// chart value keys and the chart settings of each release, the kubelet setting names, EKS Auto
// Mode's rules, and the component's defaults.
//
// It is the first of the provider's layers after field (the inputs' paths and errors), which
// import only the ones before them: field ← catalog ← inputs ← plan ← children ← provider. It
// imports nothing of Pulumi.
package catalog
