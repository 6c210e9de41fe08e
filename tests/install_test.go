package tests

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/render/format"
	"github.com/pulumi-karpenter/pulumi-karpenter/tests/harness"
	"helm.sh/helm/v3/pkg/release"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestDefaultInstall installs the default render for a sample cluster: the two releases, then
// the default NodePool and EC2NodeClass against the real CRDs.
func TestDefaultInstall(t *testing.T) {
	t.Parallel()
	r := render(t, args("default.json"))
	// Without a version users get the newest release the harness has charts for (1.15.2).
	if got, want := outputString(t, r, "version"), harness.KarpenterVersions[0]; got != want {
		t.Errorf("default outputs.version = %q, want the newest supported %q", got, want)
	}
	checkDefaultInstall(t, r, "demo")
}

// TestDefaultInstallVersions repeats the default install with each Karpenter version the
// harness has charts for, selected through the component's version input.
func TestDefaultInstallVersions(t *testing.T) {
	t.Parallel()
	for _, v := range harness.KarpenterVersions {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			r := render(t, withVersion(t, args("default.json"), v))
			for _, rel := range r.OfType(harness.ReleaseType) {
				if got := rel.String("version"); got != v {
					t.Errorf("release %s version %q, want %q", rel.Name, got, v)
				}
			}
			checkDefaultInstall(t, r, "demo")
		})
	}
}

