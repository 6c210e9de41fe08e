package harness

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/render/format"
)

// These test the harness itself against a hand-written render (testdata/render/default.json),
// independent of the provider binary.

func fixture(t *testing.T) *Render {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "render", "default.json"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := ParseRender(b)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestMissing(t *testing.T) {
	sent := map[string]any{"spec": map[string]any{"a": 1, "l": []any{"x", map[string]any{"k": "v"}}, "n": nil}}
	cases := []struct {
		name string
		got  any
		want int
	}{
		{"identical, int64 vs float64", map[string]any{"spec": map[string]any{"a": int64(1), "l": []any{"x", map[string]any{"k": "v"}}}}, 0},
		{"server added fields", map[string]any{"status": 1, "spec": map[string]any{"a": 1.0, "b": 2, "l": []any{"x", map[string]any{"k": "v", "d": 1}}}}, 0},
		{"pruned field", map[string]any{"spec": map[string]any{"l": []any{"x", map[string]any{"k": "v"}}}}, 1},
		{"changed scalar and list", map[string]any{"spec": map[string]any{"a": 2, "l": []any{"x"}}}, 2},
	}
	for _, tc := range cases {
		if d := Missing(sent, tc.got); len(d) != tc.want {
			t.Errorf("%s: %d differences %v, want %d", tc.name, len(d), d, tc.want)
		}
	}
}

func TestOrder(t *testing.T) {
	r := fixture(t)
	order, err := r.DeleteOrder()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, res := range order {
		names = append(names, res.Name)
	}
	pos := func(n string) int { return strings.Index(strings.Join(names, " "), n+" ") }
	// The fixture wires pool -> class -> controller release -> crd release and the AWS side.
	for _, pair := range [][2]string{
		{"karpenter-nodepool-default", "karpenter-nodeclass-default"},
		{"karpenter-nodeclass-default", "karpenter "},
		{"karpenter ", "karpenter-crd"},
		{"karpenter ", "karpenter-controller-role"},
	} {
		if pos(strings.TrimSpace(pair[0])) > pos(strings.TrimSpace(pair[1])) {
			t.Errorf("delete order %v has %s after %s", names, pair[0], pair[1])
		}
	}
	if !r.DependsOnTransitively("karpenter-nodepool-default", "karpenter-controller-role") {
		t.Error("pool should depend on the controller role through the release")
	}
	if r.DependsOnTransitively("karpenter-controller-role", "karpenter-nodepool-default") {
		t.Error("dependency relation reversed")
	}
	cyclic := &Render{format.Rendered{Resources: []Resource{{Name: "a", DependsOn: []string{"b"}}, {Name: "b", DependsOn: []string{"a"}}}}}
	if _, err := cyclic.CreateOrder(); err == nil {
		t.Error("cycle not detected")
	}
}

func TestChartMapping(t *testing.T) {
	k := &Karpenter{Version: "1.14.1", Dir: "/m"}
	for ref, want := range map[string]string{
		"oci://public.ecr.aws/karpenter/karpenter":     "/m/charts/karpenter",
		"oci://public.ecr.aws/karpenter/karpenter-crd": "/m/charts/karpenter-crd",
		"oci://registry.example.com/mirror/karpenter":  "/m/charts/karpenter",
		"https://charts.example.com/karpenter":         "/m/charts/karpenter",
	} {
		if got, err := k.ChartDir(ref); err != nil || got != want {
			t.Errorf("ChartDir(%q) = %q, %v; want %q", ref, got, err, want)
		}
	}
	if _, err := k.ChartDir("oci://public.ecr.aws/karpenter/other"); err == nil {
		t.Error("a non-Karpenter chart must not map")
	}
}

// TestInstallFixture installs the fixture with each supported Karpenter version's charts and
// CRDs: the published chart version is stamped, the controller chart gets its CRDs back
// (restored from pkg/apis/crds) and the custom resources pass the real CRDs.
func TestInstallFixture(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Kubernetes API server")
	}
	for _, v := range KarpenterVersions {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			r := fixture(t)
			for i := range r.Resources {
				if r.Resources[i].IsRelease() {
					r.Resources[i].Inputs["version"] = v
				}
			}
			ctx := context.Background()
			c := startCluster(t, ctx)
			applied, err := c.Install(ctx, r)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, a := range applied {
				if a.Release != nil {
					got = append(got, a.Release.Chart.Metadata.Name+"-"+a.Release.Chart.Metadata.Version)
				}
			}
			if want := []string{"karpenter-crd-" + v, "karpenter-" + v}; !reflect.DeepEqual(got, want) {
				t.Errorf("installed charts %v, want %v", got, want)
			}
			k, err := LoadKarpenter(v)
			if err != nil {
				t.Fatal(err)
			}
			ch, err := k.LoadChart(DefaultChartRepository + "/karpenter")
			if err != nil {
				t.Fatal(err)
			}
			if len(ch.CRDObjects()) == 0 {
				t.Error("controller chart has no crds/ (the module zip drops them; LoadChart restores them)")
			}
			if _, err := c.Dynamic.Resource(crdGVR).Get(ctx, "nodepools.karpenter.sh", metav1.GetOptions{}); err != nil {
				t.Errorf("nodepools CRD: %v", err)
			}
		})
	}
}

