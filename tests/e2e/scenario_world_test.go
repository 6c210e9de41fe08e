//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/lab"
)

// standIns are built once per test binary (TestMain) and installed into every world's engine.
var standIns lab.StandIns

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "e2e-standins-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	start := time.Now()
	standIns, err = lab.BuildStandIns(context.Background(), dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "built the aws stand-in plugin in %s\n", time.Since(start).Round(100*time.Millisecond))
	code := m.Run()
	os.RemoveAll(dir)
	if code == 0 {
		code = deployerStatementsBite()
	}
	os.Exit(code)
}

// world is a World for one test, with what the test started stopped in t.Cleanup, and the API
// server's objects right after its start (what a destroy must return to).
type world struct {
	*lab.World
	t        *testing.T
	baseline map[lab.KubeObject]bool
	outDir   string // command outputs, kept in the test's temp dir
	n        int
	// clusterVersion is the Kubernetes version of the stack's cluster: later programs keep it
	// (a Karpenter upgrade does not upgrade the cluster).
	clusterVersion string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	tools, err := lab.FindTools()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	dir := t.TempDir()
	w, err := lab.NewWorld(context.Background(), dir, tools, standIns)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	t.Cleanup(func() { checkDeployerCalls(t, w) })
	t.Cleanup(func() {
		if errs := w.Moto.Errors(); t.Failed() && errs != "" {
			t.Logf("moto's tracebacks (%s):\n%s", w.Moto.Log, errs)
		}
	})
	w.Engine.Logf = t.Logf
	base, err := lab.SnapshotKubernetes(context.Background(), w.ControlPlane.Config)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("world ready in %s: moto %s, API server %s", time.Since(start).Round(100*time.Millisecond), w.Moto.URL, w.ControlPlane.URL)
	out := filepath.Join(dir, "out")
	if keep := os.Getenv("E2E_OUT"); keep != "" {
		// Kept after the test: every command's output, for reading a failure.
		out = filepath.Join(keep, strings.ReplaceAll(t.Name(), "/", "_"))
		_ = os.RemoveAll(out)
	}
	return &world{World: w, t: t, baseline: base, outDir: out}
}

// stack creates the project from the program with extra component inputs, and its stack.
func (w *world) stack(extraInputs string) {
	w.t.Helper()
	w.stackWith(lab.ProgramOptions{Inputs: extraInputs})
}

// stackWith creates the project from the program shaped by o, and its stack.
func (w *world) stackWith(o lab.ProgramOptions) {
	w.t.Helper()
	w.clusterVersion = ""
	if err := w.NewStack(w.programText(o)); err != nil {
		w.t.Fatal(err)
	}
}

// programText is the program shaped by o, with the world's chart repository, on the stack's
// cluster (the Kubernetes version its first program chose, ClusterVersionFor).
func (w *world) programText(o lab.ProgramOptions) string {
	w.t.Helper()
	if o.KubernetesVersion == "" {
		o.KubernetesVersion = w.clusterVersion
	}
	if m := lab.VersionInput.FindStringSubmatch(o.Inputs); m != nil && o.KubernetesVersion == "" {
		o.KubernetesVersion, _ = lab.ClusterVersionFor(m[1])
	}
	w.clusterVersion = o.KubernetesVersion
	o.Inputs = w.WithChartRepository(o.Inputs)
	prog, err := w.Program(o)
	if err != nil {
		w.t.Fatal(err)
	}
	return prog
}

// program rewrites the project's program (the next command runs the new one).
func (w *world) program(extraInputs string) {
	w.t.Helper()
	w.programWith(lab.ProgramOptions{Inputs: extraInputs})
}

// programWith rewrites the project's program, shaped by o.
func (w *world) programWith(o lab.ProgramOptions) {
	w.t.Helper()
	if _, err := w.Engine.NewProject(lab.ProjectName, w.programText(o)); err != nil {
		w.t.Fatal(err)
	}
}

// run runs `pulumi args...`; its output is saved under the test's temp dir and logged on failure.
func (w *world) run(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	stdout, stderr, err = w.Engine.Run(args...)
	w.keepOutput(strings.Trim(regexp.MustCompile(`[^a-z]+`).ReplaceAllString(strings.Join(args[:min(2, len(args))], " "), "-"), "-"), stdout, stderr)
	return stdout, stderr, err
}

