package tests

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/harness"
	"helm.sh/helm/v3/pkg/release"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Legacy generations: the v1beta1 APIs (v0.32–v0.37) and the Provisioner era (v0.19–v0.31),
// rendered by the component and installed against the real API server with that
// generation's chart and CRDs (for v0.31, the stand-ins documented in harness.standIns).

// generation is what one Karpenter generation installs and where its chart puts the
// component's settings.
type generation struct {
	name, version string
	rich          string // args file of the rich configuration (carries its own version)
	poolType      string
	classType     string
	poolGVR       schema.GroupVersionResource
	classGVR      schema.GroupVersionResource
	// crdRelease: the CRDs come from a karpenter-crd release and the controller release
	// skips them; otherwise the controller chart installs them from its crds/ directory.
	crdRelease bool
	namespace  string
	crds       []string // CRDs the install must serve
	crdVersion string   // the version they serve (Provisioner era: per CRD)
	// removedWebhooks: the admission webhook configurations of the controller chart, which
	// the harness removes because no controller pod serves them.
	removedWebhooks []string
	// settings reads, from what the API server stored, the settings the controller starts
	// with: clusterName, clusterEndpoint, interruptionQueue, defaultInstanceProfile.
	settings func(t *testing.T, ctx context.Context, c *harness.Cluster, rel *release.Release) map[string]string
}

var generations = []generation{
	{
		name: "v1beta1", version: harness.BetaVersion, rich: "rich-v1beta1.json",
		poolType:   "kubernetes:karpenter.sh/v1beta1:NodePool",
		classType:  "kubernetes:karpenter.k8s.aws/v1beta1:EC2NodeClass",
		poolGVR:    schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1beta1", Resource: "nodepools"},
		classGVR:   schema.GroupVersionResource{Group: "karpenter.k8s.aws", Version: "v1beta1", Resource: "ec2nodeclasses"},
		crdRelease: true, namespace: "kube-system",
		crds:       []string{"ec2nodeclasses.karpenter.k8s.aws", "nodeclaims.karpenter.sh", "nodepools.karpenter.sh"},
		crdVersion: "v1beta1",
		// v0.32+ charts pass settings as environment variables.
		settings: func(t *testing.T, ctx context.Context, c *harness.Cluster, rel *release.Release) map[string]string {
			_, env := controllerPod(t, ctx, c, rel)
			return map[string]string{
				"clusterName":       env["CLUSTER_NAME"],
				"clusterEndpoint":   env["CLUSTER_ENDPOINT"],
				"interruptionQueue": env["INTERRUPTION_QUEUE"],
			}
		},
	},
	{
		name: "v1alpha5", version: harness.ProvisionerVersion, rich: "rich-v1alpha5.json",
		poolType:   "kubernetes:karpenter.sh/v1alpha5:Provisioner",
		classType:  "kubernetes:karpenter.k8s.aws/v1alpha1:AWSNodeTemplate",
		poolGVR:    schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1alpha5", Resource: "provisioners"},
		classGVR:   schema.GroupVersionResource{Group: "karpenter.k8s.aws", Version: "v1alpha1", Resource: "awsnodetemplates"},
		crdRelease: false, namespace: "karpenter",
		crds: []string{"awsnodetemplates.karpenter.k8s.aws", "machines.karpenter.sh", "provisioners.karpenter.sh"},
		removedWebhooks: []string{
			"MutatingWebhookConfiguration/defaulting.webhook.karpenter.k8s.aws",
			"ValidatingWebhookConfiguration/validation.webhook.config.karpenter.sh",
			"ValidatingWebhookConfiguration/validation.webhook.karpenter.k8s.aws",
			"ValidatingWebhookConfiguration/validation.webhook.karpenter.sh",
		},
		// v0.23–v0.31 charts render settings into the karpenter-global-settings ConfigMap,
		// which the controller watches.
		settings: func(t *testing.T, ctx context.Context, c *harness.Cluster, rel *release.Release) map[string]string {
			cm, err := c.Dynamic.Resource(configMapGVR).Namespace(rel.Namespace).Get(ctx, "karpenter-global-settings", metav1.GetOptions{})
			if err != nil {
				t.Fatalf("get ConfigMap %s/karpenter-global-settings: %v", rel.Namespace, err)
			}
			data := map[string]string{}
			for k, v := range field(cm, "data").(map[string]any) {
				data[k] = v.(string)
			}
			return map[string]string{
				"clusterName":            data["aws.clusterName"],
				"clusterEndpoint":        data["aws.clusterEndpoint"],
				"interruptionQueue":      data["aws.interruptionQueueName"],
				"defaultInstanceProfile": data["aws.defaultInstanceProfile"],
			}
		},
	},
}