func TestChartModule(t *testing.T) {
	for v, want := range map[string]string{
		"1.15.1":  KarpenterModule + "@v1.15.1",
		"1.14.1":  KarpenterModule + "@v1.14.1",
		"v1.0.8":  KarpenterModule + "@v1.0.8",
		"0.36.2":  KarpenterModule + "@v0.36.2",
		"0.35.0":  KarpenterModule + "@v0.35.0",
		"0.34.6":  LegacyModule + "@v0.34.6",
		"0.32.10": LegacyModule + "@v0.32.10",
		"0.31.0":  LegacyModule + "@v0.29.2", // stand-in
	} {
		if got, err := ChartModule(v); err != nil || got != want {
			t.Errorf("ChartModule(%s) = %q, %v; want %q", v, got, err, want)
		}
	}
	for _, v := range []string{"0.31.4", "0.19.0", "not-a-version"} {
		if got, err := ChartModule(v); err == nil {
			t.Errorf("ChartModule(%s) = %q, want an error (no charts for it)", v, got)
		}
	}
}

// TestInstallDepsDownloadsEveryModule keeps tests/harness/install-deps.sh (what CI fetches)
// and the harness's version table in step: CI machines are fresh, a module the harness needs
// and the script does not fetch would only be found by a test downloading it mid-run.
func TestInstallDepsDownloadsEveryModule(t *testing.T) {
	b, err := os.ReadFile("install-deps.sh")
	if err != nil {
		t.Fatal(err)
	}
	script := string(b)
	got := map[string]bool{}
	for _, m := range regexp.MustCompile(`github\.com/aws/karpenter(-core|-provider-aws)?@v[0-9][0-9.]*[0-9]`).FindAllString(script, -1) {
		got[m] = true
	}
	versions := regexp.MustCompile(`KARPENTER_VERSIONS="\$\{KARPENTER_VERSIONS:-([^}]*)\}"`).FindStringSubmatch(script)
	if versions == nil {
		t.Fatal("install-deps.sh: no KARPENTER_VERSIONS default")
	}
	for _, v := range strings.Fields(versions[1]) {
		got[KarpenterModule+"@v"+v] = true
	}
	want := map[string]bool{}
	for _, m := range RequiredModules() {
		want[m] = true
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("install-deps.sh fetches %v\nthe harness needs %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
	}
}

func TestParseRenderStrict(t *testing.T) {
	base := `{"component":{"type":"karpenter:index:Karpenter","name":"k"},"outputs":{},"resources":[%s]}`
	cases := []struct {
		name, res string
		ok        bool
	}{
		{"plain", `{"type":"kubernetes:karpenter.sh/v1:NodePool","name":"p","inputs":{}}`, true},
		{"alias to v1beta1", `{"type":"kubernetes:karpenter.sh/v1:NodePool","name":"p","inputs":{},"aliases":["kubernetes:karpenter.sh/v1beta1:NodePool"]}`, true},
		{"read", `{"type":"kubernetes:core/v1:ConfigMap","name":"c","inputs":{},"readId":"kube-system/aws-auth"}`, true},
		{"retained", `{"type":"kubernetes:core/v1:ConfigMapPatch","name":"c","inputs":{},"retainOnDelete":true}`, true},
		{"unknown field", `{"type":"kubernetes:karpenter.sh/v1:NodePool","name":"p","inputs":{},"protect":true}`, false},
		{"alias to another kind", `{"type":"kubernetes:karpenter.sh/v1:NodePool","name":"p","inputs":{},"aliases":["kubernetes:karpenter.sh/v1:NodeClaim"]}`, false},
		{"alias on an aws resource", `{"type":"aws:iam/role:Role","name":"r","inputs":{},"aliases":["aws:iam/role:Role"]}`, false},
		{"read of a release", `{"type":"kubernetes:helm.sh/v3:Release","name":"r","inputs":{},"readId":"x"}`, false},
	}
	for _, tc := range cases {
		_, err := ParseRender([]byte(fmt.Sprintf(base, tc.res)))
		if (err == nil) != tc.ok {
			t.Errorf("%s: ParseRender error %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
}

func TestObjectKinds(t *testing.T) {
	patch := Resource{Type: "kubernetes:core/v1:ConfigMapPatch", Name: "p", Inputs: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "aws-auth", "namespace": "kube-system", "annotations": map[string]any{PatchForceAnnotation: "true"}},
	}}
	if !patch.IsPatch() || patch.IsCustomResource() {
		t.Errorf("%s: IsPatch %v IsCustomResource %v", patch.Type, patch.IsPatch(), patch.IsCustomResource())
	}
	obj, err := Object(patch)
	if err != nil || obj.GetAPIVersion() != "v1" || obj.GetKind() != "ConfigMap" || obj.GetNamespace() != "kube-system" {
		t.Errorf("Object(ConfigMapPatch) = %v, %v", obj, err)
	}
	if m := PatchFieldManager(patch, obj); !regexp.MustCompile(`^pulumi-kubernetes-[0-9a-f]{8}$`).MatchString(m) {
		t.Errorf("PatchFieldManager = %q, want pulumi-kubernetes-<8 hex>", m)
	}
	read := Resource{Type: "kubernetes:core/v1:ConfigMap", Name: "r", ReadID: "kube-system/aws-auth", Inputs: map[string]any{}}
	obj, err = Object(read)
	if err != nil || obj.GetName() != "aws-auth" || obj.GetNamespace() != "kube-system" || obj.GetKind() != "ConfigMap" {
		t.Errorf("Object(read) = %v, %v", obj, err)
	}
	if read.IsCustomResource() || read.IsPatch() {
		t.Error("a read ConfigMap is neither a custom resource nor a patch")
	}
	for _, typ := range []string{"kubernetes:karpenter.sh/v1alpha5:Provisioner", "kubernetes:karpenter.k8s.aws/v1alpha1:AWSNodeTemplate",
		"kubernetes:karpenter.sh/v1beta1:NodePool", "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass", AutoModeNodeClassType} {
		if !(Resource{Type: typ}).IsCustomResource() {
			t.Errorf("%s is a custom resource", typ)
		}
	}
	if (Resource{Type: "kubernetes:eks.amazonaws.com/v1:TargetGroupBinding"}).IsCustomResource() {
		t.Error("an Auto Mode TargetGroupBinding is not a provisioning custom resource")
	}
	bad := Resource{Type: "kubernetes:core/v1:ConfigMapPatch", Name: "b", Inputs: map[string]any{"kind": "Secret", "metadata": map[string]any{"name": "x"}}}
	if _, err := Object(bad); err == nil {
		t.Error("a ConfigMapPatch of a Secret must be rejected")
	}
}

func TestUnknownValues(t *testing.T) {
	defaults := map[string]any{
		"settings":       map[string]any{"clusterName": "", "aws": map[string]any{"clusterName": "", "tags": nil}},
		"serviceAccount": map[string]any{"annotations": map[string]any{}, "name": ""},
	}
	rendered := map[string]any{
		"settings":       map[string]any{"clusterName": "x", "interruptionQueue": "q", "aws": map[string]any{"clusterName": "x", "tags": map[string]any{"a": "b"}}},
		"serviceAccount": map[string]any{"annotations": map[string]any{"eks.amazonaws.com/role-arn": "arn"}},
		"webhook":        map[string]any{"enabled": true},
	}
	got := UnknownValues(defaults, rendered)
	if want := []string{"settings.interruptionQueue", "webhook"}; !reflect.DeepEqual(got, want) {
		t.Errorf("UnknownValues = %v, want %v", got, want)
	}
}

// TestLegacyCharts loads the legacy generations' charts the way a release does: stamped with
// the rendered version, with the CRDs the module zip lost restored (karpenter-crd templates
// for v1beta1; crds/ of the controller chart for the Provisioner era, from the stand-ins).
func TestLegacyCharts(t *testing.T) {
	beta, err := LoadKarpenter(BetaVersion)
	if err != nil {
		t.Fatal(err)
	}
	crd, err := beta.LoadChart(DefaultChartRepository + "/karpenter-crd")
	if err != nil {
		t.Fatal(err)
	}
	var templates []string
	for _, f := range crd.Templates {
		templates = append(templates, f.Name)
	}
	if want := []string{"templates/karpenter.k8s.aws_ec2nodeclasses.yaml", "templates/karpenter.sh_nodeclaims.yaml", "templates/karpenter.sh_nodepools.yaml"}; !reflect.DeepEqual(templates, want) {
		t.Errorf("%s karpenter-crd templates %v, want %v", BetaVersion, templates, want)
	}
	if crd.Metadata.Version != BetaVersion || beta.StandIn != "" {
		t.Errorf("karpenter-crd version %s stand-in %q", crd.Metadata.Version, beta.StandIn)
	}

	alpha, err := LoadKarpenter(ProvisionerVersion)
	if err != nil {
		t.Fatal(err)
	}
	if alpha.StandIn == "" || alpha.Module != LegacyModule+"@v0.29.2" {
		t.Errorf("Karpenter %s: module %s stand-in %q; want the documented stand-in", ProvisionerVersion, alpha.Module, alpha.StandIn)
	}
	ch, err := alpha.LoadChart(DefaultChartRepository + "/karpenter")
	if err != nil {
		t.Fatal(err)
	}
	var crds []string
	for _, f := range ch.CRDObjects() {
		crds = append(crds, f.File.Name)
	}
	slices.Sort(crds)
	if want := []string{"crds/karpenter.k8s.aws_awsnodetemplates.yaml", "crds/karpenter.sh_machines.yaml", "crds/karpenter.sh_provisioners.yaml"}; !reflect.DeepEqual(crds, want) {
		t.Errorf("%s chart crds %v, want %v", ProvisionerVersion, crds, want)
	}
	for _, f := range ch.CRDObjects() {
		if strings.HasSuffix(f.Filename, "provisioners.yaml") && !strings.Contains(string(f.File.Data), "controller-gen.kubebuilder.io/version: v0.13.0") {
			t.Error("the Provisioner CRD is not karpenter-core v0.31.0's (controller-gen v0.13.0)")
		}
	}
	img := Lookup(ch.Values, "controller.image").(map[string]any)
	if img["tag"] != "v"+ProvisionerVersion || img["digest"] != "" || ch.Metadata.Version != ProvisionerVersion || ch.Metadata.AppVersion != ProvisionerVersion {
		t.Errorf("chart %s/%s image %v: want everything stamped %s (tag with the chart's v prefix, no digest)", ch.Metadata.Version, ch.Metadata.AppVersion, img, ProvisionerVersion)
	}
	if ch.Metadata.Annotations[StandInAnnotation] == "" || ch.Metadata.Annotations[SourceAnnotation] != LegacyModule+"@v0.29.2/charts/karpenter" {
		t.Errorf("chart annotations %v: want the source and stand-in recorded", ch.Metadata.Annotations)
	}

	// The stand-in AWSNodeTemplate CRD (v0.29.2) has the same schema as v0.32.0's, the last
	// release with v1alpha1, so v0.31.0's (in between) is the same too.
	pairs, err := StandInSchemaPairs(ProvisionerVersion)
	if err != nil || len(pairs) == 0 {
		t.Fatalf("stand-in schema pairs: %v, %v", pairs, err)
	}
	for _, p := range pairs {
		var specs [2]any
		for i, f := range p {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var crd map[string]any
			if err := yaml.Unmarshal(b, &crd); err != nil {
				t.Fatal(err)
			}
			specs[i] = crd["spec"]
		}
		if !reflect.DeepEqual(specs[0], specs[1]) {
			t.Errorf("CRD %s differs from %s: the stand-in is not exact", p[0], p[1])
		}
	}
}

// startCluster starts a control plane (stopped when the test ends) and a Cluster on it.
func startCluster(t *testing.T, ctx context.Context) *Cluster {
	t.Helper()
	cp, err := Start(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cp.Stop)
	c, err := NewCluster(cp)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The CRDs adoption hands to the karpenter-crd release (catalog Release.Crds) are the ones each
// generation's karpenter-crd chart installs, with their group and kind (catalog CrdGroupKind): a
// CRD the catalog missed would stay unowned, and Helm would refuse the release over it.
func TestCatalogCrdsAreTheCrdChartsCrds(t *testing.T) {
	// The first two-space `name:` of a CRD file is metadata.name (the chart's templating breaks
	// YAML parsing in some releases).
	crdKind := regexp.MustCompile(`(?m)^kind: CustomResourceDefinition\s*$`)
	metadataName := regexp.MustCompile(`(?m)^  name: ([a-z0-9.-]+)\s*$`)
	// spec.group and spec.names.kind, which the hand-over's patches carry (CrdGroupKind).
	specGroup := regexp.MustCompile(`(?m)^  group: ([a-z0-9.-]+)\s*$`)
	namesKind := regexp.MustCompile(`(?m)^    kind: ([A-Za-z0-9]+)\s*$`)
	for _, version := range append(slices.Clone(KarpenterVersions), BetaVersion) {
		k, err := LoadKarpenter(version)
		if err != nil {
			t.Fatal(err)
		}
		crdChart, err := k.LoadChart(DefaultChartRepository + "/karpenter-crd")
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, f := range crdChart.Templates {
			if !crdKind.Match(f.Data) {
				continue
			}
			m := metadataName.FindSubmatch(f.Data)
			if m == nil {
				t.Fatalf("%s %s: no metadata.name", version, f.Name)
			}
			names = append(names, string(m[1]))
			group, kind := catalog.CrdGroupKind(string(m[1]))
			g, k := firstGroup(specGroup, f.Data), firstGroup(namesKind, f.Data)
			if g != group || k != kind {
				t.Errorf("Karpenter %s: CRD %s has group %q and kind %q; the catalog says %q and %q", version, m[1], g, k, group, kind)
			}
		}
		rel, err := catalog.LookupRelease(version, false)
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(names)
		if !reflect.DeepEqual(names, rel.CrdNames()) {
			t.Errorf("Karpenter %s: karpenter-crd installs %v, the catalog hands over %v", version, names, rel.CrdNames())
		}
	}
}

// firstGroup is re's first match's first group in data ("" without a match).
func firstGroup(re *regexp.Regexp, data []byte) string {
	if m := re.FindSubmatch(data); m != nil {
		return string(m[1])
	}
	return ""
}
