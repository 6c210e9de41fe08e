//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/lab"
)

// TestDefaultInstall is the life of the default install through the real engine, on one moto and
// one API server, on an EKS cluster the program makes: the first preview (the cluster does not
// exist yet, oidcProviderArn is unknown: the component's checks wait), `pulumi up` (the cluster
// read and checked before any child), what moto and the API server then hold, a second preview with
// no changes (the cluster read and checked at it), the state's parentage, and `pulumi destroy`
// (everything gone, in the documented order).
func TestDefaultInstall(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.stack("")

	t.Run("preview of a cluster the update creates, oidcProviderArn unknown", func(t *testing.T) {
		p := w.preview(t)
		if errs := p.errors(); len(errs) > 0 {
			t.Fatalf("preview errors: %q", errs)
		}
		// The engine says which kubernetes provider runs: the real 4.25.0, installed under the
		// 4.30.0 the component requests.
		if !slices.ContainsFunc(p.Diagnostics, func(d diagnostic) bool { return strings.Contains(d.Message, lab.KubernetesVersionWarning) }) {
			t.Errorf("the preview does not warn %q: %+v", lab.KubernetesVersionWarning, p.Diagnostics)
		}
		// The engine called Construct with the cluster's name known (auto-named, like pulumi-eks's
		// clusters) and the OIDC provider's ARN unknown: outputs of resources that do not exist yet
		// ...
		calls, err := w.Engine.GRPCCalls()
		if err != nil {
			t.Fatal(err)
		}
		cs := calls.Completed("ResourceProvider/Construct")
		if len(cs) != 1 {
			t.Fatalf("want one Construct call, got %d", len(cs))
		}
		var construct struct{ Inputs map[string]any }
		if err := cs[0].Decode(&construct); err != nil {
			t.Fatal(err)
		}
		if !unknownOutputValue(construct.Inputs["oidcProviderArn"]) {
			t.Errorf("Construct input oidcProviderArn = %v, want unknown", construct.Inputs["oidcProviderArn"])
		}
		cluster, _ := construct.Inputs["clusterName"].(map[string]any)
		if name := str(cluster["value"]); !strings.HasPrefix(name, "cluster-") || !strings.Contains(fmt.Sprint(cluster["dependencies"]), "aws:eks/cluster:Cluster::cluster") {
			t.Errorf("Construct input clusterName = %v, want the cluster's name, known, from the cluster", construct.Inputs["clusterName"])
		}
		if len(cs[0].Errors) > 0 {
			t.Errorf("Construct failed: %q", cs[0].Errors)
		}
		// ... which the component could not read yet: it says so, and what it checks at `up`.
		if !slices.ContainsFunc(p.Diagnostics, func(d diagnostic) bool {
			return d.Severity == "warning" && strings.Contains(d.Message, "does not exist yet (this update creates it): at `pulumi up`, before creating anything, the component reads the cluster and checks")
		}) {
			t.Errorf("the preview does not say the cluster checks wait for `up`: %+v", p.Diagnostics)
		}
		// ... and the component planned every child of the default install, parented to it.
		children, byName := plannedChildren(t, p)
		if got := countTypes(children); !reflect.DeepEqual(got, defaultChildren) {
			t.Errorf("planned children by type:\n got %v\nwant %v", got, defaultChildren)
		}
		// What depends on the unknown is unknown; the AWS names, derived from account, region,
		// project, stack and component name, are known (nothing waits for a name), and so is what
		// the cluster's name scopes.
		for name, k := range map[string]string{
			"karpenter-controller": "assumeRolePolicy", // trusts the OIDC provider
		} {
			if !hasUnknown(byName[name][k]) {
				t.Errorf("%s.%s should be unknown in the preview: %v", name, k, byName[name][k])
			}
		}
		for _, nk := range [][2]string{
			{"karpenter-controller", "name"},
			{"karpenter-node", "name"},
			{"karpenter-node", "assumeRolePolicy"},
			{"karpenter-controller-node-lifecycle", "name"},
			{"karpenter-controller-zonal-shift", "name"},
			{"karpenter-interruption", "name"},
			{"karpenter-spot-interruption", "eventPattern"},
			{"karpenter-nodepool-default", "spec"},
			{"karpenter-controller-node-lifecycle", "policy"}, // scoped by the cluster-name tag
			{"karpenter-node-access", "clusterName"},
			{"karpenter-nodeclass-default", "spec"}, // the discovery tag of the cluster
			{"karpenter-discovery-subnet-0", "value"},
		} {
			if v := byName[nk[0]][nk[1]]; v == nil || hasUnknown(v) {
				t.Errorf("%s.%s should be known in the preview, got %v", nk[0], nk[1], v)
			}
		}
		w.assertNothingCreated(t)
	})

	var out map[string]any
	const created = 47 // stack, 2 providers, the cluster, its role and OIDC provider, the component, 40 children
	t.Run("up creates the default install", func(t *testing.T) {
		start := time.Now()
		stdout := w.up(t)
		t.Logf("pulumi up: %s", time.Since(start).Round(100*time.Millisecond))
		if !strings.Contains(stdout, fmt.Sprintf("%d created", created)) {
			t.Errorf("pulumi up: want %d resources created (stack, 2 providers, the cluster, its role and OIDC provider, the component, 40 children):\n%s", created, stdout)
		}
		out = w.outputs(t)
		checkDefaultAWS(t, w, out)
		checkDefaultKubernetes(t, w, out)
	})
	if t.Failed() {
		return
	}

	t.Run("a second preview shows no changes", func(t *testing.T) {
		w.must(t, "preview", "--expect-no-changes", "--non-interactive")
		p := w.preview(t)
		for _, s := range p.Steps {
			if s.Op != "same" {
				t.Errorf("%s: %s (%v)", s.URN, s.Op, s.DiffReasons)
			}
		}
	})

	t.Run("every child is parented to the component", func(t *testing.T) {
		var export struct {
			Deployment struct {
				Resources []struct {
					URN, Type, Parent, Provider string
					Custom                      bool
				}
			}
		}
		if err := json.Unmarshal([]byte(w.must(t, "stack", "export")), &export); err != nil {
			t.Fatal(err)
		}
		var stack, component, awsProvider, k8sProvider string
		for _, r := range export.Deployment.Resources {
			switch {
			case r.Type == "pulumi:pulumi:Stack":
				stack = r.URN
			case r.Type == "karpenter:index:Karpenter":
				component = r.URN
			case r.Type == "pulumi:providers:aws":
				awsProvider = r.URN
			case r.Type == "pulumi:providers:kubernetes":
				k8sProvider = r.URN
			}
		}
		var children []string
		for _, r := range export.Deployment.Resources {
			switch {
			case r.URN == stack:
			case strings.HasPrefix(r.Type, "pulumi:providers:") && strings.HasSuffix(r.URN, "::default"):
				// The engine's default provider for the component's own package has no parent.
			case strings.Contains(r.URN, "karpenter:index:Karpenter$"):
				// Registered by the component: its child, using the program's explicit providers.
				if r.Parent != component {
					t.Errorf("%s: parent %q, want the component", r.URN, r.Parent)
				}
				want := awsProvider
				if strings.HasPrefix(r.Type, "kubernetes:") {
					want = k8sProvider
				}
				if !strings.HasPrefix(r.Provider, want+"::") {
					t.Errorf("%s: provider %q, want the program's %s", r.URN, r.Provider, want)
				}
				children = append(children, r.Type)
			default:
				// The program's own resources, the component included, belong to the stack.
				if r.Parent != stack {
					t.Errorf("%s: parent %q, want the stack", r.URN, r.Parent)
				}
			}
		}
		if component == "" || !reflect.DeepEqual(countTypes(children), defaultChildren) {
			t.Errorf("the component's children by type:\n got %v\nwant %v", countTypes(children), defaultChildren)
		}
	})

	t.Run("the state orders the destroy", func(t *testing.T) {
		state, err := w.StateResources()
		if err != nil {
			t.Fatal(err)
		}
		checkStateOrder(t, state)
	})

	t.Run("destroy removes everything, custom resources first, IAM and queue last", func(t *testing.T) {
		if stdout := w.must(t, "destroy", "--yes", "--non-interactive", "--skip-preview"); !strings.Contains(stdout, fmt.Sprintf("%d deleted", created)) {
			t.Errorf("pulumi destroy: want %d deleted:\n%s", created, stdout)
		}
		w.assertNothingLeft(t)
		ops, err := w.Ops()
		if err != nil {
			t.Fatal(err)
		}
		checkDestroyOrder(t, ops)
	})
}

