package lab

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/render/format"
)

// The programs and measurements of the engine benchmarks (tests/e2e/engine_bench_test.go, `make
// bench`): the component against the same children declared inline, and a fleet of components in
// one stack.

// BenchProviders is the programs' explicit providers, as programs/program.yaml declares them.
const BenchProviders = `resources:
  awsProvider:
    type: pulumi:providers:aws
    properties:
      region: us-west-2
    options:
      version: 6.83.2
  k8sProvider:
    type: pulumi:providers:kubernetes
    options:
      version: 4.30.0
`

// ClustersProgram makes EKS clusters named names in the world's VPC, as a platform team's cluster
// stack does, each with its IAM OIDC provider (stack output <name>: its ARN), for the benchmarks'
// components to be added to: clusters that exist, which the component reads at every preview.
func ClustersProgram(vpc *VPC, names []string) string {
	var b strings.Builder
	b.WriteString(BenchProviders)
	b.WriteString(`  clusterRole:
    type: aws:iam:Role
    properties:
      namePrefix: bench-cluster-
      assumeRolePolicy: '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"eks.amazonaws.com"},"Action":["sts:AssumeRole","sts:TagSession"]}]}'
    options:
      provider: ${awsProvider}
`)
	outputs := "outputs:\n"
	for _, name := range names {
		fmt.Fprintf(&b, `  %[1]s:
    type: aws:eks:Cluster
    properties:
      name: %[1]s
      roleArn: ${clusterRole.arn}
      vpcConfig:
        subnetIds: [%[2]s]
      accessConfig:
        authenticationMode: API_AND_CONFIG_MAP
    options:
      provider: ${awsProvider}
  %[1]s-oidc:
    type: aws:iam:OpenIdConnectProvider
    properties:
      url: ${%[1]s.identities[0].oidcs[0].issuer}
      clientIdLists: [sts.amazonaws.com]
    options:
      provider: ${awsProvider}
`, name, strings.Join(vpc.SubnetIDs, ", "))
		outputs += fmt.Sprintf("  %[1]s: ${%[1]s-oidc.arn}\n", name)
	}
	return b.String() + outputs
}

// MakeClusters makes the clusters of ClustersProgram with `pulumi up` of the stack "clusters" (of
// the project, which the caller's next NewProject rewrites), and returns their OIDC providers' ARNs
// by cluster name.
func (w *World) MakeClusters(names []string) (map[string]string, error) {
	if _, err := w.Engine.NewProject(ProjectName, ClustersProgram(w.VPC, names)); err != nil {
		return nil, err
	}
	if err := w.Engine.NewStack("clusters"); err != nil {
		return nil, err
	}
	if stdout, stderr, err := w.Engine.Run("up", "--yes", "--non-interactive", "--skip-preview"); err != nil {
		lines := strings.Split(stdout, "\n")
		return nil, fmt.Errorf("making the clusters: %w\n%s\n%s", err, strings.Join(lines[max(0, len(lines)-40):], "\n"), stderr)
	}
	stdout, stderr, err := w.Engine.Run("stack", "output", "--json")
	if err != nil {
		return nil, fmt.Errorf("%w\n%s", err, stderr)
	}
	arns := map[string]string{}
	return arns, json.Unmarshal([]byte(stdout), &arns)
}

// ComponentProgram is one Karpenter component with plain inputs (JSON object, schema names),
// given both providers: the component side of the inline comparison.
func ComponentProgram(inputs map[string]any) (string, error) {
	props, err := yaml.Marshal(escapeInterpolation(inputs))
	if err != nil {
		return "", err
	}
	return BenchProviders + "  karpenter:\n    type: karpenter:Karpenter\n    properties:\n" + indent(string(props), 6) +
		"    options:\n      providers:\n        - ${awsProvider}\n        - ${k8sProvider}\n", nil
}

// renderedChildren is `pulumi-resource-karpenter render`'s JSON, which InlineProgram reads.
type (
	renderedChildren = format.Rendered
	renderedChild    = format.Resource
)

