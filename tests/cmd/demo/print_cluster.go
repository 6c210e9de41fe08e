package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/lab"
	"github.com/pulumi-karpenter/pulumi-karpenter/tests/harness"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"
)

// The cluster's side of the demo, printed as kubectl and helm would show it: the launch, the
// nodes, the releases, the controller's wiring and pods, the custom resources.

// printLaunch shows the launch from both sides: `kubectl get nodeclaims,nodes -o wide` and the
// workload's pods, and the instance in moto with its tags.
func printLaunch(ctx context.Context, out io.Writer, w *lab.World, cs *kubernetes.Clientset) error {
	heading(out, "kubectl get nodeclaims.v1.karpenter.sh -o wide")
	if err := printTable(ctx, out, w.ControlPlane, lab.NodeClaimGVR); err != nil {
		return err
	}
	heading(out, "kubectl get pods -l app=%s -o wide", lab.WorkloadName)
	pods, err := cs.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=" + lab.WorkloadName})
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(out, 0, 0, 3, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSTATUS\tNODE")
	for _, p := range pods.Items {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", p.Name, p.Status.Phase, p.Spec.NodeName)
	}
	tw.Flush()
	heading(out, "AWS (moto): EC2 instances")
	instances, _, err := lab.ReadEC2(ctx, w.AWS)
	if err != nil {
		return err
	}
	for _, i := range instances {
		fmt.Fprintf(out, "%s %s %s %s in %s (subnet %s, image %s)\n", i.ID, i.State, i.Type, i.Lifecycle, i.Zone, i.SubnetID, i.ImageID)
		for _, k := range slices.Sorted(maps.Keys(i.Tags)) {
			fmt.Fprintf(out, "  tag %s=%s\n", k, i.Tags[k])
		}
	}
	return nil
}

// settled is what the API server holds that baseline did not, once the garbage collector and kwok
// have removed what the deleted objects owned (at most 60 s).
func settled(ctx context.Context, w *lab.World, baseline map[lab.KubeObject]bool) ([]string, error) {
	deadline := time.Now().Add(60 * time.Second)
	for {
		now, err := lab.SnapshotKubernetes(ctx, w.ControlPlane.Config)
		if err != nil {
			return nil, err
		}
		left := lab.NewObjects(baseline, now)
		if len(left) == 0 || time.Now().After(deadline) {
			return left, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// printNodes is `kubectl get nodes -L ...`: the system node group the controller runs on.
func printNodes(ctx context.Context, out io.Writer, cp *harness.ControlPlane) error {
	cs, err := kubernetes.NewForConfig(cp.Config)
	if err != nil {
		return err
	}
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	heading(out, "kubectl get nodes (the system node group; kwok stands in for their kubelets)")
	tw := tabwriter.NewWriter(out, 0, 0, 3, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSTATUS\tZONE\tINSTANCE-TYPE\tNODEGROUP\tKUBELET")
	for _, n := range nodes.Items {
		status := "NotReady"
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
				status = "Ready"
			}
		}
		l := n.Labels
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", n.Name, status, l[corev1.LabelTopologyZone], l[corev1.LabelInstanceTypeStable],
			l["eks.amazonaws.com/nodegroup"], n.Status.NodeInfo.KubeletVersion)
	}
	return tw.Flush()
}

// printKubernetes shows the API server's side: `helm list`, the controller's wiring, and a
// `kubectl get -o wide` table per custom resource kind the component created.
func printKubernetes(ctx context.Context, out io.Writer, w *lab.World, state []lab.StateResource, outputs map[string]any) error {
	ns, _ := outputs["namespace"].(string)
	var releases []string
	for _, k := range []string{"crdReleaseName", "releaseName"} {
		if name, _ := outputs[k].(string); name != "" {
			releases = append(releases, name)
		}
	}
	heading(out, "helm list -n %s", ns)
	tw := tabwriter.NewWriter(out, 0, 0, 3, ' ', 0)
	fmt.Fprintln(tw, "NAME\tNAMESPACE\tREVISION\tSTATUS\tCHART\tAPP VERSION")
	for _, name := range releases {
		st, err := w.Cluster.ReleaseStatus(ns, name)
		if err != nil {
			return err
		}
		md := st.Chart.Metadata
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s-%s\t%s\n", st.Name, st.Namespace, st.Version, st.Info.Status, md.Name, md.Version, md.AppVersion)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if name, _ := outputs["releaseName"].(string); name != "" {
		if err := printController(ctx, out, w.Cluster, ns, name); err != nil {
			return err
		}
	}
	// The generation's custom resources (NodePool/EC2NodeClass v1 or v1beta1, or
	// Provisioner/AWSNodeTemplate), in state order.
	seen := map[string]bool{}
	for _, r := range state {
		gvk, ok := customResourceKind(r.Type)
		if !ok || seen[r.Type] {
			continue
		}
		seen[r.Type] = true
		m, err := w.Cluster.Mapping(gvk)
		if err != nil {
			return err
		}
		gvr := m.Resource
		heading(out, "kubectl get %s.%s.%s -o wide", gvr.Resource, gvr.Version, gvr.Group)
		if err := printTable(ctx, out, w.ControlPlane, gvr); err != nil {
			return err
		}
	}
	return nil
}

// customResourceKind is the kind of a kubernetes:<group>/<version>:<Kind> type token of a
// Karpenter API group.
func customResourceKind(token string) (schema.GroupVersionKind, bool) {
	parts := strings.Split(token, ":")
	if len(parts) != 3 || parts[0] != "kubernetes" || !strings.HasPrefix(parts[1], "karpenter.") {
		return schema.GroupVersionKind{}, false
	}
	gv, err := schema.ParseGroupVersion(parts[1])
	if err != nil {
		return schema.GroupVersionKind{}, false
	}
	return gv.WithKind(parts[2]), true
}

// printController shows the controller's wiring: the settings the chart turned into env vars
// (or, before v0.32, the karpenter-global-settings ConfigMap) and the IRSA role on its service
// account.
func printController(ctx context.Context, w io.Writer, c *harness.Cluster, ns, release string) error {
	st, err := c.ReleaseStatus(ns, release)
	if err != nil {
		return err
	}
	for _, doc := range strings.Split(st.Manifest, "\n---") {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(doc), &m); err != nil || m["kind"] != "Deployment" {
			continue
		}
		meta, _ := m["metadata"].(map[string]any)
		name, _ := meta["name"].(string)
		dep, err := c.Dynamic.Resource(schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}).
			Namespace(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		tmpl, _, _ := unstructured.NestedMap(dep.Object, "spec", "template")
		var pt corev1.PodTemplateSpec
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(tmpl, &pt); err != nil {
			return err
		}
		heading(w, "Controller: deployment %s/%s, %d/%d replicas available", ns, name, availableReplicas(dep), replicas(dep))
		cm, err := c.Dynamic.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).
			Namespace(ns).Get(ctx, "karpenter-global-settings", metav1.GetOptions{})
		if err == nil {
			data, _, _ := unstructured.NestedStringMap(cm.Object, "data")
			fmt.Fprintf(w, "  configmap %s/karpenter-global-settings\n", ns)
			for _, k := range slices.Sorted(maps.Keys(data)) {
				if strings.HasPrefix(k, "aws.") && data[k] != "" {
					fmt.Fprintf(w, "    %s=%s\n", k, data[k])
				}
			}
		}
		for _, ctr := range pt.Spec.Containers {
			fmt.Fprintf(w, "  container %s image %s\n", ctr.Name, ctr.Image)
			for _, e := range ctr.Env {
				if e.Value != "" {
					fmt.Fprintf(w, "    %s=%s\n", e.Name, e.Value)
				}
			}
		}
		sa, err := c.Dynamic.Resource(schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}).
			Namespace(ns).Get(ctx, pt.Spec.ServiceAccountName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "  serviceaccount %s/%s\n", ns, sa.GetName())
		for _, k := range slices.Sorted(maps.Keys(sa.GetAnnotations())) {
			fmt.Fprintf(w, "    %s: %s\n", k, sa.GetAnnotations()[k])
		}
		if err := printPods(ctx, w, c, ns, pt.Labels); err != nil {
			return err
		}
	}
	return nil
}

