// Command demo is `make demo`: a real `pulumi up` of the Karpenter component, with no AWS account.
//
// The Pulumi CLI and the YAML language host (built from the Go module proxy by `make e2e-deps`)
// run the engine tests' YAML program (tests/e2e/lab/programs/program.yaml); the engine starts the
// component plugin (bin/pulumi-resource-karpenter) and calls its Construct over gRPC; the
// component's children go to the real pulumi-kubernetes provider (4.25.0, installed as the 4.30.0
// the component requests), against a local cluster (etcd, kube-apiserver, kube-controller-manager,
// kube-scheduler; kwok standing in for the kubelets of three system nodes) that pulls the real
// Karpenter charts from a private OCI registry on loopback, and to a stand-in pulumi-aws plugin
// against a local moto server. The demo prints the engine's output, what the cluster and moto
// then hold, and runs `pulumi destroy`.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
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

func main() {
	root, err := harness.RepoRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
	argsFile := flag.String("args", "", "extra component inputs (JSON or YAML, e.g. a render args file; clusterName and oidcProviderArn come from the program)")
	parts := flag.Bool("parts", false, "print what the engine tests and the demo run for real and what stands in, and exit")
	flag.Parse()
	if *parts {
		tools, err := lab.FindTools()
		if err != nil {
			fmt.Fprintln(os.Stderr, "demo:", err)
			os.Exit(1)
		}
		fmt.Printf("What runs (tests/e2e/README.md):\n  %s\n", strings.Join(lab.Parts(tools), "\n  "))
		return
	}

	// Ctrl-C still tears moto and the API server down (the deferred Close runs).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if _, err := run(ctx, os.Stdout, root, *argsFile, nil); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		stop()
		os.Exit(1)
	}
}

// result is what the demo saw, for its test.
type result struct {
	Up, Destroy string         // the engine's output
	Outputs     map[string]any // the stack outputs after `up`
	// Leftovers: what moto and the API server held after `pulumi destroy` that they did not
	// hold before `up` (empty when the destroy was complete).
	Leftovers []string
	// RemovedWebhooks: the admission webhook configurations the world removed (lab.WebhookRemover).
	RemovedWebhooks []string
	// Launched is the instance Karpenter launched for the workload (empty when none was).
	Launched lab.Instance
}

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

