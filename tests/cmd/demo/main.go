// Command demo is `make demo`: it renders the Karpenter component for a sample cluster,
// installs the result into a throwaway local Kubernetes API server with the real Karpenter
// charts and CRDs, prints what a user would look at, and shuts everything down.
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
	"slices"
	"sort"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

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
	argsFile := flag.String("args", filepath.Join(root, "examples", "render", "default.json"), "component inputs (JSON or YAML)")
	flag.Parse()

	// Ctrl-C still tears the API server down (the deferred Stop runs).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Stdout, root, *argsFile); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		stop()
		os.Exit(1)
	}
}

// run renders argsFile, installs the result into a fresh local API server and prints it to out.
func run(ctx context.Context, out io.Writer, root, argsFile string) error {
	bin, err := harness.ProviderBinary()
	if err != nil {
		return err
	}
	heading(out, "Rendering %s", rel(root, argsFile))
	r, err := harness.RunRender(bin, argsFile)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s %q: %d child resources\n", r.Component.Type, r.Component.Name, len(r.Resources))
	printAWS(out, r)

	heading(out, "Starting a local Kubernetes API server (kube-apiserver %s + etcd)", harness.KubernetesVersion)
	dir, err := os.MkdirTemp("", "karpenter-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	start := time.Now()
	cp, err := harness.Start(ctx, dir)
	if err != nil {
		return err
	}
	defer func() {
		cp.Stop()
		heading(out, "Stopped the local API server")
	}()
	fmt.Fprintf(out, "ready at %s in %s\n", cp.URL, time.Since(start).Round(100*time.Millisecond))
	c, err := harness.NewCluster(cp)
	if err != nil {
		return err
	}

	heading(out, "Installing what the component renders (Helm releases, then custom resources)")
	applied, err := c.Install(ctx, r)
	for _, a := range applied {
		switch {
		case a.Release != nil:
			fmt.Fprintf(out, "  helm install %-14s %s\n", a.Release.Name, a.Resource.String("chart")+"@"+a.Resource.String("version"))
		case a.Got != nil && a.Sent == nil:
			fmt.Fprintf(out, "  read    %s %s (exists; the component reads it, nothing creates it)\n", strings.ToLower(a.Got.GetKind()), a.Resource.ReadID)
		case a.Got != nil && a.FieldManager != "":
			fmt.Fprintf(out, "  applied %s %s/%s (server-side apply as %s; read back: matches)\n", strings.ToLower(a.Got.GetKind()), a.Got.GetNamespace(), a.Got.GetName(), a.FieldManager)
		case a.Got != nil:
			fmt.Fprintf(out, "  created %s/%s (read back: matches what was sent)\n", strings.ToLower(a.Got.GetKind()), a.Got.GetName())
		}
		if a.Release != nil {
			for _, w := range c.RemovedWebhooks(a.Release.Name) {
				fmt.Fprintf(out, "  removed %s (served by the controller pod, which cannot run here)\n", w)
			}
		}
	}
	if err != nil {
		return err
	}

	if err := printReleases(ctx, out, c, applied); err != nil {
		return err
	}
	if err := printController(ctx, out, c, applied); err != nil {
		return err
	}
	// The generation's custom resources (NodePool/EC2NodeClass v1 or v1beta1, or
	// Provisioner/AWSNodeTemplate), in render order.
	seen := map[string]bool{}
	for _, res := range r.Resources {
		if !res.IsCustomResource() || seen[res.Type] {
			continue
		}
		seen[res.Type] = true
		m, err := c.Mapping(res.GroupVersionKind())
		if err != nil {
			return err
		}
		gvr := m.Resource
		heading(out, "kubectl get %s.%s.%s -o wide", gvr.Resource, gvr.Version, gvr.Group)
		if err := printTable(ctx, out, cp, m.Resource); err != nil {
			return err
		}
	}
	return nil
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

// printAWS lists the AWS resources with the settings a reviewer checks before `pulumi up`.
func printAWS(w io.Writer, r *harness.Render) {
	heading(w, "AWS resources the component would create (not created here: no AWS account)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TYPE\tNAME\tSETTINGS")
	for _, res := range r.Resources {
		if !strings.HasPrefix(res.Type, "aws:") {
			continue
		}
		settings := summarize(res)
		if len(settings) == 0 {
			settings = []string{"-"}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", shortType(res.Type), res.Name, settings[0])
		for _, s := range settings[1:] {
			fmt.Fprintf(tw, "\t\t%s\n", s)
		}
	}
	tw.Flush()
	if len(r.Outputs) > 0 {
		fmt.Fprintln(w, "\nComponent outputs (names of mocked resources are placeholders until `pulumi up`):")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		keys := make([]string, 0, len(r.Outputs))
		for k := range r.Outputs {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(tw, "  %s\t%s\n", k, compact(r.Outputs[k], 110))
		}
		tw.Flush()
	}
}

// shortType turns "aws:iam/role:Role" into "iam.Role".
func shortType(t string) string {
	parts := strings.Split(t, ":")
	if len(parts) != 3 {
		return t
	}
	return strings.SplitN(parts[1], "/", 2)[0] + "." + parts[2]
}

// Inputs that hold JSON documents and how to show them.
var documents = map[string]func(any) []string{
	"assumeRolePolicy": func(v any) []string { return statements("trust", v) },
	"policy":           func(v any) []string { return statements("policy", v) },
	"eventPattern":     func(v any) []string { return []string{"pattern: " + compact(decode(v), 100)} },
}

// summarize picks the interesting inputs of an AWS resource: documents decoded, scalars
// shown as key=value, long values cut.
func summarize(res harness.Resource) []string {
	var docs, scalars []string
	keys := make([]string, 0, len(res.Inputs))
	for k := range res.Inputs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := res.Inputs[k]
		if f, ok := documents[k]; ok {
			docs = append(docs, f(v)...)
			continue
		}
		switch v.(type) {
		case map[string]any, []any:
			if k == "tags" || k == "tagsAll" {
				continue // the same on every resource; not what distinguishes them
			}
			scalars = append(scalars, k+"="+compact(v, 60))
		default:
			scalars = append(scalars, k+"="+compact(v, 80))
		}
	}
	// Several short settings share a line; documents follow, one statement per line.
	var out []string
	line := ""
	for _, s := range scalars {
		if line != "" && len(line)+len(s) > 100 {
			out = append(out, line)
			line = ""
		}
		if line != "" {
			line += "  "
		}
		line += s
	}
	if line != "" {
		out = append(out, line)
	}
	return append(out, docs...)
}

// statements renders an IAM policy document one statement per line.
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

// printReleases is `helm list`.
func printReleases(ctx context.Context, w io.Writer, c *harness.Cluster, applied []harness.Applied) error {
	heading(w, "helm list -A")
	tw := tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)
	fmt.Fprintln(tw, "NAME\tNAMESPACE\tREVISION\tSTATUS\tCHART\tAPP VERSION\tSOURCE")
	for _, a := range applied {
		if a.Release == nil {
			continue
		}
		st, err := c.ReleaseStatus(a.Release.Namespace, a.Release.Name)
		if err != nil {
			return err
		}
		md := st.Chart.Metadata
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s-%s\t%s\t%s\n", st.Name, st.Namespace, st.Version, st.Info.Status,
			md.Name, md.Version, md.AppVersion, a.Resource.String("chart"))
	}
	return tw.Flush()
}

// printController shows the controller's wiring: the settings the chart turned into env vars
// and the IRSA role on its service account.
func printController(ctx context.Context, w io.Writer, c *harness.Cluster, applied []harness.Applied) error {
	for _, a := range applied {
		if a.Release == nil || a.Release.Chart.Name() != "karpenter" {
			continue
		}
		ns := a.Release.Namespace
		for _, doc := range strings.Split(a.Release.Manifest, "\n---") {
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
			heading(w, "Controller: deployment %s/%s (no nodes here, so no pods run)", ns, name)
			// Before v0.32 the chart passes the settings in this ConfigMap, not in env vars.
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
			ann := sa.GetAnnotations()
			keys := make([]string, 0, len(ann))
			for k := range ann {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				fmt.Fprintf(w, "    %s: %s\n", k, ann[k])
			}
		}
	}
	return nil
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
