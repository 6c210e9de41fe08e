//go:build e2e

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/blang/semver/v4"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/protobuf/types/known/emptypb"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/harness"
)

// karpenterVersion is the chart version the tests install (supported by the harness).
const karpenterVersion = "1.14.1"

const (
	nodePoolType  = "kubernetes:karpenter.sh/v1:NodePool"
	nodeClassType = "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"
	configMapType = "kubernetes:core/v1:ConfigMap"
	cmPatchType   = "kubernetes:core/v1:ConfigMapPatch"
)

var (
	nodePoolGVR   = schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1", Resource: "nodepools"}
	nodeClassGVR  = schema.GroupVersionResource{Group: "karpenter.k8s.aws", Version: "v1", Resource: "ec2nodeclasses"}
	configMapGVR  = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	deploymentGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	crdGVR        = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
)

// fixture is the hand-written render the harness installs (tests/testdata/render/default.json):
// the two releases, an EC2NodeClass and a NodePool, inputs as the component registers them.
func fixture(t *testing.T) map[string]harness.Resource {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "render", "default.json"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := harness.ParseRender(b)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]harness.Resource{}
	for _, res := range r.Resources {
		if res.IsKubernetes() {
			if res.IsRelease() {
				res.Inputs["version"] = karpenterVersion
			}
			out[res.Name] = res
		}
	}
	return out
}

