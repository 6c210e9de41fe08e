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
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/lab"
	"k8s.io/client-go/kubernetes"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/internal/repo"
)

func main() {
	root, err := repo.Root()
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