// unknownOutputValue: an input the engine sent to Construct as an output value without a value
// (the gRPC log shows the output-value signature and the dependencies only).
func unknownOutputValue(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return str(v) == unknownSentinel
	}
	_, hasValue := m["value"]
	return m["4dabf18193072939515e22adb298388d"] == "d0e6a833031e9bbcd3f4e8bde6ca49a4" && !hasValue
}

// assertNothingLeft: after a destroy moto holds nothing, the API server holds what it held at
// its start once the garbage collector has removed what the deleted objects owned (ReplicaSets,
// pods, EndpointSlices: background deletion, as in any cluster), and every resource created was
// deleted but those named retained (retainOnDelete: the engine never deletes them).
func (w *world) assertNothingLeft(t *testing.T, retained ...string) {
	t.Helper()
	if l := w.aws(t).Leftovers(); len(l) > 0 {
		t.Errorf("moto still holds: %s", strings.Join(l, ", "))
	}
	if objs := w.settledKubeObjects(t); len(objs) > 0 {
		t.Errorf("the API server still holds %d objects it did not have at the start: %s", len(objs), strings.Join(objs, ", "))
	}
	ops, err := w.Ops()
	if err != nil {
		t.Fatal(err)
	}
	created, deleted := map[string]bool{}, map[string]bool{}
	for _, op := range ops {
		switch {
		case op.Failed:
		case op.Op == "Create":
			created[op.Type+" "+op.Name] = true
		case op.Op == "Delete":
			deleted[op.Type+" "+op.Name] = true
		}
	}
	for k := range created {
		if !deleted[k] && !slices.Contains(retained, k[strings.LastIndex(k, " ")+1:]) {
			t.Errorf("created and never deleted: %s", k)
		}
	}
}
