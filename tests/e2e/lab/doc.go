// Package lab is the world the engine scenarios (tests/e2e) and `make demo` run in, on loopback:
// an isolated Pulumi engine (engine.go) with the component plugin, the aws stand-in and the real
// pulumi-kubernetes provider installed; moto standing in for AWS (world.go, moto/), its EKS
// record kept by the aws stand-in (tests/e2e/standin/aws-provider-on-moto); a cluster (the
// harness's control plane, controllers and kwok) whose service-account tokens the world's EKS
// issuer signs; a private OCI registry with the real Karpenter charts; and, for the scenarios
// with the controller in the loop (loop.go), the real Karpenter controller beside its pod
// (controller.go), the recorder of its AWS calls with STS's and EKS Auth's checks and moto's
// fix-ups (recorder.go, identity.go, podidentity.go, fixups.go, preflight.go), the IAM check of
// those calls (authorization.go, iam-simulator/) and the registrar standing in for the kubelets
// of the instances it launches (registrar.go).
//
// The scenarios drive it through NewWorld, a World's Program/NewStack/Engine, StartLoop, and the
// readers of what the world holds (ReadAWS, ReadEC2, SnapshotKubernetes, World.Ops,
// World.StateResources). Files the world reads at run time (moto/, iam-simulator/, programs/) are
// found from the tests module's directory (repo.TestsDir).
//
// What the controller meets that AWS would answer otherwise: moto has no pricing API, so
// pricing:GetProducts gets HTTP 500 and Karpenter keeps its built-in on-demand prices; and
// settings.isolatedVPC stays as the component set it, so its instance-profile cleanup runs.
package lab