func TestVersionInfoAndConfiguration(t *testing.T) {
	out, err := exec.Command(pluginBin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := "4.30.0: stand-in for pulumi-kubernetes 4.30.0 (test only)\n"; string(out) != want {
		t.Errorf("--version = %q, want %q", out, want)
	}
	p := startStandIn(t)
	info, err := p.rpc.GetPluginInfo(ctxT(t), &emptypb.Empty{})
	if err != nil || info.GetVersion() != "4.30.0+standin" {
		t.Errorf("GetPluginInfo = %v, %v; want version 4.30.0+standin", info, err)
	}
	if v, err := semver.ParseTolerant(info.GetVersion()); err != nil || !v.Equals(semver.MustParse("4.30.0")) {
		t.Errorf("GetPluginInfo's version %q is not semver-equal to 4.30.0: %v", info.GetVersion(), err)
	}
	schemaResp, err := p.rpc.GetSchema(ctxT(t), &pulumirpc.GetSchemaRequest{})
	if err != nil || !strings.Contains(schemaResp.GetSchema(), `"name":"kubernetes"`) || !strings.Contains(schemaResp.GetSchema(), "stand-in") {
		t.Errorf("GetSchema = %v, %v", schemaResp, err)
	}
	// No kubeconfig in the config and no KUBECONFIG: refused, naming both.
	_, err = p.rpc.Configure(ctxT(t), &pulumirpc.ConfigureRequest{Args: mustMarshal(t, resource.PropertyMap{})})
	if err == nil || !strings.Contains(err.Error(), "kubernetes:kubeconfig") || !strings.Contains(err.Error(), "KUBECONFIG") ||
		!strings.Contains(err.Error(), StandIn) {
		t.Errorf("Configure without a cluster: %v; want a refusal naming kubernetes:kubeconfig and KUBECONFIG", err)
	}
	// KUBECONFIG=/dev/null (what the e2e engine helper sets) holds no cluster: refused too.
	pNull := startStandIn(t, "KUBECONFIG=/dev/null")
	_, err = pNull.rpc.Configure(ctxT(t), &pulumirpc.ConfigureRequest{Args: mustMarshal(t, resource.PropertyMap{})})
	if err == nil || !strings.Contains(err.Error(), "no cluster") || !strings.Contains(err.Error(), "KUBECONFIG=/dev/null") {
		t.Errorf("Configure with KUBECONFIG=/dev/null: %v", err)
	}
	// Settings the stand-in does not implement are refused, not ignored.
	cc, err := p.rpc.CheckConfig(ctxT(t), &pulumirpc.CheckRequest{News: mustMarshal(t, props(map[string]any{"kubeconfig": "x", "context": "prod"}))})
	if err != nil || len(cc.GetFailures()) != 1 || cc.GetFailures()[0].GetProperty() != "context" {
		t.Errorf("CheckConfig with context: %v, %v; want one failure on context", cc.GetFailures(), err)
	}
	// A changed kubeconfig (secret, as `pulumi config set --secret` stores it) updates the provider.
	kcOld := resource.PropertyMap{"kubeconfig": resource.MakeSecret(resource.NewStringProperty("a"))}
	kcNew := resource.PropertyMap{"kubeconfig": resource.MakeSecret(resource.NewStringProperty("b"))}
	for _, c := range []struct {
		olds, news resource.PropertyMap
		want       pulumirpc.DiffResponse_DiffChanges
	}{{kcOld, kcOld, pulumirpc.DiffResponse_DIFF_NONE}, {kcOld, kcNew, pulumirpc.DiffResponse_DIFF_SOME}} {
		dc, err := p.rpc.DiffConfig(ctxT(t), &pulumirpc.DiffRequest{OldInputs: mustMarshal(t, c.olds), Olds: mustMarshal(t, c.olds), News: mustMarshal(t, c.news)})
		if err != nil || dc.GetChanges() != c.want || len(dc.GetReplaces()) != 0 {
			t.Errorf("DiffConfig %v -> %v: %v replaces %v, %v; want %v", c.olds, c.news, dc.GetChanges(), dc.GetReplaces(), err, c.want)
		}
	}
	// Operations before Configure fail clearly.
	_, _, err = p.create(t, urnOf(nodePoolType, "np"), props(map[string]any{"metadata": map[string]any{"name": "x"}}), false)
	if err == nil || !strings.Contains(err.Error(), "before Configure") {
		t.Errorf("Create before Configure: %v", err)
	}

	// KUBECONFIG (a path) is used when the config has none.
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kc, []byte(deadKubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	p2 := startStandIn(t, "KUBECONFIG="+kc)
	p2.configure(t, "")
	b, _ := os.ReadFile(p2.stderr)
	if !strings.Contains(string(b), StandIn+": configured: API server https://127.0.0.1:1 from env KUBECONFIG="+kc) {
		t.Errorf("stderr does not name the cluster and its source:\n%s", b)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if !strings.Contains(line, " "+StandIn+": ") {
			t.Errorf("stderr line without the stand-in's name: %q", line)
		}
	}
}

// deadKubeconfig points at a port nothing listens on: any cluster access fails.
const deadKubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: dead
  cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}
users:
- name: u
  user: {token: t}
contexts:
- name: dead
  context: {cluster: dead, user: u}
current-context: dead
`

// TestPreviewAndDiff runs Check, Diff and previews against a cluster that does not exist: they
// must never need it. Unknown inputs are carried through.
func TestPreviewAndDiff(t *testing.T) {
	p := startStandIn(t)
	p.configure(t, deadKubeconfig)
	fx := fixture(t)
	unknown := resource.MakeComputed(resource.NewStringProperty(""))

	// A Release with an unknown role ARN in its values (a preview before the role exists).
	ctrl := fx["karpenter"]
	relURN := urnOf(releaseType, "karpenter")
	news := props(ctrl.Inputs)
	news["values"].ObjectValue()["serviceAccount"].ObjectValue()["annotations"].ObjectValue()["eks.amazonaws.com/role-arn"] = unknown
	checked := p.checked(t, relURN, nil, news)
	if got := get(checked, `values.serviceAccount.annotations["eks.amazonaws.com/role-arn"]`); got != "<unknown>" {
		t.Errorf("Check lost the unknown role ARN: %v", got)
	}
	if get(checked, "timeout") != float64(300) || get(checked, "name") != "karpenter" || get(checked, "namespace") != "kube-system" {
		t.Errorf("Check defaults: timeout %v name %v namespace %v", get(checked, "timeout"), get(checked, "name"), get(checked, "namespace"))
	}
	id, outs, err := p.create(t, relURN, checked, true)
	if err != nil || id != "" || get(outs, "status") != "<unknown>" || get(outs, "chart") != "oci://public.ecr.aws/karpenter/karpenter" {
		t.Errorf("preview Create of a Release: id %q, status %v, chart %v, err %v", id, get(outs, "status"), get(outs, "chart"), err)
	}
	known := p.checked(t, relURN, nil, props(ctrl.Inputs))
	if get(known, "version") != karpenterVersion {
		t.Errorf("Check did not resolve the chart's version: %v", get(known, "version"))
	}
	// Unknown values: an update (pulumi-kubernetes diffs generically then; no replacement).
	d := p.diff(t, relURN, known, known, checked)
	if d.GetChanges() != pulumirpc.DiffResponse_DIFF_SOME || len(d.GetReplaces()) != 0 {
		t.Errorf("Diff with an unknown value: %v replaces %v", d.GetChanges(), d.GetReplaces())
	}
	if k := d.GetDetailedDiff()[`values.serviceAccount.annotations["eks.amazonaws.com/role-arn"]`].GetKind(); k != pulumirpc.PropertyDiff_UPDATE {
		t.Errorf("detailed diff of the role ARN: %v (all: %v)", k, d.GetDetailedDiff())
	}
	// Known values: name and namespace replace; the rest updates.
	renamed := known.Copy()
	renamed["name"] = resource.NewStringProperty("karpenter2")
	if d := p.diff(t, relURN, known, known, renamed); !reflect.DeepEqual(d.GetReplaces(), []string{"name"}) || d.GetDeleteBeforeReplace() {
		t.Errorf("Release rename: replaces %v, deleteBeforeReplace %v", d.GetReplaces(), d.GetDeleteBeforeReplace())
	}
	upgraded := known.Copy()
	upgraded["version"] = resource.NewStringProperty("1.8.6")
	if d := p.diff(t, relURN, known, known, upgraded); d.GetChanges() != pulumirpc.DiffResponse_DIFF_SOME || len(d.GetReplaces()) != 0 {
		t.Errorf("Release version change: %v replaces %v", d.GetChanges(), d.GetReplaces())
	}
	if d := p.diff(t, relURN, known, known, known); d.GetChanges() != pulumirpc.DiffResponse_DIFF_NONE {
		t.Errorf("unchanged Release: %v %v", d.GetChanges(), d.GetDetailedDiff())
	}
	if d := p.diff(t, relURN, known, known, upgraded, "version"); d.GetChanges() != pulumirpc.DiffResponse_DIFF_NONE {
		t.Errorf("ignoreChanges version: %v", d.GetDetailedDiff())
	}
	// Bad releases fail Check naming the property.
	bad := props(ctrl.Inputs)
	bad["version"] = resource.NewStringProperty("0.0.1")
	if _, f := p.check(t, relURN, nil, bad); len(f) != 1 || !strings.HasPrefix(f[0], "chart: ") {
		t.Errorf("Check of an unknown chart version: %v", f)
	}
	bad = props(ctrl.Inputs)
	bad["atomic"] = resource.NewBoolProperty(true)
	if _, f := p.check(t, relURN, nil, bad); len(f) != 1 || !strings.HasPrefix(f[0], "atomic: ") {
		t.Errorf("Check of an unimplemented Release input: %v", f)
	}

	// Custom resources.
	pool := fx["karpenter-nodepool-default"]
	poolURN := urnOf(nodePoolType, pool.Name)
	poolIn := p.checked(t, poolURN, nil, props(pool.Inputs))
	id, outs, err = p.create(t, poolURN, poolIn, true)
	if err != nil || id != "" || get(outs, "metadata.uid") != "<unknown>" || get(outs, "status") != "<unknown>" ||
		get(outs, "spec.limits.cpu") != "1000" {
		t.Errorf("preview Create of a NodePool: id %q uid %v status %v limits %v err %v", id, get(outs, "metadata.uid"), get(outs, "status"), get(outs, "spec.limits.cpu"), err)
	}
	// An unknown value in the spec previews too.
	withUnknown := poolIn.Copy()
	withUnknown["spec"] = resource.NewObjectProperty(poolIn["spec"].ObjectValue().Copy())
	withUnknown["spec"].ObjectValue()["limits"] = unknown
	if _, outs, err = p.create(t, poolURN, withUnknown, true); err != nil || get(outs, "spec.limits") != "<unknown>" {
		t.Errorf("preview Create with an unknown limit: %v %v", get(outs, "spec.limits"), err)
	}
	updOuts, err := p.update(t, poolURN, "default", poolIn, props(map[string]any{"metadata": map[string]any{"name": "default", "uid": "u-1"}}), withUnknown, true)
	if err != nil || get(updOuts, "metadata.uid") != "u-1" || get(updOuts, "metadata.resourceVersion") != "<unknown>" {
		t.Errorf("preview Update keeps the uid: %v, resourceVersion %v, err %v", get(updOuts, "metadata.uid"), get(updOuts, "metadata.resourceVersion"), err)
	}
	if d := p.diff(t, poolURN, poolIn, poolIn, withUnknown); d.GetChanges() != pulumirpc.DiffResponse_DIFF_SOME || len(d.GetReplaces()) != 0 {
		t.Errorf("Diff with an unknown limit: %v %v", d.GetChanges(), d.GetReplaces())
	}
	changed := poolIn.Copy()
	changed["spec"] = resource.NewObjectProperty(poolIn["spec"].ObjectValue().Copy())
	changed["spec"].ObjectValue()["limits"] = resource.NewObjectProperty(props(map[string]any{"cpu": "500"}))
	d = p.diff(t, poolURN, poolIn, poolIn, changed)
	if d.GetChanges() != pulumirpc.DiffResponse_DIFF_SOME || len(d.GetReplaces()) != 0 ||
		d.GetDetailedDiff()["spec.limits.cpu"].GetKind() != pulumirpc.PropertyDiff_UPDATE {
		t.Errorf("NodePool spec change: %v replaces %v detailed %v", d.GetChanges(), d.GetReplaces(), d.GetDetailedDiff())
	}
	renamedPool := withName(poolIn, "other")
	d = p.diff(t, poolURN, poolIn, poolIn, renamedPool)
	if !reflect.DeepEqual(d.GetReplaces(), []string{"metadata.name"}) || d.GetDeleteBeforeReplace() {
		t.Errorf("NodePool rename: replaces %v deleteBeforeReplace %v", d.GetReplaces(), d.GetDeleteBeforeReplace())
	}
	// The v1beta1 -> v1 alias: the same object at another apiVersion is an update.
	beta := poolIn.Copy()
	beta["apiVersion"] = resource.NewStringProperty("karpenter.sh/v1beta1")
	d = p.diff(t, poolURN, beta, beta, poolIn)
	if d.GetChanges() != pulumirpc.DiffResponse_DIFF_SOME || len(d.GetReplaces()) != 0 || d.GetDetailedDiff()["apiVersion"].GetKind() != pulumirpc.PropertyDiff_UPDATE {
		t.Errorf("apiVersion change: %v replaces %v", d.GetChanges(), d.GetReplaces())
	}
	// Another kind under the same name: replaced, deleted first (same name).
	other := poolIn.Copy()
	other["kind"] = resource.NewStringProperty("NodeClaim")
	if d := p.diff(t, poolURN, other, other, poolIn); !reflect.DeepEqual(d.GetReplaces(), []string{"kind"}) || !d.GetDeleteBeforeReplace() {
		t.Errorf("kind change: replaces %v deleteBeforeReplace %v", d.GetReplaces(), d.GetDeleteBeforeReplace())
	}
	// Check: apiVersion/kind must match the type; a missing name is autonamed reproducibly.
	wrong := props(pool.Inputs)
	wrong["kind"] = resource.NewStringProperty("Provisioner")
	if _, f := p.check(t, poolURN, nil, wrong); len(f) != 1 || !strings.HasPrefix(f[0], "kind: ") {
		t.Errorf("Check of a wrong kind: %v", f)
	}
	unnamed := props(pool.Inputs)
	unnamed["metadata"] = resource.NewObjectProperty(resource.PropertyMap{})
	a1 := p.checked(t, poolURN, nil, unnamed)
	a2 := p.checked(t, poolURN, nil, unnamed)
	name1, _ := get(a1, "metadata.name").(string)
	if !strings.HasPrefix(name1, pool.Name+"-") || len(name1) != len(pool.Name)+9 || get(a2, "metadata.name") != name1 ||
		get(a1, `metadata.annotations["pulumi.com/autonamed"]`) != "true" {
		t.Errorf("autoname: %v / %v, annotations %v", name1, get(a2, "metadata.name"), get(a1, "metadata.annotations"))
	}
	if kept := p.checked(t, poolURN, a1, unnamed); get(kept, "metadata.name") != name1 {
		t.Errorf("autoname not kept on update: %v", get(kept, "metadata.name"))
	}
	if _, f := p.check(t, urnOf("kubernetes:apps/v1:Deployment", "d"), nil, props(map[string]any{"metadata": map[string]any{"name": "d"}})); len(f) != 1 {
		t.Errorf("Check of a type the stand-in does not implement: %v", f)
	}

	// Patches: only the identity replaces; a ConfigMap's data replaces (pulumi-kubernetes' rule).
	patchURN := urnOf(cmPatchType, "karpenter-aws-auth")
	patchIn := p.checked(t, patchURN, nil, awsAuthPatch("- rolearn: a\n", true))
	if d := p.diff(t, patchURN, patchIn, patchIn, p.checked(t, patchURN, nil, awsAuthPatch("- rolearn: b\n", true))); d.GetChanges() != pulumirpc.DiffResponse_DIFF_SOME || len(d.GetReplaces()) != 0 {
		t.Errorf("Patch data change: %v replaces %v", d.GetChanges(), d.GetReplaces())
	}
	if d := p.diff(t, patchURN, patchIn, patchIn, withName(patchIn, "aws-auth-2")); !reflect.DeepEqual(d.GetReplaces(), []string{"metadata.name"}) {
		t.Errorf("Patch rename: replaces %v", d.GetReplaces())
	}
	if _, f := p.check(t, patchURN, nil, withName(patchIn, "")); len(f) != 1 || !strings.HasPrefix(f[0], "metadata.name: ") {
		t.Errorf("Check of a Patch without a name: %v", f)
	}
	cmURN := urnOf(configMapType, "cm")
	cmIn := p.checked(t, cmURN, nil, props(map[string]any{"metadata": map[string]any{"name": "cm"}, "data": map[string]any{"k": "v1"}}))
	cmNew := p.checked(t, cmURN, nil, props(map[string]any{"metadata": map[string]any{"name": "cm"}, "data": map[string]any{"k": "v2"}}))
	if d := p.diff(t, cmURN, cmIn, cmIn, cmNew); !reflect.DeepEqual(d.GetReplaces(), []string{"data.k"}) || !d.GetDeleteBeforeReplace() {
		t.Errorf("ConfigMap data change: replaces %v deleteBeforeReplace %v", d.GetReplaces(), d.GetDeleteBeforeReplace())
	}
	// Namespace: "default" and none are the same (pulumi-kubernetes' canonical namespace);
	// another namespace replaces.
	inDefault := cmIn.Copy()
	inDefault["metadata"] = resource.NewObjectProperty(cmIn["metadata"].ObjectValue().Copy())
	inDefault["metadata"].ObjectValue()["namespace"] = resource.NewStringProperty("default")
	if d := p.diff(t, cmURN, cmIn, cmIn, inDefault); d.GetChanges() != pulumirpc.DiffResponse_DIFF_NONE {
		t.Errorf("ConfigMap namespace unset -> default: %v", d.GetDetailedDiff())
	}
	inOther := inDefault.Copy()
	inOther["metadata"] = resource.NewObjectProperty(inDefault["metadata"].ObjectValue().Copy())
	inOther["metadata"].ObjectValue()["namespace"] = resource.NewStringProperty("other")
	if d := p.diff(t, cmURN, inDefault, inDefault, inOther); !reflect.DeepEqual(d.GetReplaces(), []string{"metadata.namespace"}) || d.GetDeleteBeforeReplace() {
		t.Errorf("ConfigMap namespace change: replaces %v deleteBeforeReplace %v", d.GetReplaces(), d.GetDeleteBeforeReplace())
	}
	patchOuts := mustPreview(t, p, patchURN, patchIn)
	if get(patchOuts, "data.mapRoles") != "- rolearn: a\n" || get(patchOuts, "metadata.uid") != "<unknown>" {
		t.Errorf("preview of a Patch: %v", patchOuts)
	}

	if ops := p.ops(t); len(ops) != 0 {
		t.Errorf("previews, Check and Diff recorded operations: %v", ops)
	}
}

func mustPreview(t *testing.T, p *standInProc, urn resource.URN, in resource.PropertyMap) resource.PropertyMap {
	t.Helper()
	id, outs, err := p.create(t, urn, in, true)
	if err != nil || id != "" {
		t.Fatalf("preview Create(%s): %q %v", urn.Name(), id, err)
	}
	return outs
}

// withName copies inputs with another metadata.name ("" removes it).
func withName(in resource.PropertyMap, name string) resource.PropertyMap {
	out := in.Copy()
	md := in["metadata"].ObjectValue().Copy()
	if name == "" {
		delete(md, "name")
	} else {
		md["name"] = resource.NewStringProperty(name)
	}
	out["metadata"] = resource.NewObjectProperty(md)
	return out
}

// awsAuthPatch is the component's ConfigMapPatch of kube-system/aws-auth (provider/cluster.go).
func awsAuthPatch(mapRoles string, force bool) resource.PropertyMap {
	md := map[string]any{"name": "aws-auth", "namespace": "kube-system"}
	if force {
		md["annotations"] = map[string]any{"pulumi.com/patchForce": "true"}
	}
	return props(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": md, "data": map[string]any{"mapRoles": mapRoles}})
}

// TestLifecycle installs the karpenter-crd and karpenter releases, a NodePool and an
// EC2NodeClass through the stand-in, updates them, and deletes them in the component's order,
// checking the API server after each step.
func TestLifecycle(t *testing.T) {
	_, cluster, kubeconfig := controlPlane(t)
	p := startStandIn(t)
	p.configure(t, kubeconfig)
	ctx := ctxT(t)
	fx := fixture(t)

	type created struct {
		urn       resource.URN
		id        string
		ins, outs resource.PropertyMap
	}
	mk := func(typ, name string) created {
		t.Helper()
		res := fx[name]
		c := created{urn: urnOf(typ, name)}
		c.ins = p.checked(t, c.urn, nil, props(res.Inputs))
		start := time.Now()
		c.id, c.outs = p.mustCreate(t, c.urn, c.ins)
		t.Logf("create %s: %s", name, time.Since(start).Round(time.Millisecond))
		return c
	}

	// Releases: Helm installs from the module's charts.
	crd := mk(releaseType, "karpenter-crd")
	if crd.id != "kube-system/karpenter-crd" {
		t.Errorf("karpenter-crd id %q", crd.id)
	}
	wantStatus := map[string]any{"name": "karpenter-crd", "namespace": "kube-system", "version": karpenterVersion, "status": "deployed",
		"chart": "karpenter-crd", "appVersion": karpenterVersion, "revision": float64(1)}
	if got := get(crd.outs, "status"); !reflect.DeepEqual(got, wantStatus) {
		t.Errorf("karpenter-crd status = %v, want %v", got, wantStatus)
	}
	for _, n := range []string{"nodepools.karpenter.sh", "ec2nodeclasses.karpenter.k8s.aws", "nodeclaims.karpenter.sh"} {
		if _, err := cluster.CRD(ctx, n); err != nil {
			t.Errorf("CRD %s after installing karpenter-crd: %v", n, err)
		}
	}
	ctrl := mk(releaseType, "karpenter")
	if get(ctrl.outs, "status.status") != "deployed" || get(ctrl.outs, "values.settings.clusterName") != "demo" {
		t.Errorf("karpenter outputs: status %v values %v", get(ctrl.outs, "status"), get(ctrl.outs, "values"))
	}
	if _, err := cluster.Dynamic.Resource(deploymentGVR).Namespace("kube-system").Get(ctx, "karpenter", metav1.GetOptions{}); err != nil {
		t.Errorf("controller Deployment: %v", err)
	}

	// Custom resources: server-side apply under the resource's field manager.
	class := mk(nodeClassType, "karpenter-nodeclass-default")
	pool := mk(nodePoolType, "karpenter-nodepool-default")
	if pool.id != "default" || class.id != "default" {
		t.Errorf("ids: pool %q class %q, want default (cluster-scoped)", pool.id, class.id)
	}
	live, err := cluster.Dynamic.Resource(nodePoolGVR).Get(ctx, "default", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if get(pool.outs, "metadata.uid") != string(live.GetUID()) || get(pool.outs, "spec.limits.cpu") != "1000" ||
		get(pool.outs, "metadata.resourceVersion") != live.GetResourceVersion() || get(pool.outs, "kind") != "NodePool" {
		t.Errorf("NodePool outputs are not the live object: %v", pool.outs)
	}
	manager := harness.PatchFieldManager(harness.Resource{Name: "karpenter-nodepool-default"}, live)
	if ms := fieldManagers(live); !reflect.DeepEqual(ms, []string{manager + "/Apply"}) {
		t.Errorf("NodePool field managers %v, want %s/Apply", ms, manager)
	}
	if id, outs := p.read(t, pool.urn, pool.id); id != "default" || get(outs, "metadata.uid") != string(live.GetUID()) {
		t.Errorf("Read NodePool: %q %v", id, get(outs, "metadata.uid"))
	}
	// Creating an object that exists is refused (another logical name for the same NodePool).
	if _, _, err := p.create(t, urnOf(nodePoolType, "twin"), pool.ins, false); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("Create of an existing NodePool: %v", err)
	}

	// Update: a spec change is an update in place; a field no longer sent is removed.
	newIns := pool.ins.Copy()
	spec := pool.ins["spec"].ObjectValue().Copy()
	delete(spec, "limits")
	spec["weight"] = resource.NewNumberProperty(10)
	newIns["spec"] = resource.NewObjectProperty(spec)
	newIns = p.checked(t, pool.urn, pool.ins, newIns)
	if d := p.diff(t, pool.urn, pool.ins, pool.outs, newIns); d.GetChanges() != pulumirpc.DiffResponse_DIFF_SOME || len(d.GetReplaces()) != 0 {
		t.Errorf("Diff of a spec change: %v replaces %v", d.GetChanges(), d.GetReplaces())
	}
	if d := p.diff(t, pool.urn, pool.ins, pool.outs, withName(pool.ins, "renamed")); !reflect.DeepEqual(d.GetReplaces(), []string{"metadata.name"}) {
		t.Errorf("Diff of a rename: replaces %v", d.GetReplaces())
	}
	outs, err := p.update(t, pool.urn, pool.id, pool.ins, pool.outs, newIns, false)
	if err != nil {
		t.Fatalf("Update NodePool: %v", err)
	}
	live, err = cluster.Dynamic.Resource(nodePoolGVR).Get(ctx, "default", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if w, _, _ := unstructured.NestedInt64(live.Object, "spec", "weight"); w != 10 {
		t.Errorf("weight after the update: %d", w)
	}
	if _, found, _ := unstructured.NestedMap(live.Object, "spec", "limits"); found {
		t.Errorf("spec.limits still present after the update removed it")
	}
	if string(live.GetUID()) != get(pool.outs, "metadata.uid") || get(outs, "metadata.resourceVersion") != live.GetResourceVersion() {
		t.Errorf("Update replaced the object or returned stale outputs")
	}
	pool.ins, pool.outs = newIns, outs

	// Release update: new values -> Helm upgrade, revision 2.
	ctrlIns := ctrl.ins.Copy()
	vals := ctrl.ins["values"].ObjectValue().Copy()
	vals["logLevel"] = resource.NewStringProperty("debug")
	ctrlIns["values"] = resource.NewObjectProperty(vals)
	ctrlIns = p.checked(t, ctrl.urn, ctrl.ins, ctrlIns)
	if d := p.diff(t, ctrl.urn, ctrl.ins, ctrl.outs, ctrlIns); d.GetChanges() != pulumirpc.DiffResponse_DIFF_SOME || len(d.GetReplaces()) != 0 {
		t.Errorf("Diff of a values change: %v replaces %v", d.GetChanges(), d.GetReplaces())
	}
	ctrlOuts, err := p.update(t, ctrl.urn, ctrl.id, ctrl.ins, ctrl.outs, ctrlIns, false)
	if err != nil {
		t.Fatalf("Update release: %v", err)
	}
	if get(ctrlOuts, "status.revision") != float64(2) {
		t.Errorf("revision after the upgrade: %v", get(ctrlOuts, "status.revision"))
	}
	if rel, err := cluster.ReleaseStatus("kube-system", "karpenter"); err != nil || rel.Config["logLevel"] != "debug" || rel.Version != 2 {
		t.Errorf("Helm's release after the upgrade: %v", err)
	}
	if id, outs := p.read(t, ctrl.urn, ctrl.id); id != ctrl.id || get(outs, "status.revision") != float64(2) {
		t.Errorf("Read release: %q %v", id, get(outs, "status"))
	}
	ctrl.ins, ctrl.outs = ctrlIns, ctrlOuts

	// Delete waits for finalizers, and says what holds the object when it times out.
	const finalizer = "test.pulumi-karpenter/hold"
	setFinalizers(t, ctx, cluster, []string{finalizer})
	start := time.Now()
	err = p.delete(t, pool.urn, pool.id, pool.ins, pool.outs, 2)
	if err == nil || !strings.Contains(err.Error(), "not gone after 2s") || !strings.Contains(err.Error(), finalizer) {
		t.Errorf("Delete of a NodePool held by a finalizer: %v", err)
	}
	if took := time.Since(start); took < 2*time.Second || took > 20*time.Second {
		t.Errorf("the timed-out Delete took %s", took)
	}
	released := make(chan struct{})
	go func() {
		defer close(released)
		time.Sleep(time.Second)
		setFinalizers(t, ctx, cluster, nil)
	}()
	start = time.Now()
	if err := p.delete(t, pool.urn, pool.id, pool.ins, pool.outs, 0); err != nil {
		t.Fatalf("Delete NodePool: %v", err)
	}
	<-released
	if took := time.Since(start); took < time.Second {
		t.Errorf("Delete returned after %s, before the finalizer was removed", took)
	}
	if _, err := cluster.Dynamic.Resource(nodePoolGVR).Get(ctx, "default", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("NodePool after Delete: %v", err)
	}
	if id, _ := p.read(t, pool.urn, pool.id); id != "" {
		t.Errorf("Read of a deleted NodePool: id %q", id)
	}
	if err := p.delete(t, class.urn, class.id, class.ins, class.outs, 0); err != nil {
		t.Fatalf("Delete EC2NodeClass: %v", err)
	}
	if _, err := cluster.Dynamic.Resource(nodeClassGVR).Get(ctx, "default", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("EC2NodeClass after Delete: %v", err)
	}
	if err := p.delete(t, ctrl.urn, ctrl.id, ctrl.ins, ctrl.outs, 0); err != nil {
		t.Fatalf("Delete karpenter release: %v", err)
	}
	if _, err := cluster.Dynamic.Resource(deploymentGVR).Namespace("kube-system").Get(ctx, "karpenter", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("controller Deployment after the uninstall: %v", err)
	}
	if _, err := cluster.ReleaseStatus("kube-system", "karpenter"); err == nil {
		t.Errorf("Helm still has the karpenter release")
	}
	if id, _ := p.read(t, ctrl.urn, ctrl.id); id != "" {
		t.Errorf("Read of an uninstalled release: id %q", id)
	}
	if err := p.delete(t, crd.urn, crd.id, crd.ins, crd.outs, 0); err != nil {
		t.Fatalf("Delete karpenter-crd release: %v", err)
	}
	// Delete returned only once the CRDs were gone.
	for _, n := range []string{"nodepools.karpenter.sh", "ec2nodeclasses.karpenter.k8s.aws", "nodeclaims.karpenter.sh"} {
		if _, err := cluster.Dynamic.Resource(crdGVR).Get(ctx, n, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("CRD %s right after the karpenter-crd Delete returned: %v", n, err)
		}
	}

	// The operation log, in order: what the scenario tests read.
	want := []string{
		"kubernetes Create kubernetes:helm.sh/v3:Release karpenter-crd kube-system/karpenter-crd",
		"kubernetes Create kubernetes:helm.sh/v3:Release karpenter kube-system/karpenter",
		"kubernetes Create kubernetes:karpenter.k8s.aws/v1:EC2NodeClass karpenter-nodeclass-default default",
		"kubernetes Create kubernetes:karpenter.sh/v1:NodePool karpenter-nodepool-default default",
		"kubernetes Read kubernetes:karpenter.sh/v1:NodePool karpenter-nodepool-default default",
		"kubernetes Update kubernetes:karpenter.sh/v1:NodePool karpenter-nodepool-default default",
		"kubernetes Update kubernetes:helm.sh/v3:Release karpenter kube-system/karpenter",
		"kubernetes Read kubernetes:helm.sh/v3:Release karpenter kube-system/karpenter",
		"kubernetes Delete kubernetes:karpenter.sh/v1:NodePool karpenter-nodepool-default default",
		"kubernetes Read kubernetes:karpenter.sh/v1:NodePool karpenter-nodepool-default -",
		"kubernetes Delete kubernetes:karpenter.k8s.aws/v1:EC2NodeClass karpenter-nodeclass-default default",
		"kubernetes Delete kubernetes:helm.sh/v3:Release karpenter kube-system/karpenter",
		"kubernetes Read kubernetes:helm.sh/v3:Release karpenter -",
		"kubernetes Delete kubernetes:helm.sh/v3:Release karpenter-crd kube-system/karpenter-crd",
	}
	if got := p.ops(t); !reflect.DeepEqual(got, want) {
		t.Errorf("operation log:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func fieldManagers(obj *unstructured.Unstructured) []string {
	var out []string
	for _, mf := range obj.GetManagedFields() {
		out = append(out, mf.Manager+"/"+string(mf.Operation))
	}
	sort.Strings(out)
	return out
}

func setFinalizers(t *testing.T, ctx context.Context, cluster *harness.Cluster, finalizers []string) {
	t.Helper()
	patch := `{"metadata":{"finalizers":null}}`
	if len(finalizers) > 0 {
		patch = `{"metadata":{"finalizers":["` + strings.Join(finalizers, `","`) + `"]}}`
	}
	if _, err := cluster.Dynamic.Resource(nodePoolGVR).Patch(ctx, "default", types.MergePatchType, []byte(patch), metav1.PatchOptions{FieldManager: "test"}); err != nil {
		t.Errorf("set finalizers %v: %v", finalizers, err)
	}
}

// TestAWSAuthPatch reads kube-system/aws-auth and patches it as the component does, on a
// ConfigMap EKS wrote: conflicts unless forced, takes only mapRoles, and a Delete relinquishes.
func TestAWSAuthPatch(t *testing.T) {
	_, cluster, kubeconfig := controlPlane(t)
	p := startStandIn(t)
	p.configure(t, kubeconfig)
	ctx := ctxT(t)
	cms := cluster.Dynamic.Resource(configMapGVR).Namespace("kube-system")

	patchURN := urnOf(cmPatchType, "karpenter-aws-auth")
	ins := p.checked(t, patchURN, nil, awsAuthPatch(componentMapRoles, true))
	if _, _, err := p.create(t, patchURN, ins, false); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("Patch of a missing ConfigMap: %v", err)
	}
	if id, _ := p.read(t, urnOf(configMapType, "karpenter-aws-auth-current"), "kube-system/aws-auth"); id != "" {
		t.Errorf("Read of a missing ConfigMap: id %q", id)
	}

	eks := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "aws-auth", "namespace": "kube-system"},
		"data":     map[string]any{"mapRoles": eksMapRoles, "mapUsers": eksMapUsers},
	}}
	if _, err := cms.Create(ctx, eks, metav1.CreateOptions{FieldManager: "eks"}); err != nil {
		t.Fatal(err)
	}
	// ReadResource of the existing object.
	id, current := p.read(t, urnOf(configMapType, "karpenter-aws-auth-current"), "kube-system/aws-auth")
	if id != "kube-system/aws-auth" || get(current, "data.mapRoles") != eksMapRoles || get(current, "metadata.managedFields") != nil {
		t.Errorf("Read aws-auth: %q %v", id, current)
	}
	// Preview: nothing changes.
	mustPreview(t, p, patchURN, ins)
	if got := getCM(t, ctx, cms); got["mapRoles"] != eksMapRoles {
		t.Errorf("a preview changed aws-auth: %v", got)
	}
	// Unforced: conflicts with EKS's manager on mapRoles.
	unforced := p.checked(t, urnOf(cmPatchType, "unforced"), nil, awsAuthPatch(componentMapRoles, false))
	if _, _, err := p.create(t, urnOf(cmPatchType, "unforced"), unforced, false); err == nil || !strings.Contains(strings.ToLower(err.Error()), "conflict") {
		t.Errorf("unforced patch: %v, want a conflict", err)
	}
	// Forced: takes mapRoles, leaves mapUsers to EKS.
	id, outs := p.mustCreate(t, patchURN, ins)
	if id != "kube-system/aws-auth" || get(outs, "data.mapRoles") != componentMapRoles || get(outs, "data.mapUsers") != eksMapUsers {
		t.Errorf("Create patch: %q %v", id, outs)
	}
	live, err := cms.Get(ctx, "aws-auth", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	manager := harness.PatchFieldManager(harness.Resource{Name: "karpenter-aws-auth"}, live)
	if ms := fieldManagers(live); !reflect.DeepEqual(ms, []string{"eks/Update", manager + "/Apply"}) {
		t.Errorf("aws-auth managers: %v", ms)
	}
	// Update: apply the new data under the same manager.
	newIns := p.checked(t, patchURN, ins, awsAuthPatch(componentMapRoles+"- rolearn: extra\n", true))
	if d := p.diff(t, patchURN, ins, outs, newIns); d.GetChanges() != pulumirpc.DiffResponse_DIFF_SOME || len(d.GetReplaces()) != 0 {
		t.Errorf("Diff of the patch's data: %v %v", d.GetChanges(), d.GetReplaces())
	}
	if _, err := p.update(t, patchURN, id, ins, outs, newIns, false); err != nil {
		t.Fatalf("Update patch: %v", err)
	}
	if got := getCM(t, ctx, cms); got["mapRoles"] != componentMapRoles+"- rolearn: extra\n" || got["mapUsers"] != eksMapUsers {
		t.Errorf("after the update: %v", got)
	}
	// Delete relinquishes: mapRoles (owned by the patch alone since it was forced) goes,
	// mapUsers stays — why the component retains its patch on destroy.
	if err := p.delete(t, patchURN, id, newIns, outs, 0); err != nil {
		t.Fatalf("Delete patch: %v", err)
	}
	got := getCM(t, ctx, cms)
	if _, has := got["mapRoles"]; has || got["mapUsers"] != eksMapUsers {
		t.Errorf("after relinquishing: %v", got)
	}
	want := []string{
		"kubernetes Read kubernetes:core/v1:ConfigMap karpenter-aws-auth-current -",
		"kubernetes Read kubernetes:core/v1:ConfigMap karpenter-aws-auth-current kube-system/aws-auth",
		"kubernetes Create kubernetes:core/v1:ConfigMapPatch karpenter-aws-auth kube-system/aws-auth",
		"kubernetes Update kubernetes:core/v1:ConfigMapPatch karpenter-aws-auth kube-system/aws-auth",
		"kubernetes Delete kubernetes:core/v1:ConfigMapPatch karpenter-aws-auth kube-system/aws-auth",
	}
	if got := p.ops(t); !reflect.DeepEqual(got, want) {
		t.Errorf("operation log:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

const (
	eksMapRoles       = "- groups:\n  - system:bootstrappers\n  - system:nodes\n  rolearn: arn:aws:iam::123456789012:role/managed-node-group\n  username: system:node:{{EC2PrivateDNSName}}\n"
	eksMapUsers       = "- userarn: arn:aws:iam::123456789012:user/admin\n  username: admin\n  groups:\n  - system:masters\n"
	componentMapRoles = eksMapRoles + "- groups:\n  - system:bootstrappers\n  - system:nodes\n  rolearn: arn:aws:iam::123456789012:role/karpenter-node\n  username: system:node:{{EC2PrivateDNSName}}\n"
)

func getCM(t *testing.T, ctx context.Context, cms interface {
	Get(context.Context, string, metav1.GetOptions, ...string) (*unstructured.Unstructured, error)
}) map[string]any {
	t.Helper()
	cm, err := cms.Get(ctx, "aws-auth", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	data, _, _ := unstructured.NestedMap(cm.Object, "data")
	return data
}