func replicas(dep *unstructured.Unstructured) int64 {
	n, _, _ := unstructured.NestedInt64(dep.Object, "spec", "replicas")
	return n
}

func availableReplicas(dep *unstructured.Unstructured) int64 {
	n, _, _ := unstructured.NestedInt64(dep.Object, "status", "availableReplicas")
	return n
}

// printPods is `kubectl get pods -o wide` of the controller's pods (selected by its template's
// labels): scheduled by kube-scheduler onto the system nodes, Running and Ready through kwok.
func printPods(ctx context.Context, w io.Writer, c *harness.Cluster, ns string, labels map[string]string) error {
	var sel []string
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		sel = append(sel, k+"="+labels[k])
	}
	pods, err := c.Dynamic.Resource(schema.GroupVersionResource{Version: "v1", Resource: "pods"}).Namespace(ns).
		List(ctx, metav1.ListOptions{LabelSelector: strings.Join(sel, ",")})
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)
	fmt.Fprintln(tw, "  POD\tSTATUS\tREADY\tNODE\tIP")
	for _, p := range pods.Items {
		var pod corev1.Pod
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(p.Object, &pod); err != nil {
			return err
		}
		ready := "false"
		for _, cond := range pod.Status.Conditions {
			if cond.Type == corev1.PodReady && cond.Status == corev1.ConditionTrue {
				ready = "true"
			}
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", pod.Name, pod.Status.Phase, ready, pod.Spec.NodeName, pod.Status.PodIP)
	}
	return tw.Flush()
}

// printTable is `kubectl get RESOURCE -o wide`: the API server renders the table from the
// CRD's additionalPrinterColumns (as it does for kubectl), and wide shows every column.
func printTable(ctx context.Context, w io.Writer, cp *harness.ControlPlane, gvr schema.GroupVersionResource) error {
	cs, err := kubernetes.NewForConfig(cp.Config)
	if err != nil {
		return err
	}
	raw, err := cs.Discovery().RESTClient().Get().
		AbsPath("/apis", gvr.Group, gvr.Version, gvr.Resource).
		SetHeader("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io").
		DoRaw(ctx)
	if err != nil {
		return err
	}
	var table metav1.Table
	if err := json.Unmarshal(raw, &table); err != nil {
		return err
	}
	if len(table.Rows) == 0 {
		fmt.Fprintln(w, "No resources found")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)
	var hdr []string
	for _, col := range table.ColumnDefinitions {
		hdr = append(hdr, strings.ToUpper(col.Name))
	}
	fmt.Fprintln(tw, strings.Join(hdr, "\t"))
	for _, row := range table.Rows {
		var cells []string
		for _, cell := range row.Cells {
			s := fmt.Sprint(cell)
			if cell == nil || s == "" {
				s = "<none>" // as kubectl prints missing values
			}
			cells = append(cells, s)
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}
