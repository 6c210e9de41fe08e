//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/harness"
)

// checkControllerRunning: `up` returned only once the controller was available — its two
// replicas scheduled by kube-scheduler onto system nodes in two zones (the chart's zone spread
// and hostname anti-affinity), Running and Ready (kwok), Ready no later than the engine's Create
// of the release completed (the provider's Helm waited for them; Ready times have second
// precision).
func checkControllerRunning(t *testing.T, w *world) {
	t.Helper()
	ops, err := w.Ops()
	if err != nil {
		t.Fatal(err)
	}
	var created time.Time
	for _, op := range ops {
		if op.Name == "karpenter-release" && (op.Op == "Create" || op.Op == "Update") && !op.Failed {
			created = op.Time
		}
	}
	pods := w.controllerPods(t)
	zones := map[string]bool{}
	for _, p := range pods {
		var ready *metav1.Time
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
				ready = &c.LastTransitionTime
			}
		}
		switch {
		case !strings.HasPrefix(p.Spec.NodeName, "system-"):
			t.Errorf("controller pod %s is on node %q, want a system node", p.Name, p.Spec.NodeName)
		case ready == nil:
			t.Errorf("controller pod %s is not Ready: %v", p.Name, p.Status.Conditions)
		case ready.Time.After(created.Add(time.Second)):
			t.Errorf("controller pod %s became Ready at %s, after the release's Create completed (%s): the provider did not wait",
				p.Name, ready.Format(time.RFC3339), created.Format(time.RFC3339Nano))
		}
		zones[strings.TrimPrefix(p.Spec.NodeName, "system-")] = true
	}
	if len(pods) != 2 || len(zones) != 2 {
		t.Errorf("want the controller's 2 replicas in 2 zones, got %d pods in %v", len(pods), zones)
	}
}

// checkDefaultKubernetes: both releases deployed from the 1.15.2 charts, the controller wired to
// the cluster, queue and role, the default NodePool and EC2NodeClass stored.
func checkDefaultKubernetes(t *testing.T, w *world, out map[string]any) {
	t.Helper()
	ctx := context.Background()
	for _, name := range []string{"karpenter-crd", "karpenter"} {
		if got := w.release(t, name); got != (releaseInfo{Status: "deployed", Revision: 1, Chart: "1.15.2"}) {
			t.Errorf("helm status %s: %+v, want deployed revision 1 of chart 1.15.2", name, got)
		}
		// The chart Helm installed is the one pushed to the world's registry (its annotation
		// names the module zip it was packaged from), pulled through chartRepository.
		rel, err := w.Cluster.ReleaseStatus("kube-system", name)
		if err != nil {
			t.Fatal(err)
		}
		if src := rel.Chart.Metadata.Annotations[harness.SourceAnnotation]; src != harness.KarpenterModule+"@v1.15.2/charts/"+name {
			t.Errorf("release %s: chart from %q, want the registry's copy of %s@v1.15.2/charts/%s", name, src, harness.KarpenterModule, name)
		}
	}
	checkControllerRunning(t, w)
	dep, err := w.Cluster.Dynamic.Resource(schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}).
		Namespace("kube-system").Get(ctx, "karpenter", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the controller deployment: %v", err)
	}
	env := map[string]string{}
	containers, _, _ := unstructured.NestedSlice(dep.Object, "spec", "template", "spec", "containers")
	for _, c := range containers {
		vars, _, _ := unstructured.NestedSlice(c.(map[string]any), "env")
		for _, v := range vars {
			m := v.(map[string]any)
			env[str(m["name"])] = str(m["value"])
		}
	}
	if env["CLUSTER_NAME"] != str(out["clusterName"]) || env["INTERRUPTION_QUEUE"] != str(out["interruptionQueueName"]) {
		t.Errorf("controller env CLUSTER_NAME=%q INTERRUPTION_QUEUE=%q, want %q and %q", env["CLUSTER_NAME"], env["INTERRUPTION_QUEUE"],
			out["clusterName"], out["interruptionQueueName"])
	}
	// The endpoint the component read from the cluster (here the world's API server, which the
	// stand-in's EKS gives the cluster it made).
	if env["CLUSTER_ENDPOINT"] != w.ControlPlane.URL {
		t.Errorf("controller env CLUSTER_ENDPOINT=%q, want the cluster's endpoint %s", env["CLUSTER_ENDPOINT"], w.ControlPlane.URL)
	}
	sa, err := w.Cluster.Dynamic.Resource(schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}).
		Namespace("kube-system").Get(ctx, "karpenter", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := sa.GetAnnotations()["eks.amazonaws.com/role-arn"]; got != str(out["controllerRoleArn"]) {
		t.Errorf("service account role-arn %q, want %q", got, out["controllerRoleArn"])
	}
	nodeRole := str(out["nodeRoleArn"])
	for _, gvr := range []schema.GroupVersionResource{
		{Group: "karpenter.sh", Version: "v1", Resource: "nodepools"},
		{Group: "karpenter.k8s.aws", Version: "v1", Resource: "ec2nodeclasses"},
	} {
		obj, err := w.Cluster.Dynamic.Resource(gvr).Get(ctx, "default", metav1.GetOptions{})
		if err != nil {
			t.Errorf("%s default: %v", gvr.Resource, err)
			continue
		}
		if gvr.Resource == "ec2nodeclasses" {
			role, _, _ := unstructured.NestedString(obj.Object, "spec", "role")
			terms, _, _ := unstructured.NestedSlice(obj.Object, "spec", "subnetSelectorTerms")
			if role != nodeRole[strings.LastIndex(nodeRole, "/")+1:] {
				t.Errorf("EC2NodeClass default: role %q, want the node role", role)
			}
			b, _ := json.Marshal(terms)
			if !strings.Contains(string(b), `"karpenter.sh/discovery":"`+str(out["clusterName"])+`"`) {
				t.Errorf("EC2NodeClass default: subnets selected by %s, want the discovery tag of the cluster", b)
			}
		}
	}
}