// keepOutput saves a command's output under the test's output directory as NN-<slug>.txt.
func (w *world) keepOutput(slug, stdout, stderr string) {
	w.n++
	_ = os.MkdirAll(w.outDir, 0o755)
	_ = os.WriteFile(filepath.Join(w.outDir, fmt.Sprintf("%02d-%s.txt", w.n, slug)), []byte(stdout+"\n--- stderr ---\n"+stderr), 0o644)
}

// must runs `pulumi args...` and fails the test (with the output) when it fails.
func (w *world) must(t *testing.T, args ...string) string {
	t.Helper()
	stdout, stderr, err := w.run(t, args...)
	if err != nil {
		t.Fatalf("%v\n--- stdout ---\n%s\n--- stderr ---\n%s", err, stdout, stderr)
	}
	return stdout
}

// preview is `pulumi preview --json`, parsed; it fails the test when the preview fails.
func (w *world) preview(t *testing.T, args ...string) previewResult {
	t.Helper()
	out := w.must(t, append([]string{"preview", "--json", "--non-interactive"}, args...)...)
	var p previewResult
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("pulumi preview --json: %v\n%s", err, out)
	}
	return p
}

func (w *world) up(t *testing.T) string {
	t.Helper()
	return w.must(t, "up", "--yes", "--non-interactive", "--skip-preview")
}