// InlineProgram is a YAML program declaring, without the component, the children a render lists
// (`pulumi-resource-karpenter render` JSON): the same types, names, inputs and dependencies, each
// with the program's explicit aws or kubernetes provider (the component hands its providers down
// the same way); the stack is their parent. It is the honest lower bound of what the component
// costs: what a user writing every resource by hand would run. Refused: a render with secrets
// (render masks them), reads of existing objects, and custom resources (NodePools and node
// classes), which a YAML program cannot declare beside the chart of their CRDs.
func InlineProgram(rendered []byte) (string, error) {
	var r renderedChildren
	if err := json.Unmarshal(rendered, &r); err != nil {
		return "", fmt.Errorf("reading the render: %w", err)
	}
	if len(r.Resources) == 0 {
		return "", fmt.Errorf("the render lists no children")
	}
	queue := ""
	for _, res := range r.Resources {
		if res.Type == "aws:sqs/queue:Queue" {
			queue = res.Name
		}
	}
	var b strings.Builder
	b.WriteString(BenchProviders)
	for _, res := range r.Resources {
		if res.ReadID != "" {
			return "", fmt.Errorf("%s: reads %s, which an inline program would declare with `get`; not supported", res.Name, res.ReadID)
		}
		if strings.Contains(string(MustJSON(res.Inputs)), `"[secret]"`) {
			return "", fmt.Errorf("%s: render masks its secret inputs", res.Name)
		}
		if customResourceType(res.Type) {
			// pulumi-yaml type-checks every resource against its package's schema, which has no
			// custom resource types (and CustomResource is an SDK overlay YAML lacks); the
			// kubernetes provider's ConfigGroup cannot preview an object whose CRD the same
			// program installs ("failed to determine if the following GVK is namespaced").
			return "", fmt.Errorf("%s: a %s cannot be declared in a YAML program that installs its CRDs; render with defaultNodePool: false and no nodePools or nodeClasses", res.Name, res.Type)
		}
		provider := "awsProvider"
		if strings.HasPrefix(res.Type, "kubernetes:") {
			provider = "k8sProvider"
		}
		inputs := escapeInterpolation(res.Inputs).(map[string]any)
		if url, _ := r.Outputs["interruptionQueueUrl"].(string); queue != "" && inputs["queueUrl"] == url {
			// The one input the component takes from an output AWS makes up (a queue URL's host
			// is the endpoint's); every other name and ARN is known before anything exists.
			inputs["queueUrl"] = "${" + queue + ".url}"
		}
		propsYAML, err := yaml.Marshal(inputs)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "  %s:\n    type: %s\n    properties:\n%s    options:\n      provider: ${%s}\n", res.Name, res.Type, indent(string(propsYAML), 6), provider)
		if len(res.DependsOn) > 0 {
			b.WriteString("      dependsOn:\n")
			for _, d := range res.DependsOn {
				fmt.Fprintf(&b, "        - ${%s}\n", d)
			}
		}
		if res.RetainOnDelete {
			b.WriteString("      retainOnDelete: true\n")
		}
	}
	return b.String(), nil
}

// customResourceType says whether a child's type is a Kubernetes custom resource (a NodePool,
// EC2NodeClass, Provisioner, ...): a kubernetes type of a group the provider's schema lacks.
func customResourceType(typ string) bool {
	group, _, _ := strings.Cut(strings.TrimPrefix(typ, "kubernetes:"), "/")
	return strings.HasPrefix(typ, "kubernetes:") && strings.Contains(group, ".") && !strings.HasSuffix(group, ".k8s.io") && group != "helm.sh"
}

// FleetMember is the name of a fleet program's i-th cluster: its cluster name and its component's
// (whose standalone pool is "<name>-spot").
func FleetMember(i int) string { return fmt.Sprintf("fleet-%02d", i) }