// run does the demo, printing to out: `pulumi up` of the program with the inputs of argsFile
// (optional) added, the API server's and moto's view, then `pulumi destroy`. It builds the
// stand-in plugins unless given them.
func run(ctx context.Context, out io.Writer, root, argsFile string, standIns *lab.StandIns) (*result, error) {
	res := &result{}
	extra := ""
	var ignored []string
	if argsFile != "" {
		doc, err := os.ReadFile(argsFile)
		if err != nil {
			return nil, err
		}
		if extra, ignored, err = lab.InputsYAML(doc); err != nil {
			return nil, fmt.Errorf("%s: %w", argsFile, err)
		}
	}
	if regexp.MustCompile(`(?m)^chartRepository:`).MatchString(extra) {
		// The charts come from the world's registry, whatever a render args file names.
		extra = regexp.MustCompile(`(?m)^chartRepository:.*\n`).ReplaceAllString(extra, "")
		ignored = append(ignored, "chartRepository")
	}
	tools, err := lab.FindTools()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "karpenter-demo-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)

	heading(out, "What runs here (no AWS account, no cluster)")
	version, err := lab.PluginVersion(tools.Provider)
	if err != nil {
		return nil, err
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	for _, line := range lab.Parts(tools) {
		kind, what, _ := strings.Cut(line, ": ")
		fmt.Fprintf(tw, "  %s\t%s\n", kind, what)
	}
	fmt.Fprintf(tw, "  %s\t%s\n", "", "(component plugin "+version+": "+rel(root, tools.Provider)+"; program: "+
		rel(root, filepath.Join(root, "tests", "e2e", "lab", "programs", "program.yaml"))+")")
	tw.Flush()
	if extra != "" {
		fmt.Fprintf(out, "\nComponent inputs from %s:\n%s", rel(root, argsFile), indent(extra, "  "))
	}
	if len(ignored) > 0 {
		fmt.Fprintf(out, "(not taken from %s: %s — the program sets them)\n", rel(root, argsFile), strings.Join(ignored, ", "))
	}

	heading(out, "Building the aws stand-in, starting moto, the cluster and the registry")
	start := time.Now()
	if standIns == nil {
		built, err := lab.BuildStandIns(ctx, filepath.Join(dir, "standins"))
		if err != nil {
			return nil, err
		}
		standIns = &built
	}
	w, err := lab.NewWorld(ctx, filepath.Join(dir, "world"), tools, *standIns)
	if err != nil {
		return nil, err
	}
	defer func() {
		w.Close()
		heading(out, "Stopped moto, the cluster and the registry")
	}()
	fmt.Fprintf(out, "moto at %s, API server at %s, charts at %s, plugins installed (%s)\n", w.Moto.URL, w.ControlPlane.URL,
		w.ChartRepository(), time.Since(start).Round(100*time.Millisecond))
	baseline, err := lab.SnapshotKubernetes(ctx, w.ControlPlane.Config)
	if err != nil {
		return nil, err
	}
	if err := printNodes(ctx, out, w.ControlPlane); err != nil {
		return nil, err
	}
	// The real Karpenter controller in the loop. It launches nodes only from a node class it can
	// resolve here (an image moto has, subnets tagged by the component): the loop's inputs, used
	// unless the extra inputs configure pools, classes or tags themselves.
	loop, err := w.StartLoop(filepath.Join(dir, "loop"))
	if err != nil {
		return nil, err
	}
	defer loop.Close()
	launch := true
	if m := regexp.MustCompile(`(?m)^version:\s*"?([^"\s]+)`).FindStringSubmatch(extra); m != nil && m[1] != strings.TrimPrefix(lab.KarpenterVersion, "v") {
		launch = false
		fmt.Fprintf(out, "(Karpenter %s: the controller here is %s, so no controller runs and no node is launched.)\n", m[1], lab.KarpenterVersion)
	} else if regexp.MustCompile(`(?m)^(nodePools|nodeClasses|tags|defaultNodePool):`).MatchString(extra) {
		launch = false
		fmt.Fprintln(out, "(The extra inputs configure node pools, classes or tags: the demo launches no node with them.)")
	}
	inputs := extra
	if launch {
		inputs = loop.Inputs("") + extra
		fmt.Fprintf(out, "Component inputs for the controller in the loop (the cluster's VPC %s in moto):\n%s", loop.VPC.ID, indent(loop.Inputs(""), "  "))
	}
	// The program tags the VPC for discovery, unless the extra inputs name their own.
	ownDiscovery := regexp.MustCompile(`(?m)^discovery:`).MatchString(extra)
	program, err := w.Program(lab.ProgramOptions{Inputs: w.WithChartRepository(inputs), NoDiscovery: ownDiscovery})
	if err != nil {
		return nil, err
	}
	if err := w.NewStack(program); err != nil {
		return nil, err
	}

	heading(out, "pulumi up")
	w.Engine.Echo = out
	stdout, stderr, err := w.Engine.RunContext(ctx, "up", "--yes", "--non-interactive")
	res.Up = stdout
	w.Engine.Echo = nil
	if err != nil {
		return res, fmt.Errorf("%w\n%s", err, stderr)
	}
	heading(out, "pulumi stack (the resources, as the engine parented them)")
	tree, stderr, err := w.Engine.RunContext(ctx, "stack", "--show-urns=false")
	if err != nil {
		return res, fmt.Errorf("%w\n%s", err, stderr)
	}
	fmt.Fprint(out, tree)
	outputs, _, err := w.Engine.RunContext(ctx, "stack", "output", "--json")
	if err != nil {
		return res, err
	}
	if err := json.Unmarshal([]byte(outputs), &res.Outputs); err != nil {
		return res, err
	}

	state, err := w.StateResources()
	if err != nil {
		return res, err
	}
	if err := printKubernetes(ctx, out, w, state, res.Outputs); err != nil {
		return res, err
	}
	inv, err := lab.ReadAWS(ctx, w.AWS, w.StateDir)
	if err != nil {
		return res, err
	}
	printAWS(out, inv)

	cs, err := kubernetes.NewForConfig(w.ControlPlane.Config)
	if err != nil {
		return res, err
	}
	if launch {
		heading(out, "Karpenter launches a node for pending pods (kubectl scale deployment/%s --replicas 2)", lab.WorkloadName)
		if err := lab.ScaleWorkload(ctx, cs, 2); err != nil {
			return res, err
		}
		start := time.Now()
		inst, err := lab.WaitWorkload(ctx, cs, w.AWS, 2, 3*time.Minute)
		if err != nil {
			fmt.Fprintf(out, "controller:\n%s\n%s\n", strings.Join(loop.Controller.History(), "\n"), loop.Controller.LogTail(30))
			return res, err
		}
		res.Launched = inst
		fmt.Fprintf(out, "The pods run on a node of instance %s (%s, %s, %s) after %s.\n", inst.ID, inst.Type, inst.Lifecycle, inst.Zone,
			time.Since(start).Round(time.Second))
		if err := printLaunch(ctx, out, w, cs); err != nil {
			return res, err
		}
	}

	heading(out, "pulumi destroy --skip-preview")
	w.Engine.Echo = out
	stdout, stderr, err = w.Engine.RunContext(ctx, "destroy", "--yes", "--non-interactive", "--skip-preview")
	res.Destroy = stdout
	w.Engine.Echo = nil
	if err != nil {
		return res, fmt.Errorf("%w\n%s", err, stderr)
	}
	after, err := lab.ReadAWS(ctx, w.AWS, w.StateDir)
	if err != nil {
		return res, err
	}
	instances, templates, err := lab.ReadEC2(ctx, w.AWS)
	if err != nil {
		return res, err
	}
	heading(out, "AWS (moto) after the destroy: EC2 instances and launch templates")
	tw = tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "INSTANCE\tTYPE\tLIFECYCLE\tSTATE")
	for _, i := range instances {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", i.ID, i.Type, i.Lifecycle, i.State)
		if i.State != "terminated" {
			res.Leftovers = append(res.Leftovers, "EC2 instance "+i.ID+" "+i.State)
		}
	}
	tw.Flush()
	for _, t := range templates {
		fmt.Fprintf(out, "launch template %s\n", t.Name)
		res.Leftovers = append(res.Leftovers, "launch template "+t.Name)
	}
	if len(templates) == 0 {
		fmt.Fprintln(out, "(no launch template)")
	}
	if h := loop.Controller.History(); len(h) > 0 {
		fmt.Fprintf(out, "The controller process:\n%s\n", indent(strings.Join(h, "\n"), "  "))
	}
	// The workload is the user's, not the stack's.
	if err := lab.DeleteWorkload(ctx, cs); err != nil {
		return res, err
	}
	left, err := settled(ctx, w, baseline)
	if err != nil {
		return res, err
	}
	res.Leftovers = append(append(res.Leftovers, after.Leftovers()...), left...)
	res.RemovedWebhooks = w.Webhooks.Removed()
	if len(res.RemovedWebhooks) > 0 {
		heading(out, "Admission webhooks removed (their server, the controller pod, does not run here)")
		for _, h := range res.RemovedWebhooks {
			fmt.Fprintf(out, "  %s\n", h)
		}
	}
	if len(res.Leftovers) == 0 {
		fmt.Fprintln(out, "\nAfter the destroy moto holds nothing but the cluster's VPC, and the cluster what it held at its start.")
		return res, nil
	}
	// Helm never deletes the CRDs of a chart's crds/ directory (the Provisioner era installs
	// them so), nor a namespace a release created: a destroy leaves them, as it would on EKS.
	heading(out, "Left behind after the destroy")
	for _, l := range res.Leftovers {
		fmt.Fprintf(out, "  %s\n", l)
	}
	fmt.Fprintln(out, "(Helm keeps a chart's crds/ CRDs, the API server their APIServices, and a namespace a release created,"+
		" with the default ServiceAccount and kube-root-ca.crt ConfigMap the controller manager puts in every namespace.)")
	return res, nil
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func heading(w io.Writer, format string, a ...any) {
	fmt.Fprintf(w, "\n== "+format+"\n", a...)
}

func rel(root, p string) string {
	if r, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}

func indent(s, prefix string) string {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString(prefix + line + "\n")
	}
	return b.String()
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

// printAWS is the AWS inventory: what moto holds (read with the AWS SDK, not through the
// stand-in), then the stand-in's EKS record.
func printAWS(w io.Writer, inv *lab.AWSInventory) {
	heading(w, "AWS (moto): IAM roles")
	for _, r := range inv.Roles {
		fmt.Fprintf(w, "%s\n", r.Name)
		for _, line := range statements("trust", r.AssumeRolePolicy)[1:] {
			fmt.Fprintf(w, "  trust%s\n", line)
		}
		for _, a := range r.AttachedPolicyArns {
			fmt.Fprintf(w, "  attached %s\n", shortArn(a))
		}
	}

	heading(w, "AWS (moto): customer-managed IAM policies")
	for _, p := range inv.Policies {
		fmt.Fprintf(w, "%s (default %s, attached %d)\n", p.Name, p.DefaultVersion, p.AttachmentCount)
		for _, line := range statements("  policy", p.Document) {
			fmt.Fprintf(w, "  %s\n", line)
		}
	}

	heading(w, "AWS (moto): instance profiles, OIDC providers")
	for _, p := range inv.InstanceProfiles {
		fmt.Fprintf(w, "instance profile %s: role %s\n", p.Name, strings.Join(p.Roles, ", "))
	}
	for _, p := range inv.OIDCProviders {
		fmt.Fprintf(w, "OIDC provider %s\n", p)
	}

	heading(w, "AWS (moto): SQS queues, EventBridge rules")
	for _, q := range inv.Queues {
		a := q.Attributes
		fmt.Fprintf(w, "queue %s: retention %ss, SSE %s\n", q.Name, a["MessageRetentionPeriod"], a["SqsManagedSseEnabled"])
		for _, line := range statements("policy", a["Policy"]) {
			fmt.Fprintf(w, "  %s\n", line)
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RULE\tPATTERN\tTARGET")
	for _, r := range inv.Rules {
		var targets []string
		for _, t := range r.Targets {
			targets = append(targets, t.ID+" -> "+shortArn(t.Arn))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.Name, compact(decode(r.EventPattern), 90), strings.Join(targets, ", "))
	}
	tw.Flush()

	heading(w, "EKS (the aws stand-in's record: moto has no access entries, add-ons or pod identity)")
	none := true
	for _, l := range [][2]any{{"access entry", inv.AccessEntries}, {"add-on", inv.Addons}, {"pod identity association", inv.PodIdentityAssociations}} {
		for _, e := range l[1].([]string) {
			fmt.Fprintf(w, "%s %s\n", l[0], e)
			none = false
		}
	}
	if none {
		fmt.Fprintln(w, "(none)")
	}
}

// shortArn drops the partition and account of an ARN: arn:aws:iam::aws:policy/X -> iam::aws:policy/X.
func shortArn(arn string) string {
	if parts := strings.SplitN(arn, ":", 4); len(parts) == 4 && parts[0] == "arn" {
		return parts[2] + ":" + parts[3]
	}
	return arn
}

// statements renders an IAM policy document one statement per line, after a summary line.
func statements(label string, v any) []string {
	doc, ok := decode(v).(map[string]any)
	if !ok {
		return []string{label + ": " + compact(v, 100)}
	}
	var sts []any
	switch s := doc["Statement"].(type) {
	case []any:
		sts = s
	case map[string]any:
		sts = []any{s}
	}
	size := len(compact(doc, 1<<20))
	out := []string{fmt.Sprintf("%s: %d statements, %d characters", label, len(sts), size)}
	for _, s := range sts {
		st, _ := s.(map[string]any)
		line := fmt.Sprintf("  %v %s", st["Effect"], compact(st["Action"], 70))
		if sid, ok := st["Sid"].(string); ok {
			line = "  " + sid + ":" + line[1:]
		}
		if p, ok := st["Principal"]; ok {
			line += " by " + compact(p, 120)
		}
		if cond, ok := st["Condition"]; ok {
			line += " if " + compact(cond, 200)
		}
		out = append(out, line)
	}
	return out
}

// decode parses a JSON document given as a string; anything else is returned as is.
func decode(v any) any {
	s, ok := v.(string)
	if !ok {
		return v
	}
	var out any
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return v
	}
	return out
}

func compact(v any, max int) string {
	var s string
	if str, ok := v.(string); ok {
		s = str
	} else {
		b, _ := json.Marshal(v)
		s = string(b)
	}
	if len(s) > max {
		s = s[:max-3] + "..."
	}
	return s
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