// checkDefaultInstall installs a default render and checks what a user would look at.
func checkDefaultInstall(t *testing.T, r *harness.Render, clusterName string) {
	t.Helper()

	crd, ok := r.Release("karpenter-crd")
	if !ok {
		t.Fatal("render has no karpenter-crd release")
	}
	ctrl, ok := r.Release("karpenter")
	if !ok {
		t.Fatal("render has no karpenter release")
	}
	// Users install from the official registry unless they configure a mirror.
	for res, want := range map[*harness.Resource]string{
		&crd:  harness.DefaultChartRepository + "/karpenter-crd",
		&ctrl: harness.DefaultChartRepository + "/karpenter",
	} {
		if got := res.String("chart"); got != want {
			t.Errorf("release %s chart = %q, want %q", res.Name, got, want)
		}
	}
	if skip, _ := harness.Lookup(ctrl.Inputs, "skipCrds").(bool); !skip {
		t.Errorf("controller release must set skipCrds (CRDs come from karpenter-crd), inputs: %v", ctrl.Inputs)
	}

	// The queue name is whatever the render says the mocked queue is called; it must be the
	// same in the outputs and in the chart values, and a queue must actually be rendered.
	queue := outputString(t, r, "interruptionQueueName")
	if got := ctrl.String("values.settings.interruptionQueue"); got != queue {
		t.Errorf("values.settings.interruptionQueue = %q, outputs.interruptionQueueName = %q", got, queue)
	}
	if n := len(r.OfType("aws:sqs/queue:Queue")); n != 1 {
		t.Errorf("render has %d aws:sqs/queue:Queue resources, want 1", n)
	}

	c, ctx := cluster(t)
	applied := install(t, ctx, c, r)

	// Both releases are deployed.
	rels := map[string]*release.Release{}
	for _, a := range applied {
		if a.Release != nil {
			rels[a.Resource.Name] = a.Release
			st, err := c.ReleaseStatus(a.Release.Namespace, a.Release.Name)
			if err != nil {
				t.Fatalf("helm status %s: %v", a.Release.Name, err)
			}
			if st.Info.Status != release.StatusDeployed {
				t.Errorf("release %s status %s, want deployed", a.Release.Name, st.Info.Status)
			}
		}
	}
	if rels[crd.Name] == nil || rels[ctrl.Name] == nil {
		t.Fatalf("installed releases %v, want both %s and %s", sortedKeys(rels), crd.Name, ctrl.Name)
	}
	ctrlRel := rels[ctrl.Name]
	if want := ctrl.String("namespace"); ctrlRel.Namespace != want {
		t.Errorf("controller release namespace %q, want %q", ctrlRel.Namespace, want)
	}

	// Every value the component sets is one the chart declares.
	checkValuesKnown(t, crd, rels[crd.Name])
	checkValuesKnown(t, ctrl, ctrlRel)

	// The charts installed are the rendered version's, and so is the controller image.
	version := ctrl.String("version")
	for name, rel := range rels {
		if rel.Chart.Metadata.Version != version {
			t.Errorf("release %s installed chart %s %s, want %s", name, rel.Chart.Name(), rel.Chart.Metadata.Version, version)
		}
	}

	// The controller Deployment as stored by the API server.
	tmpl, env := controllerPod(t, ctx, c, ctrlRel)
	if img := tmpl.Spec.Containers[0].Image; !strings.HasSuffix(img, ":"+version) {
		t.Errorf("controller image %q, want tag %s", img, version)
	}
	if env["CLUSTER_NAME"] != clusterName {
		t.Errorf("controller env CLUSTER_NAME = %q, want %q", env["CLUSTER_NAME"], clusterName)
	}
	if env["INTERRUPTION_QUEUE"] != queue {
		t.Errorf("controller env INTERRUPTION_QUEUE = %q, want the rendered queue %q", env["INTERRUPTION_QUEUE"], queue)
	}

	// The service account the pods run as carries the IRSA role annotation.
	saName := tmpl.Spec.ServiceAccountName
	if want := ctrl.String("values.serviceAccount.name"); want != "" && saName != want {
		t.Errorf("pod serviceAccountName %q, values.serviceAccount.name %q", saName, want)
	}
	sa, err := c.Dynamic.Resource(saGVR).Namespace(ctrlRel.Namespace).Get(ctx, saName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get ServiceAccount %s/%s: %v", ctrlRel.Namespace, saName, err)
	}
	wantArn := outputString(t, r, "controllerRoleArn")
	if got := sa.GetAnnotations()["eks.amazonaws.com/role-arn"]; got != wantArn {
		t.Errorf("ServiceAccount %s annotation eks.amazonaws.com/role-arn = %q, want outputs.controllerRoleArn %q", saName, got, wantArn)
	}

	// The default pair was accepted (Install compared each read-back with what was sent) and
	// is what the cluster now lists.
	pools, classes := r.OfType(harness.NodePoolType), r.OfType(harness.NodeClassType)
	if len(pools) != 1 || len(classes) != 1 {
		t.Fatalf("default render has %d NodePools and %d EC2NodeClasses, want 1 and 1", len(pools), len(classes))
	}
	if got, want := names(t, ctx, c, nodePoolsGVR), renderedNames(t, pools); !reflect.DeepEqual(got, want) {
		t.Errorf("cluster NodePools %v, rendered %v", got, want)
	}
	if got, want := names(t, ctx, c, nodeClassGVR), renderedNames(t, classes); !reflect.DeepEqual(got, want) {
		t.Errorf("cluster EC2NodeClasses %v, rendered %v", got, want)
	}
	pool := appliedOfType(applied, harness.NodePoolType)
	for _, p := range pool {
		ref := describe(field(p.Got, "spec", "template", "spec", "nodeClassRef", "name"))
		if ref != renderedNames(t, classes)[0] {
			t.Errorf("NodePool %s nodeClassRef.name = %s, want the rendered class %v", p.Got.GetName(), ref, renderedNames(t, classes))
		}
	}
}

// TestRichConfiguration installs several pools and classes using most of the typed inputs,
// with 1.14.1 (typed kubelet schema and CEL rules in the CRDs) and with 1.15.2, where the
// configuration also uses the 1.15-only inputs (rich115): Nitro Enclaves, free-form kubelet
// settings and a budget for the Unhealthy reason (node repair).
func TestRichConfiguration(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"1.14.1", "1.15.2"} {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			file := withVersion(t, args("rich.json"), v)
			if v == "1.15.2" {
				file = rich115(t)
			}
			r := render(t, file)
			c, ctx := cluster(t)
			applied := install(t, ctx, c, r)
			for _, rel := range releases(applied) {
				if rel.Chart.Metadata.Version != v {
					t.Errorf("release %s installed chart %s %s, want %s", rel.Name, rel.Chart.Name(), rel.Chart.Metadata.Version, v)
				}
			}
			checkRichV1(t, ctx, c, applied, v)
		})
	}
}

