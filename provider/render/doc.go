// Package render runs a provider the way the Pulumi engine does — a gRPC Construct whose
// resource monitor is served in-process — against mocks that answer the way AWS and the
// kubernetes provider would, and describes what the component registered: every child with its
// type, parent, dependencies and inputs, the component's outputs and the provider functions it
// called, in the format of package format (`pulumi-resource-karpenter render --args FILE`).
//
// It runs the provider it is given (Plugin) and never imports the top package, which wires it
// (provider.Renderer); every package's tests run the component through it (internal/rendertest).
// args.go reads a render's args file, engine.go is the in-process engine (Host: the engine service, the resource monitor
// and the provider's server), mocks.go answers registrations, reads and invokes, cluster_mock.go the
// cluster a render's args describe, invokes.go reports the invokes; children's recorder (passed
// through the context) tells it the registration order and the invoke results read.
//
// Layers: catalog ← inputs ← plan ← children ← render; the top package imports it.
package render
