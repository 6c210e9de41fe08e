package tests

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/harness"
	"helm.sh/helm/v3/pkg/release"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/internal/repo"
)

// These tests need the provider binary (`make build`), etcd and the cached kube-apiserver
// (`make deps`). When any is missing they fail, never skip: `make test` must exercise them.
// `go test -short` skips them for a quick compile-and-unit run.

func args(name string) string { return filepath.Join("testdata", "args", name) }

// render runs the real provider's render command on an args file and fails on any error.
func render(t *testing.T, argsFile string) *harness.Render {
	t.Helper()
	bin, err := repo.ProviderBinary()
	if err != nil {
		t.Fatal(err)
	}
	r, err := harness.RunRender(bin, argsFile)
	if err != nil {
		t.Fatalf("render %s: %v", argsFile, err)
	}
	return r
}

// renderError runs render on an args file that must be rejected and returns the failure.
func renderError(t *testing.T, argsFile string) *harness.RenderError {
	t.Helper()
	bin, err := repo.ProviderBinary()
	if err != nil {
		t.Fatal(err)
	}
	r, err := harness.RunRender(bin, argsFile)
	var re *harness.RenderError
	if !errors.As(err, &re) {
		t.Fatalf("render %s: want a non-zero exit, got err=%v and %d resources", argsFile, err, resourceCount(r))
	}
	return re
}

func resourceCount(r *harness.Render) int {
	if r == nil {
		return 0
	}
	return len(r.Resources)
}

// cluster starts a fresh etcd + kube-apiserver, stopped when the test ends (pass or fail).
func cluster(t *testing.T) (*harness.Cluster, context.Context) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a Kubernetes API server; run without -short (make test does)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	start := time.Now()
	cp, err := harness.Start(ctx, t.TempDir())
	if err != nil {
		t.Fatalf("start control plane: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			for _, l := range cp.Logs() {
				t.Logf("log kept until cleanup: %s", l)
			}
		}
		cp.Stop()
	})
	t.Logf("kube-apiserver %s ready at %s in %s", harness.KubernetesVersion, cp.URL, time.Since(start).Round(time.Millisecond))
	c, err := harness.NewCluster(cp)
	if err != nil {
		t.Fatal(err)
	}
	return c, ctx
}

// clusterWithCRDs starts a cluster (cluster) and installs the render's karpenter-crd release.
func clusterWithCRDs(t *testing.T, r *harness.Render) (*harness.Cluster, context.Context) {
	t.Helper()
	crdRelease, ok := r.Release("karpenter-crd")
	if !ok {
		t.Fatal("render has no karpenter-crd release")
	}
	c, ctx := cluster(t)
	if _, err := c.InstallRelease(ctx, crdRelease); err != nil {
		t.Fatal(err)
	}
	return c, ctx
}

// install applies a render and fails the test on any error (including read-back diffs).
func install(t *testing.T, ctx context.Context, c *harness.Cluster, r *harness.Render) []harness.Applied {
	t.Helper()
	applied, err := c.Install(ctx, r)
	if err != nil {
		t.Fatalf("install: %v", err)
	}
	return applied
}

// manifestObject finds one object of a kind in a release manifest.
func manifestObject(t *testing.T, manifest, kind string) *unstructured.Unstructured {
	t.Helper()
	var found []*unstructured.Unstructured
	for _, doc := range strings.Split(manifest, "\n---") {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(doc), &m); err != nil || m == nil {
			continue
		}
		if m["kind"] == kind {
			found = append(found, &unstructured.Unstructured{Object: m})
		}
	}
	if len(found) != 1 {
		t.Fatalf("release manifest has %d %s objects, want 1", len(found), kind)
	}
	return found[0]
}

var (
	nodePoolsGVR  = schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1", Resource: "nodepools"}
	nodeClassGVR  = schema.GroupVersionResource{Group: "karpenter.k8s.aws", Version: "v1", Resource: "ec2nodeclasses"}
	deploymentGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	saGVR         = schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}
)

// names lists the names of all objects of a cluster-scoped resource.
func names(t *testing.T, ctx context.Context, c *harness.Cluster, gvr schema.GroupVersionResource) []string {
	t.Helper()
	list, err := c.Dynamic.Resource(gvr).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list %s: %v", gvr.Resource, err)
	}
	var out []string
	for _, o := range list.Items {
		out = append(out, o.GetName())
	}
	return out
}