var configMapGVR = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

// TestLegacyGenerations renders the default install and a rich configuration for each legacy
// generation, installs them, and checks the custom resources are accepted by that
// generation's CRDs and read back equal, and the chart hands the controller the rendered
// cluster name, endpoint, queue and (Provisioner era) default instance profile.
func TestLegacyGenerations(t *testing.T) {
	t.Parallel()
	for _, g := range generations {
		t.Run(g.name+"/default", func(t *testing.T) {
			t.Parallel()
			file := withVersion(t, args("default.json"), g.version)
			checkGeneration(t, g, file)
		})
		t.Run(g.name+"/rich", func(t *testing.T) {
			t.Parallel()
			applied, r := checkGeneration(t, g, args(g.rich))
			checkRich(t, g, r, applied)
		})
	}
}

func checkGeneration(t *testing.T, g generation, argsFile string) ([]harness.Applied, *harness.Render) {
	t.Helper()
	in := readArgs(t, argsFile)
	if in["version"] != g.version {
		t.Fatalf("%s: version %v, want %s", argsFile, in["version"], g.version)
	}
	r := render(t, argsFile)
	if got := outputString(t, r, "version"); got != g.version {
		t.Errorf("outputs.version = %q, want %q", got, g.version)
	}

	// The releases the generation needs, from the official registry, at the version.
	ctrl, ok := r.Release("karpenter")
	if !ok {
		t.Fatal("render has no karpenter release")
	}
	crd, hasCRDRelease := r.Release("karpenter-crd")
	if hasCRDRelease != g.crdRelease {
		t.Fatalf("render has a karpenter-crd release: %v, want %v", hasCRDRelease, g.crdRelease)
	}
	wantReleases := 1
	if g.crdRelease {
		wantReleases = 2
	}
	if n := len(r.OfType(harness.ReleaseType)); n != wantReleases {
		t.Fatalf("render has %d releases, want %d", n, wantReleases)
	}
	skip, _ := harness.Lookup(ctrl.Inputs, "skipCrds").(bool)
	if skip != g.crdRelease {
		t.Errorf("controller release skipCrds = %v, want %v (CRDs from %s)", skip, g.crdRelease,
			map[bool]string{true: "karpenter-crd", false: "the chart's crds/"}[g.crdRelease])
	}
	for _, rel := range r.OfType(harness.ReleaseType) {
		if got := rel.String("version"); got != g.version {
			t.Errorf("release %s version %q, want %q", rel.Name, got, g.version)
		}
		if got := rel.String("namespace"); got != g.namespace {
			t.Errorf("release %s namespace %q, want %q", rel.Name, got, g.namespace)
		}
		if !strings.HasPrefix(rel.String("chart"), harness.DefaultChartRepository+"/") {
			t.Errorf("release %s chart %q, want the official registry %s", rel.Name, rel.String("chart"), harness.DefaultChartRepository)
		}
	}
	pools, classes := r.OfType(g.poolType), r.OfType(g.classType)
	if len(pools) == 0 || len(classes) == 0 {
		t.Fatalf("render has %d %s and %d %s", len(pools), g.poolType, len(classes), g.classType)
	}
	for _, res := range r.Resources {
		if res.IsCustomResource() && res.Type != g.poolType && res.Type != g.classType {
			t.Errorf("%s is a %s; generation %s renders only %s and %s", res.Name, res.Type, g.name, g.poolType, g.classType)
		}
	}

	c, ctx := cluster(t)
	applied := install(t, ctx, c, r)
	rels := releases(applied)
	ctrlRel := rels[ctrl.Name]
	if ctrlRel == nil {
		t.Fatalf("controller release %s not installed", ctrl.Name)
	}
	for name, rel := range rels {
		st, err := c.ReleaseStatus(rel.Namespace, rel.Name)
		if err != nil {
			t.Fatalf("helm status %s: %v", rel.Name, err)
		}
		if st.Info.Status != release.StatusDeployed {
			t.Errorf("release %s status %s, want deployed", name, st.Info.Status)
		}
		if rel.Chart.Metadata.Version != g.version {
			t.Errorf("release %s chart version %s, want %s", name, rel.Chart.Metadata.Version, g.version)
		}
		t.Logf("release %s: chart %s %s from %s", rel.Name, rel.Chart.Name(), rel.Chart.Metadata.Version,
			rel.Chart.Metadata.Annotations[harness.SourceAnnotation])
		if s := rel.Chart.Metadata.Annotations[harness.StandInAnnotation]; s != "" {
			t.Logf("stand-in for %s: %s", g.version, s)
		}
	}
	// Webhooks no pod can serve are removed after the install (harness limitation): exactly
	// the Provisioner era's, whose charts always enable them.
	if got := c.RemovedWebhooks(ctrlRel.Name); !reflect.DeepEqual(got, g.removedWebhooks) {
		t.Errorf("webhook configurations removed after installing %s: %v, want %v", ctrlRel.Name, got, g.removedWebhooks)
	} else if len(got) > 0 {
		t.Logf("removed (no controller pod runs to serve them; CRD schemas still validate): %v", got)
	}
	checkValuesKnown(t, ctrl, ctrlRel)
	if g.crdRelease {
		checkValuesKnown(t, crd, rels[crd.Name])
	}

	// The generation's CRDs are served, by the CRD release or by the chart's crds/.
	for _, name := range g.crds {
		obj, err := c.CRD(ctx, name)
		if err != nil {
			t.Errorf("CRD %s: %v", name, err)
			continue
		}
		var served []string
		vs, _ := field(obj, "spec", "versions").([]any)
		for _, v := range vs {
			if m := v.(map[string]any); m["served"] == true {
				served = append(served, m["name"].(string))
			}
		}
		want := map[string]string{"provisioners.karpenter.sh": "v1alpha5", "machines.karpenter.sh": "v1alpha5",
			"awsnodetemplates.karpenter.k8s.aws": "v1alpha1"}[name]
		if want == "" {
			want = g.crdVersion
		}
		if !reflect.DeepEqual(served, []string{want}) {
			t.Errorf("CRD %s serves %v, want [%s]", name, served, want)
		}
	}
	if g.crdRelease {
		// The controller chart skipped its copy: the CRD release's manifest has them.
		for _, name := range g.crds {
			if !strings.Contains(rels[crd.Name].Manifest, "name: "+name) {
				t.Errorf("CRD %s is not in the %s release manifest", name, crd.Name)
			}
		}
	}

	// The custom resources were accepted (Install compared each read-back with what was
	// sent) and are what the cluster lists.
	if got, want := names(t, ctx, c, g.poolGVR), renderedNames(t, pools); !reflect.DeepEqual(got, want) {
		t.Errorf("cluster %s %v, rendered %v", g.poolGVR.Resource, got, want)
	}
	if got, want := names(t, ctx, c, g.classGVR), renderedNames(t, classes); !reflect.DeepEqual(got, want) {
		t.Errorf("cluster %s %v, rendered %v", g.classGVR.Resource, got, want)
	}

	// The chart hands the controller the rendered settings.
	want := map[string]string{
		"clusterName":       in["clusterName"].(string),
		"interruptionQueue": outputString(t, r, "interruptionQueueName"),
	}
	if ep, _ := in["clusterEndpoint"].(string); ep != "" {
		want["clusterEndpoint"] = ep
	}
	if g.name == "v1alpha5" {
		// Node templates without an instance profile launch with this one.
		want["defaultInstanceProfile"] = outputString(t, r, "instanceProfileName")
	}
	got := g.settings(t, ctx, c, ctrlRel)
	for k, v := range got {
		if v == "" {
			delete(got, k)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("controller settings from the %s chart:\n  got  %v\n  want %v", g.name, got, want)
	}

	// IRSA: the service account carries the controller role.
	tmpl, _ := controllerPod(t, ctx, c, ctrlRel)
	sa, err := c.Dynamic.Resource(saGVR).Namespace(ctrlRel.Namespace).Get(ctx, tmpl.Spec.ServiceAccountName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get ServiceAccount %s: %v", tmpl.Spec.ServiceAccountName, err)
	}
	if got, want := sa.GetAnnotations()["eks.amazonaws.com/role-arn"], outputString(t, r, "controllerRoleArn"); got != want {
		t.Errorf("ServiceAccount annotation eks.amazonaws.com/role-arn = %q, want %q", got, want)
	}
	return applied, r
}

// checkRich spot-checks what the API server stored for the rich configurations: each
// feature as the user wrote it, in the generation's shape.
func checkRich(t *testing.T, g generation, r *harness.Render, applied []harness.Applied) {
	t.Helper()
	pools, classes := appliedOfType(applied, g.poolType), appliedOfType(applied, g.classType)
	if got, want := sortedKeys(pools), []string{"general-on-demand", "general-spot", "gpu", "pinned"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("applied %s %v, want %v", g.poolType, got, want)
	}
	if got, want := sortedKeys(classes), []string{"general", "gpu", "pinned-ami"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("applied %s %v, want %v", g.classType, got, want)
	}
	type check struct {
		obj  harness.Applied
		path string
		want string
	}
	var checks []check
	switch g.name {
	case "v1beta1":
		checks = []check{
			{pools["general-spot"], "spec.weight", "50"},
			{pools["general-spot"], "spec.limits", "map[cpu:1000 memory:1000Gi]"},
			{pools["general-spot"], "spec.disruption.consolidationPolicy", "WhenUnderutilized"},
			{pools["general-spot"], "spec.disruption.expireAfter", "336h"},
			{pools["general-spot"], "spec.disruption.budgets", "[map[nodes:10%] map[duration:8h nodes:0 schedule:0 9 * * mon-fri]]"},
			{pools["general-spot"], "spec.template.metadata.labels", "map[capacity:spot workload:general]"},
			{pools["general-spot"], "spec.template.spec.kubelet.maxPods", "110"},
			{pools["general-spot"], "spec.template.spec.kubelet.evictionSoftGracePeriod", "map[memory.available:1m0s]"},
			{pools["general-on-demand"], "spec.disruption.consolidationPolicy", "WhenEmpty"},
			{pools["general-on-demand"], "spec.disruption.consolidateAfter", "5m"},
			{pools["gpu"], "spec.disruption.expireAfter", "Never"},
			{pools["gpu"], "spec.template.spec.taints", "[map[effect:NoSchedule key:nvidia.com/gpu value:true]]"},
			{pools["gpu"], "spec.template.spec.startupTaints", "[map[effect:NoExecute key:node.example.com/gpu-driver-not-ready]]"},
			{pools["pinned"], "spec.template.spec.nodeClassRef", "map[apiVersion:karpenter.k8s.aws/v1beta1 kind:EC2NodeClass name:pinned-ami]"},
			{classes["general"], "spec.amiFamily", "AL2023"},
			{classes["general"], "spec.role", outputString(t, r, "nodeRoleName")},
			{classes["general"], "spec.instanceStorePolicy", "RAID0"},
			{classes["general"], "spec.associatePublicIPAddress", "false"},
			{classes["general"], "spec.context", "c-0123456789abcdef0"},
			{classes["general"], "spec.securityGroupSelectorTerms", "[map[tags:map[karpenter.sh/discovery:prod-us-west-2]] map[name:eks-node-extra]]"},
			{classes["gpu"], "spec.amiFamily", "Bottlerocket"},
			{classes["gpu"], "spec.instanceProfile", "KarpenterGpuNodeInstanceProfile"},
			{classes["gpu"], "spec.role", "<nil>"},
			{classes["pinned-ami"], "spec.amiSelectorTerms", "[map[id:ami-0123456789abcdef0] map[name:platform-al2023-* owner:self] map[tags:map[golden:true]]]"},
		}
		// minValues (v0.35+) survives on the requirement it was set on.
		reqs, _ := harness.Lookup(pools["general-spot"].Got.Object, "spec.template.spec.requirements").([]any)
		if len(reqs) != 5 || describe(harness.Lookup(reqs[2], "minValues")) != "2" {
			t.Errorf("general-spot requirements %v: want minValues 2 on the third", reqs)
		}
	case "v1alpha5":
		checks = []check{
			{pools["general-spot"], "spec.weight", "50"},
			{pools["general-spot"], "spec.limits.resources", "map[cpu:1000 memory:1000Gi]"},
			{pools["general-spot"], "spec.consolidation.enabled", "true"},
			{pools["general-spot"], "spec.ttlSecondsAfterEmpty", "<nil>"},
			{pools["general-spot"], "spec.ttlSecondsUntilExpired", "1209600"},
			{pools["general-spot"], "spec.labels", "map[capacity:spot workload:general]"},
			{pools["general-spot"], "spec.annotations", "map[example.com/owner:platform]"},
			{pools["general-spot"], "spec.kubeletConfiguration.maxPods", "110"},
			{pools["general-spot"], "spec.kubeletConfiguration.evictionSoftGracePeriod", "map[memory.available:1m0s]"},
			{pools["general-spot"], "spec.providerRef", "map[name:general]"},
			{pools["general-on-demand"], "spec.consolidation", "<nil>"},
			{pools["general-on-demand"], "spec.ttlSecondsAfterEmpty", "300"},
			{pools["gpu"], "spec.ttlSecondsUntilExpired", "<nil>"},
			{pools["gpu"], "spec.ttlSecondsAfterEmpty", "600"},
			{pools["gpu"], "spec.taints", "[map[effect:NoSchedule key:nvidia.com/gpu value:true]]"},
			{pools["gpu"], "spec.startupTaints", "[map[effect:NoExecute key:node.example.com/gpu-driver-not-ready]]"},
			{classes["general"], "spec.amiFamily", "AL2"},
			{classes["general"], "spec.subnetSelector", "map[karpenter.sh/discovery:legacy-us-east-1 tier:private]"},
			{classes["general"], "spec.securityGroupSelector", "map[aws-ids:sg-0123456789abcdef0,sg-0fedcba9876543210]"},
			{classes["general"], "spec.metadataOptions.httpTokens", "required"},
			{classes["general"], "spec.detailedMonitoring", "true"},
			{classes["general"], "spec.userData", "#!/bin/bash\necho hello\n"},
			{classes["general"], "spec.context", "c-0123456789abcdef0"},
			{classes["general"], "spec.instanceProfile", "<nil>"}, // the chart's defaultInstanceProfile
			{classes["gpu"], "spec.instanceProfile", "KarpenterGpuNodeInstanceProfile"},
			{classes["gpu"], "spec.subnetSelector", "map[aws-ids:subnet-0a1b2c3d4e5f60718,subnet-0a1b2c3d4e5f60719]"},
			{classes["gpu"], "spec.blockDeviceMappings", "[map[deviceName:/dev/xvdb ebs:map[deleteOnTermination:true encrypted:true snapshotID:snap-0123456789abcdef0 volumeSize:200Gi volumeType:gp3]]]"},
			{classes["pinned-ami"], "spec.amiSelector", "map[aws::name:platform-al2-* aws::owners:self]"},
		}
	}
	for _, ch := range checks {
		if ch.obj.Got == nil {
			t.Errorf("missing applied object for %s", ch.path)
			continue
		}
		if got := describe(harness.Lookup(ch.obj.Got.Object, ch.path)); got != ch.want {
			t.Errorf("%s %s .%s = %s, want %s", ch.obj.Got.GetKind(), ch.obj.Got.GetName(), ch.path, got, ch.want)
		}
	}
}