// rich115 writes rich.json at version 1.15.2 with the 1.15-only inputs added: the general
// class (AL2023, whose nodeadm config takes any kubelet setting) gets enclaveOptions and two
// free-form kubelet settings, the general-spot pool a budget for the Unhealthy reason.
func rich115(t *testing.T) string {
	t.Helper()
	in := readArgs(t, args("rich.json"))
	in["version"] = "1.15.2"
	for _, c := range in["nodeClasses"].([]any) {
		class := c.(map[string]any)
		if class["name"] == "general" {
			class["enclaveOptions"] = map[string]any{"enabled": true}
			class["kubelet"].(map[string]any)["additionalSettings"] = map[string]any{"containerLogMaxSize": "50Mi", "shutdownGracePeriod": "30s"}
		}
	}
	for _, p := range in["nodePools"].([]any) {
		pool := p.(map[string]any)
		if pool["name"] == "general-spot" {
			d := pool["disruption"].(map[string]any)
			d["budgets"] = append(d["budgets"].([]any), map[string]any{"nodes": "20%", "reasons": []any{"Unhealthy"}})
		}
	}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "rich-1.15.2.json")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// checkRichV1 checks what the API server stored for the rich configuration at a v1 version.
func checkRichV1(t *testing.T, ctx context.Context, c *harness.Cluster, applied []harness.Applied, version string) {
	t.Helper()
	pools := appliedOfType(applied, harness.NodePoolType)
	classes := appliedOfType(applied, harness.NodeClassType)
	if got, want := sortedKeys(pools), []string{"general-on-demand", "general-spot", "gpu", "pinned"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("applied NodePools %v, want %v", got, want)
	}
	if got, want := sortedKeys(classes), []string{"general", "gpu", "pinned-ami"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("applied EC2NodeClasses %v, want %v", got, want)
	}
	if got := names(t, ctx, c, nodePoolsGVR); len(got) != 4 {
		t.Errorf("cluster lists NodePools %v, want 4", got)
	}

	// What the API server stored (read back) carries each feature as the user wrote it.
	budgets := "[map[nodes:10%] map[duration:8h nodes:0 reasons:[Underutilized Drifted] schedule:0 9 * * mon-fri]]"
	if version == "1.15.2" {
		budgets = "[map[nodes:10%] map[duration:8h nodes:0 reasons:[Underutilized Drifted] schedule:0 9 * * mon-fri] map[nodes:20% reasons:[Unhealthy]]]"
	}
	checks := []struct {
		obj  harness.Applied
		path []string
		want string
	}{
		{pools["general-spot"], []string{"spec", "weight"}, "50"},
		{pools["general-spot"], []string{"spec", "limits"}, "map[cpu:1000 memory:1000Gi]"},
		{pools["general-spot"], []string{"spec", "template", "metadata", "labels"}, "map[capacity:spot workload:general]"},
		{pools["general-spot"], []string{"spec", "template", "spec", "expireAfter"}, "336h"},
		{pools["general-spot"], []string{"spec", "template", "spec", "terminationGracePeriod"}, "48h"},
		{pools["general-spot"], []string{"spec", "disruption", "budgets"}, budgets},
		{pools["general-on-demand"], []string{"spec", "disruption", "consolidationPolicy"}, "WhenEmpty"},
		{pools["gpu"], []string{"spec", "template", "spec", "taints"}, "[map[effect:NoSchedule key:nvidia.com/gpu value:true]]"},
		{pools["gpu"], []string{"spec", "template", "spec", "startupTaints"}, "[map[effect:NoExecute key:node.example.com/gpu-driver-not-ready]]"},
		{pools["gpu"], []string{"spec", "template", "spec", "expireAfter"}, "Never"},
		{pools["gpu"], []string{"spec", "template", "spec", "nodeClassRef", "name"}, "gpu"},
		{pools["pinned"], []string{"spec", "template", "spec", "nodeClassRef", "name"}, "pinned-ami"},
		{classes["gpu"], []string{"spec", "instanceProfile"}, "KarpenterGpuNodeInstanceProfile"},
		{classes["gpu"], []string{"spec", "role"}, "<nil>"},
		{classes["gpu"], []string{"spec", "amiSelectorTerms"}, "[map[alias:bottlerocket@latest]]"},
		{classes["general"], []string{"spec", "metadataOptions", "httpTokens"}, "required"},
		{classes["general"], []string{"spec", "kubelet", "maxPods"}, "110"},
		{classes["general"], []string{"spec", "kubelet", "evictionSoftGracePeriod"}, "map[memory.available:1m0s]"},
		{classes["general"], []string{"spec", "kubelet", "clusterDNS"}, "[10.100.0.10]"},
		{classes["general"], []string{"spec", "detailedMonitoring"}, "true"},
		{classes["general"], []string{"spec", "associatePublicIPAddress"}, "false"},
	}
	if version == "1.15.2" {
		checks = append(checks, []struct {
			obj  harness.Applied
			path []string
			want string
		}{
			{classes["general"], []string{"spec", "enclaveOptions"}, "map[enabled:true]"},
			{classes["general"], []string{"spec", "kubelet", "containerLogMaxSize"}, "50Mi"},
			{classes["general"], []string{"spec", "kubelet", "shutdownGracePeriod"}, "30s"},
			{classes["gpu"], []string{"spec", "enclaveOptions"}, "<nil>"},
		}...)
	}
	for _, ch := range checks {
		if ch.obj.Got == nil {
			t.Errorf("missing applied object for %v", ch.path)
			continue
		}
		if got := describe(field(ch.obj.Got, ch.path...)); got != ch.want {
			t.Errorf("%s %s .%s = %s, want %s", ch.obj.Got.GetKind(), ch.obj.Got.GetName(), strings.Join(ch.path, "."), got, ch.want)
		}
	}

	// Spot and on-demand pools both exist, selected by the capacity-type requirement.
	capacity := map[string]bool{}
	for _, p := range pools {
		reqs, _ := field(p.Got, "spec", "template", "spec", "requirements").([]any)
		for _, req := range reqs {
			m := req.(map[string]any)
			if m["key"] == "karpenter.sh/capacity-type" {
				for _, v := range m["values"].([]any) {
					capacity[v.(string)] = true
				}
			}
		}
	}
	if !capacity["spot"] || !capacity["on-demand"] {
		t.Errorf("capacity types across pools %v, want spot and on-demand", capacity)
	}

	// Block devices: the gpu class keeps both mappings, the data volume is the root volume.
	bdm, _ := field(classes["gpu"].Got, "spec", "blockDeviceMappings").([]any)
	if len(bdm) != 2 {
		t.Fatalf("gpu class blockDeviceMappings %v, want 2", bdm)
	}
	root := bdm[1].(map[string]any)
	if root["deviceName"] != "/dev/xvdb" || root["rootVolume"] != true || describe(harness.Lookup(root, "ebs.volumeSize")) != "200Gi" {
		t.Errorf("gpu class root volume %v, want /dev/xvdb 200Gi rootVolume", root)
	}

	// Kubelet settings Karpenter would not apply. Before 1.15 the API server prunes unknown
	// keys, which Install's read-back comparison reports; from 1.15 spec.kubelet is schemaless
	// and stores anything, and Karpenter's controller rejects it later (ValidationSucceeded=False,
	// no launches from the class) — which Install checks in its place (harness.KubeletProblems).
	open, err := c.SchemalessKubelet(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := version == "1.15.2"; open != want {
		t.Errorf("served EC2NodeClass CRD: schemaless spec.kubelet %v, want %v", open, want)
	}
	for _, tc := range []struct {
		from, key string
		value     any
		want      string // from 1.15 (before: the key is pruned)
	}{
		{"general", "containerLogMaxSzie", "50Mi", `unknown field "containerLogMaxSzie"`},
		{"gpu", "containerLogMaxSize", "50Mi", "not applied by the Bottlerocket AMI family that would be silently dropped: containerLogMaxSize"},
	} {
		res := classes[tc.from].Resource
		b, _ := json.Marshal(res.Inputs)
		res.Inputs = nil
		if err := json.Unmarshal(b, &res.Inputs); err != nil {
			t.Fatal(err)
		}
		res.Name += "-bad-kubelet"
		res.DependsOn, res.Parent = nil, "" // installed on its own
		harness.Lookup(res.Inputs, "metadata").(map[string]any)["name"] = tc.from + "-bad-kubelet"
		spec := harness.Lookup(res.Inputs, "spec").(map[string]any)
		if spec["kubelet"] == nil {
			spec["kubelet"] = map[string]any{}
		}
		spec["kubelet"].(map[string]any)[tc.key] = tc.value
		_, err := c.Install(ctx, &harness.Render{Rendered: format.Rendered{Resources: []harness.Resource{res}}})
		t.Logf("class %s with kubelet.%s at %s: %v", tc.from, tc.key, version, err)
		want := []string{"spec.kubelet." + tc.key + `: sent "50Mi", missing in read-back`}
		if open {
			want = []string{tc.want, "ValidationSucceeded=False"}
		}
		for _, w := range want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: install of class %s with kubelet %s: %v; want an error containing %q", version, tc.from, tc.key, err, w)
			}
		}
	}
}