// outputString reads a string output of the render, failing when absent.
func outputString(t *testing.T, r *harness.Render, key string) string {
	t.Helper()
	s, _ := r.Outputs[key].(string)
	if s == "" {
		t.Fatalf("render outputs have no %q (outputs: %v)", key, keys(r.Outputs))
	}
	return s
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// appliedOfType returns what was applied for one rendered type, keyed by metadata.name.
func appliedOfType(applied []harness.Applied, typ string) map[string]harness.Applied {
	out := map[string]harness.Applied{}
	for _, a := range applied {
		if a.Resource.Type == typ {
			out[a.Got.GetName()] = a
		}
	}
	return out
}

func field(obj *unstructured.Unstructured, path ...string) any {
	v, _, _ := unstructured.NestedFieldNoCopy(obj.Object, path...)
	return v
}

func describe(v any) string { return fmt.Sprintf("%v", v) }

// withVersion writes a copy of an args file with `version` set and returns its path.
func withVersion(t *testing.T, argsFile, version string) string {
	t.Helper()
	in := readArgs(t, argsFile)
	in["version"] = version
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "args.json")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// readArgs reads a JSON args file.
func readArgs(t *testing.T, argsFile string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(argsFile)
	if err != nil {
		t.Fatal(err)
	}
	var in map[string]any
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatalf("%s: %v", argsFile, err)
	}
	return in
}

// controllerPod returns the pod template of the controller Deployment of a release, as the
// API server stored it, and the container environment (name -> value).
func controllerPod(t *testing.T, ctx context.Context, c *harness.Cluster, rel *release.Release) (corev1.PodTemplateSpec, map[string]string) {
	t.Helper()
	dep := manifestObject(t, rel.Manifest, "Deployment")
	got, err := c.Dynamic.Resource(deploymentGVR).Namespace(rel.Namespace).Get(ctx, dep.GetName(), metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get Deployment %s/%s: %v", rel.Namespace, dep.GetName(), err)
	}
	var tmpl corev1.PodTemplateSpec
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(field(got, "spec", "template").(map[string]any), &tmpl); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, ctr := range tmpl.Spec.Containers {
		for _, e := range ctr.Env {
			env[e.Name] = e.Value
		}
	}
	return tmpl, env
}

// checkValuesKnown fails when the rendered values of a release set a key the installed
// chart's values.yaml does not declare (Helm would ignore it without a word).
func checkValuesKnown(t *testing.T, res harness.Resource, rel *release.Release) {
	t.Helper()
	values, _ := harness.Lookup(res.Inputs, "values").(map[string]any)
	if unknown := harness.UnknownValues(rel.Chart.Values, values); len(unknown) > 0 {
		t.Errorf("release %s sets values the %s %s chart does not declare (ignored by Helm): %v",
			res.Name, rel.Chart.Name(), rel.Chart.Metadata.Version, unknown)
	}
}

// releases indexes the installed Helm releases by rendered resource name.
func releases(applied []harness.Applied) map[string]*release.Release {
	out := map[string]*release.Release{}
	for _, a := range applied {
		if a.Release != nil {
			out[a.Resource.Name] = a.Release
		}
	}
	return out
}

var autoModeNodeClassGVR = schema.GroupVersionResource{Group: "eks.amazonaws.com", Version: "v1", Resource: "nodeclasses"}

// autoModeCluster starts a fresh control plane serving what EKS installs when Auto Mode is
// enabled: its NodeClass and NodePool CRDs (harness.InstallAutoModeCRDs, the harness's stand-in:
// the 2024-12 schemas plus the fields the EKS User Guide documents later).
func autoModeCluster(t *testing.T) (*harness.Cluster, context.Context) {
	t.Helper()
	c, ctx := cluster(t)
	if err := c.InstallAutoModeCRDs(ctx); err != nil {
		t.Fatalf("install the Auto Mode CRDs: %v", err)
	}
	return c, ctx
}

// installAutoMode is the install of an Auto Mode render (`mode: autoMode`): it starts a control
// plane, installs the CRDs EKS serves (autoModeCluster), renders argsFile with the built provider,
// fails if the render has a Helm release (EKS owns the controller and the shared karpenter.sh
// CRDs; a CRD release could replace or, on uninstall, delete them), and installs the render: its
// NodeClasses and NodePools are created on the Auto Mode CRDs and read back equal to what was
// sent; the AWS resources (node role, policy attachments, access entry, policy association) are
// not installed. It returns the cluster (stopped when the test ends), the render and what was
// applied, in creation order.
func installAutoMode(t *testing.T, argsFile string) (*harness.Cluster, context.Context, *harness.Render, []harness.Applied) {
	t.Helper()
	r := render(t, argsFile)
	if rels := r.OfType(harness.ReleaseType); len(rels) > 0 {
		var names []string
		for _, rel := range rels {
			names = append(names, rel.Name+" ("+rel.String("chart")+")")
		}
		t.Fatalf("render %s: an Auto Mode render has no Helm release, got %v", argsFile, names)
	}
	c, ctx := autoModeCluster(t)
	return c, ctx, r, install(t, ctx, c, r)
}