// FleetProgram is one stack managing n clusters, as a platform team's does: a Karpenter component
// per cluster, each with a node class and pool of its own, and a standalone NodePool per cluster
// (a team's pool on that cluster's class). The world has one API server, so it stands for the n
// clusters: each cluster's Karpenter gets its own namespace and chart fullname (so the chart's
// cluster-scoped RBAC does not collide), one replica with small requests (the three system nodes
// hold n controllers), and the CRDs come from one release of the program (installCrds: false), as
// the CRDs of one cluster can only have one owner. Each component still creates its whole AWS side
// and both kinds of custom resources.
//
// The clusters exist (MakeClusters; oidcArns are their OIDC providers), so each component reads
// its own at every preview; their node classes select the VPC's private subnets by the tag they
// share (one discovery tag value per cluster cannot be on the same three subnets) and the nodes'
// security group by id.
func FleetProgram(n int, chartRepository, version string, vpc *VPC, oidcArns map[string]string) (string, error) {
	var b strings.Builder
	b.WriteString(BenchProviders)
	fmt.Fprintf(&b, `  karpenter-crd:
    type: kubernetes:helm.sh/v3:Release
    properties:
      name: karpenter-crd
      chart: %s/karpenter-crd
      version: %s
      namespace: kube-system
    options:
      provider: ${k8sProvider}
`, chartRepository, version)
	for i := range n {
		m := FleetMember(i)
		inputs := map[string]any{
			"clusterName":     m,
			"oidcProviderArn": oidcArns[m],
			"chartRepository": chartRepository,
			"version":         version,
			"namespace":       "karpenter-" + m,
			"installCrds":     false,
			"tags":            map[string]any{"cluster": m},
			"nodeClasses": []any{map[string]any{"name": m,
				"subnetSelectorTerms":        []any{map[string]any{"tags": map[string]any{"kubernetes.io/role/internal-elb": "1"}}},
				"securityGroupSelectorTerms": []any{map[string]any{"id": vpc.SecurityGroupID}}}},
			"nodePools": []any{map[string]any{"name": m + "-general", "nodeClassRef": m,
				"limits": map[string]any{"cpu": "1000"}}},
			"values": map[string]any{
				"fullnameOverride": "karpenter-" + m,
				"replicas":         1,
				"controller": map[string]any{"resources": map[string]any{
					"requests": map[string]any{"cpu": "50m", "memory": "64Mi"},
					"limits":   map[string]any{"cpu": "1", "memory": "1Gi"}}},
			},
		}
		props, err := yaml.Marshal(inputs)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "  %s:\n    type: karpenter:Karpenter\n    properties:\n%s", m, indent(string(props), 6))
		b.WriteString("    options:\n      providers:\n        - ${awsProvider}\n        - ${k8sProvider}\n      dependsOn:\n        - ${karpenter-crd}\n")
		fmt.Fprintf(&b, `  %[1]s-spot:
    type: karpenter:NodePool
    properties:
      version: ${%[1]s.version}
      spec:
        name: %[1]s-spot
        nodeClassRef: %[1]s
        requirements:
          - key: karpenter.sh/capacity-type
            operator: In
            values: [spot]
        limits:
          cpu: "100"
    options:
      providers:
        - ${k8sProvider}
      dependsOn:
        - ${%[1]s}
`, m)
	}
	return b.String(), nil
}

// escapeInterpolation doubles the `$` of every `${` in strings: pulumi-yaml would read it as an
// interpolation, the component sends it as written.
func escapeInterpolation(v any) any {
	switch v := v.(type) {
	case string:
		return strings.ReplaceAll(v, "${", "$${")
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = escapeInterpolation(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = escapeInterpolation(e)
		}
		return out
	}
	return v
}

// indent indents every line of s by n spaces, for a YAML block nested n deep; blank lines stay
// blank (inside a literal block they are part of the string).
func indent(s string, n int) string {
	pad := strings.Repeat(" ", n)
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if line != "" {
			b.WriteString(pad + line)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// MustJSON is v as JSON, for values that always marshal (the engine's properties, a program's
// inputs): a marshalling error gives nil.
func MustJSON(v any) []byte {
	data, _ := json.Marshal(v)
	return data
}

// MaxInFlight is the largest number of calls running at once among calls (completed entries of
// the gRPC log, each ending at its Timestamp after its Duration).
func MaxInFlight(calls GRPCLog) int {
	type edge struct {
		at    time.Time
		delta int
	}
	var edges []edge
	for _, c := range calls {
		edges = append(edges, edge{c.Timestamp.Add(-c.Duration), +1}, edge{c.Timestamp, -1})
	}
	// At equal times an end comes before a start: calls that touch did not overlap.
	slices.SortFunc(edges, func(a, b edge) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return a.delta - b.delta
	})
	running, most := 0, 0
	for _, e := range edges {
		running += e.delta
		most = max(most, running)
	}
	return most
}

// Usage is what the processes of one kind used during a command, sampled from /proc.
type Usage struct {
	Processes int           // processes of the kind seen
	PeakRSS   int64         // the largest VmHWM (peak resident set) of any of them, bytes
	CPU       time.Duration // user + system time they spent while sampled
}

// processKinds are the process kinds a ProcessSampler tells apart, in the order it reports them,
// each with the executable name it goes by: what runs a deployment here.
var processKinds = []struct{ kind, exe string }{
	{"engine", "pulumi"},                         // the CLI: plans, state, the resource monitor
	{"yaml-host", "pulumi-language-yaml"},        // runs the program
	{"component", "pulumi-resource-karpenter"},   // this plugin
	{"kubernetes", "pulumi-resource-kubernetes"}, // the real provider, and its Helm
	{"aws-standin", "pulumi-resource-aws"},
	{"moto", "motoserver.py"}, // moto_server, with the EKS AMI parameters preloaded (world.go)
	{"apiserver", "kube-apiserver"},
	{"etcd", "etcd"},
	{"controllers", "kube-controller-manager"},
	{"scheduler", "kube-scheduler"},
	{"kwok", "kwok"},
}

// ProcessKinds are the kinds a ProcessSampler reports, in a fixed order.
func ProcessKinds() []string {
	var kinds []string
	for _, k := range processKinds {
		kinds = append(kinds, k.kind)
	}
	return kinds
}

// ProcessSampler is a profile of a command by process: every interval it reads /proc for the
// processes of each kind (processKinds) — the engine, the language host, each plugin, and the
// servers standing for AWS and the cluster — and keeps each one's peak RSS and CPU time. A process
// running when sampling starts counts only the CPU it spends after; one started later, all of it.
// VmHWM is the kernel's own high-water mark, so the last sample holds the peak; the CPU time of a
// process that exits misses at most its last interval.
type ProcessSampler struct {
	stop chan struct{}
	done chan map[string]Usage
}

func StartProcessSampler(interval time.Duration) *ProcessSampler {
	s := &ProcessSampler{stop: make(chan struct{}), done: make(chan map[string]Usage, 1)}
	ready := make(chan struct{})
	go s.run(interval, ready)
	<-ready
	return s
}

func (s *ProcessSampler) run(interval time.Duration, ready chan struct{}) {
	type proc struct {
		kind       string
		hwm        int64
		cpu0, cpu1 time.Duration
	}
	procs := map[int]*proc{}
	scan := func(first bool) {
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			p, known := procs[pid]
			if !known {
				kind := processKind(pid)
				if kind == "" {
					continue
				}
				p = &proc{kind: kind}
				procs[pid] = p
			}
			hwm, cpu, err := procUsage(pid)
			if err != nil {
				continue // exited: its last sample stands
			}
			if !known && first {
				p.cpu0 = cpu
			}
			p.hwm, p.cpu1 = hwm, cpu
		}
	}
	scan(true)
	close(ready)
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-s.stop:
			scan(false)
			out := map[string]Usage{}
			for _, p := range procs {
				u := out[p.kind]
				u.Processes++
				u.PeakRSS = max(u.PeakRSS, p.hwm)
				u.CPU += p.cpu1 - p.cpu0
				out[p.kind] = u
			}
			s.done <- out
			return
		case <-tick.C:
			scan(false)
		}
	}
}

