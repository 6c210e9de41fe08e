// Command pulumi-resource-kubernetes is a stand-in for pulumi-kubernetes 4.30.0 (test only).
//
// The real kubernetes provider plugin cannot be downloaded on these machines, so the
// end-to-end tests install this one in its place (`pulumi plugin install resource kubernetes
// 4.30.0 --file <this binary>`) and the real Pulumi engine loads it for every
// `kubernetes:*` resource the Karpenter component registers. It is not pulumi-kubernetes: it
// implements the provider gRPC protocol for exactly the resource types the component uses,
// against the real API server a test starts (tests/harness), and refuses anything else.
//
//   - kubernetes:helm.sh/v3:Release: Create = Helm install, Update = Helm upgrade, Delete =
//     Helm uninstall that returns once every object of the release is gone, through the
//     harness's Helm SDK code and its chart mapping (oci://…/karpenter[-crd] + version → the
//     chart in the Karpenter Go module zip; tests/README.md).
//   - Custom resources (any API group that is not a built-in Kubernetes one, e.g.
//     karpenter.sh/v1 NodePool) and core/v1 ConfigMap: Create and Update are server-side
//     applies, Delete deletes and waits until the object is gone (finalizers included), Read
//     gets the live object (ReadResource of kube-system/aws-auth).
//   - <Kind>Patch (kubernetes:core/v1:ConfigMapPatch): server-side apply of the given fields
//     under their own field manager, forced on `pulumi.com/patchForce: "true"`; Delete
//     relinquishes the fields.
//
// Check and Diff follow pulumi-kubernetes (replacement lists cited in diff.go); previews never
// touch the cluster. The cluster comes from provider config `kubernetes:kubeconfig` (contents
// or a path, as with the real provider) or env KUBECONFIG; without either, Configure fails.
// Env STANDIN_LOG names a file each completed operation is appended to, one line each:
// `<RFC3339Nano> kubernetes <op> <type> <urn-name> <id>`, op one of Create, Update, Delete,
// Read (log.go), the format the aws stand-in writes to the same file.
package main

import (
	"fmt"
	"os"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/provider"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

const (
	// Version is the pulumi-kubernetes version the component requests (provider/versions.go).
	Version = "4.30.0"
	// StandIn names this plugin in every message it emits.
	StandIn = "stand-in for pulumi-kubernetes " + Version + " (test only)"
	// pluginInfoVersion is what GetPluginInfo answers: 4.30.0 with build metadata naming the
	// stand-in (semver precedence ignores build metadata, so it is the version the component
	// asks for), as the aws stand-in does.
	pluginInfoVersion = Version + "+standin"
)

func main() {
	for _, a := range os.Args[1:] {
		if a == "--version" || a == "-version" {
			fmt.Printf("%s: %s\n", Version, StandIn)
			return
		}
	}
	logf("starting")
	if err := provider.Main("kubernetes", func(host *provider.HostClient) (pulumirpc.ResourceProviderServer, error) {
		return newStandIn(host), nil
	}); err != nil {
		logf("fatal: %v", err)
		os.Exit(1)
	}
}