func renderedNames(t *testing.T, rs []harness.Resource) []string {
	t.Helper()
	var out []string
	for _, res := range rs {
		obj, err := harness.Object(res)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, obj.GetName())
	}
	sort.Strings(out)
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestPrivateMirror installs from a private HTTP(S) chart repository with credentials: the
// releases name the repository and carry repositoryOpts username and password (masked in the
// render), which the harness accepts (it stands in for the repository), and the controller runs
// the mirrored image. (An OCI mirror takes a `helm registry login` instead: the engine tests
// install every self-managed scenario from one.)
func TestPrivateMirror(t *testing.T) {
	t.Parallel()
	file := args("mirror.json")
	in := readArgs(t, file)
	mirror, password := in["chartRepository"].(string), in["repositoryPassword"].(string)
	image := in["controllerImageRepository"].(string)
	out, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), password) {
		t.Fatal("the args file must carry the password this test looks for")
	}
	r := render(t, file)
	b, _ := json.Marshal(r)
	if strings.Contains(string(b), password) {
		t.Errorf("the render output contains the repository password in clear text")
	}
	for _, rel := range r.OfType(harness.ReleaseType) {
		if rel.String("repositoryOpts.repo") != mirror || (rel.String("chart") != "karpenter" && rel.String("chart") != "karpenter-crd") {
			t.Errorf("release %s: chart %q from %q, want karpenter or karpenter-crd from the mirror %s", rel.Name, rel.String("chart"), rel.String("repositoryOpts.repo"), mirror)
		}
		if got := rel.String("repositoryOpts.username"); got != in["repositoryUsername"] {
			t.Errorf("release %s repositoryOpts.username %q, want %v", rel.Name, got, in["repositoryUsername"])
		}
		if got := rel.String("repositoryOpts.password"); got != "[secret]" {
			t.Errorf("release %s repositoryOpts.password %q, want the masked secret", rel.Name, got)
		}
	}
	c, ctx := cluster(t)
	applied := install(t, ctx, c, r)
	ctrl, _ := r.Release("karpenter")
	rel := releases(applied)[ctrl.Name]
	if rel == nil {
		t.Fatalf("controller release %s not installed", ctrl.Name)
	}
	checkValuesKnown(t, ctrl, rel)
	tmpl, _ := controllerPod(t, ctx, c, rel)
	if got := tmpl.Spec.Containers[0].Image; !strings.HasPrefix(got, image+":") {
		t.Errorf("controller image %q, want it from the mirror %s", got, image)
	}
}