// outputs are the stack's outputs (`pulumi stack output --json`).
func (w *world) outputs(t *testing.T) map[string]any {
	t.Helper()
	var out map[string]any
	if err := json.Unmarshal([]byte(w.must(t, "stack", "output", "--json")), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func (w *world) aws(t *testing.T) *lab.AWSInventory {
	t.Helper()
	inv, err := lab.ReadAWS(context.Background(), w.AWS, w.StateDir)
	if err != nil {
		t.Fatal(err)
	}
	return inv
}

// newKubeObjects is what the API server holds that it did not at the start.
func (w *world) newKubeObjects(t *testing.T) []string {
	t.Helper()
	now, err := lab.SnapshotKubernetes(context.Background(), w.ControlPlane.Config)
	if err != nil {
		t.Fatal(err)
	}
	return lab.NewObjects(w.baseline, now)
}

// rebaseline takes the API server's objects now as what a destroy must return to (after a test
// created what the cluster has before the component, e.g. EKS's aws-auth).
func (w *world) rebaseline(t *testing.T) {
	t.Helper()
	base, err := lab.SnapshotKubernetes(context.Background(), w.ControlPlane.Config)
	if err != nil {
		t.Fatal(err)
	}
	w.baseline = base
}

// settledKubeObjects is newKubeObjects once it is empty, or after 60 s what it still is: what a
// deleted object owned goes in the background (the garbage collector, kwok for pods).
func (w *world) settledKubeObjects(t *testing.T) []string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		objs := w.newKubeObjects(t)
		if len(objs) == 0 || time.Now().After(deadline) {
			return objs
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// assertNothingCreated: moto holds nothing but what allowed names, the API server nothing new,
// and the engine asked no plugin to create anything (but what allowed names "created:<name>").
func (w *world) assertNothingCreated(t *testing.T, allowedAWS ...string) {
	t.Helper()
	allowed := map[string]bool{}
	for _, a := range allowedAWS {
		allowed[a] = true
	}
	for _, l := range w.aws(t).Leftovers() {
		if !allowed[l] {
			t.Errorf("moto holds %s", l)
		}
	}
	if objs := w.newKubeObjects(t); len(objs) > 0 {
		t.Errorf("the API server holds %d new objects: %s", len(objs), strings.Join(objs, ", "))
	}
	ops, err := w.Ops()
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range ops {
		if op.Op == "Create" && !allowed["created:"+op.Name] {
			t.Errorf("the engine asked the %s plugin to create %s %s", op.Plugin, op.Type, op.Name)
		}
	}
}

func (w *world) release(t *testing.T, name string) releaseInfo {
	t.Helper()
	rel, err := w.Cluster.ReleaseStatus("kube-system", name)
	if err != nil {
		t.Fatalf("helm status %s: %v", name, err)
	}
	return releaseInfo{Status: string(rel.Info.Status), Revision: rel.Version, Chart: rel.Chart.Metadata.Version}
}

type releaseInfo struct {
	Status   string
	Revision int
	Chart    string
}

// previewResult is `pulumi preview --json`.
type previewResult struct {
	Steps []struct {
		Op       string `json:"op"`
		URN      string `json:"urn"`
		NewState *struct {
			Type   string         `json:"type"`
			Parent string         `json:"parent"`
			Inputs map[string]any `json:"inputs"`
		} `json:"newState"`
		DiffReasons    []string `json:"diffReasons"`
		ReplaceReasons []string `json:"replaceReasons"`
	} `json:"steps"`
	Diagnostics   []diagnostic   `json:"diagnostics"`
	ChangeSummary map[string]int `json:"changeSummary"`
}

type diagnostic struct {
	URN      string `json:"urn"`
	Message  string `json:"message"`
	Severity string `json:"severity"`
}

// ops maps each resource's name (the URN's last element) to its step's op.
func (p previewResult) ops() map[string]string {
	out := map[string]string{}
	for _, s := range p.Steps {
		out[urnName(s.URN)] = s.Op
	}
	return out
}

// errors are the preview's error diagnostics, colour codes removed.
func (p previewResult) errors() []string {
	var out []string
	for _, d := range p.Diagnostics {
		if strings.Contains(d.Message, lab.KubernetesVersionWarning) {
			continue // the engine saying which kubernetes provider really runs (the README says it too)
		}
		if strings.HasPrefix(d.Severity, "error") || d.Severity == "info#err" {
			out = append(out, stripANSI(d.Message))
		}
	}
	return out
}

var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

func stripANSI(s string) string { return ansi.ReplaceAllString(s, "") }

func urnName(urn string) string { return urn[strings.LastIndex(urn, "::")+2:] }

// unknownSentinel is how the engine serializes an unknown value in `preview --json`.
const unknownSentinel = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"

func hasUnknown(v any) bool {
	b, _ := json.Marshal(v)
	return strings.Contains(string(b), unknownSentinel)
}

// The children of the default install in the engine tests' program (render of
// examples/render/default.json, provider/testdata golden, and the program's discovery tags of the
// VPC's three subnets and security group): 40, by type.
var defaultChildren = map[string]int{
	"aws:ec2/tag:Tag":       4,
	"aws:iam/role:Role":     2,
	"aws:iam/policy:Policy": 6,
	"aws:iam/rolePolicyAttachment:RolePolicyAttachment": 10,
	"aws:iam/instanceProfile:InstanceProfile":           1,
	"aws:eks/accessEntry:AccessEntry":                   1,
	"aws:sqs/queue:Queue":                               1,
	"aws:sqs/queuePolicy:QueuePolicy":                   1,
	"aws:cloudwatch/eventRule:EventRule":                5,
	"aws:cloudwatch/eventTarget:EventTarget":            5,
	"kubernetes:helm.sh/v3:Release":                     2,
	"kubernetes:karpenter.k8s.aws/v1:EC2NodeClass":      1,
	"kubernetes:karpenter.sh/v1:NodePool":               1,
}

func countTypes(types []string) map[string]int {
	out := map[string]int{}
	for _, t := range types {
		out[t]++
	}
	return out
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func strs(v any) []string {
	var out []string
	if l, ok := v.([]any); ok {
		for _, e := range l {
			out = append(out, str(e))
		}
	}
	return out
}

// plannedChildren are the children a preview plans under the Karpenter component — their types
// and, by logical name, their inputs — each of which must be a create.
func plannedChildren(t *testing.T, p previewResult) (types []string, byName map[string]map[string]any) {
	t.Helper()
	var component string
	for _, s := range p.Steps {
		if s.NewState != nil && s.NewState.Type == "karpenter:index:Karpenter" {
			component = s.URN
		}
	}
	byName = map[string]map[string]any{}
	for _, s := range p.Steps {
		if s.NewState != nil && component != "" && s.NewState.Parent == component {
			if s.Op != "create" {
				t.Errorf("%s: op %s, want create", s.URN, s.Op)
			}
			types = append(types, s.NewState.Type)
			byName[urnName(s.URN)] = s.NewState.Inputs
		}
	}
	return types, byName
}

// sortedKeys are the map's keys, sorted.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