// Stop ends the sampling and returns the usage by kind (ProcessKinds).
func (s *ProcessSampler) Stop() map[string]Usage {
	close(s.stop)
	return <-s.done
}

// processKind is the kind of a process by its executable's name (a Python script's for moto), or
// "" for a process of no kind.
func processKind(pid int) string {
	raw, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	if err != nil {
		return ""
	}
	args := strings.Split(string(raw), "\x00")
	name := filepath.Base(args[0])
	if strings.HasPrefix(name, "python") && len(args) > 1 {
		name = filepath.Base(args[1])
	}
	for _, k := range processKinds {
		if k.exe == name {
			return k.kind
		}
	}
	return ""
}

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat's times (100 on Linux).
const clockTicks = 100

// procUsage reads a process's peak RSS (VmHWM) and CPU time (utime + stime).
func procUsage(pid int) (hwm int64, cpu time.Duration, err error) {
	status, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				return 0, 0, fmt.Errorf("/proc/%d/status VmHWM: %w", pid, err)
			}
			hwm = kb * 1024
		}
	}
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, 0, err
	}
	// Fields after the command name (which may hold spaces, in parentheses): utime and stime are
	// the 14th and 15th of the line, the 12th and 13th after ")".
	rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
	f := strings.Fields(rest)
	if len(f) < 13 {
		return 0, 0, fmt.Errorf("/proc/%d/stat: too short", pid)
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("/proc/%d/stat: utime %q stime %q", pid, f[11], f[12])
	}
	return hwm, time.Duration(ut+st) * time.Second / clockTicks, nil
}

// PluginWrapper writes a script that records its PID and exec time, then execs the plugin (which
// keeps the PID): installed as the component plugin, it lets a benchmark find and watch the
// processes the engine starts. The log's lines are "<pid> <unix nanoseconds>".
func PluginWrapper(dir, plugin string) (wrapper, log string, err error) {
	log = filepath.Join(dir, "plugin-exec.log")
	wrapper = filepath.Join(dir, "wrapper", "pulumi-resource-karpenter")
	if err := os.MkdirAll(filepath.Dir(wrapper), 0o755); err != nil {
		return "", "", err
	}
	script := fmt.Sprintf("#!/bin/sh\necho \"$$ $(date +%%s%%N)\" >> '%s'\nexec '%s' \"$@\"\n", log, plugin)
	return wrapper, log, os.WriteFile(wrapper, []byte(script), 0o755)
}
