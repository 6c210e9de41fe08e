//go:build e2e

package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/lab"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/internal/repo"
)

// TestREADMESnippets runs the three programs of README.md's "## Usage" — the first ```ts,
// ```python and ```yaml fences of that section, read from README.md at test time, as written —
// through the real CLI and engine, each in a world of its own with the real Karpenter controller in
// its loop, for a first day and a second: `pulumi preview`, `pulumi up`; `pulumi refresh`, then a
// preview with nothing to do; a change to pulumi-eks's own inputs (a tag on its node security
// group, an access entry of its own) and `up`, after which pending pods still get a Karpenter node
// that joins the cluster; `pulumi destroy` (snippets_daytwo_test.go has the second day). A snippet
// that would fail at `pulumi up`, or not survive its second day, fails the test.
//
// What runs: the TypeScript snippet compiled by tsc (strict) against the real @pulumi/aws 7.48.0,
// @pulumi/eks 4.3.0, @pulumi/kubernetes 4.34.2 and @pulumi/pulumi of examples/typescript's
// package-lock.json and the release's npm tarball; the Python snippet with the real pulumi,
// pulumi-aws, pulumi-eks and pulumi-kubernetes of tests/docs-code/python/constraints.txt and the
// release's wheel — both as Automation API inline programs (snippets/runner.*; the runners add
// stack config aws:region and nothing else); the YAML snippet as the project's Pulumi.yaml, as is, with the
// same stack config.
// What stands in: the cluster (the eks stand-in for pulumi-eks 4.3.0 and the aws stand-in, as
// pulumi-aws 7.48.0, against moto; the world's API server for the control plane, its three system
// nodes for the default node group) and public.ecr.aws (PublicECR: the world's registry, with the
// same charts, behind it).
//
// It bites: the README's Python snippet from before `discovery` was added (a Spot pool, no
// discovery) failed at `up` with three findings (subnets, security groups, the Spot service-linked
// role) and none of the component's children created. Why the TypeScript snippet does not parent
// the component to the eks.Cluster: @pulumi/pulumi's runtime/rpc.js collects a resource's
// dependencies with getAllTransitivelyReferencedResourceURNs(propResources, new Set()), which does
// not exclude the resource being registered (pulumi/pulumi#12515 added that exclusion to
// prepareResource only), so the component waits for its own URN: the last debug line is
// "Registering resource: t=karpenter:index:Karpenter" and "RegisterResource RPC prepared" never
// follows. Without parent, or with parent and no input from the cluster, the program passes.
func TestREADMESnippets(t *testing.T) {
	snippets := readmeSnippets(t)
	dist := findSDKDist(t)
	t.Setenv("PROVIDER_BIN", dist.plugin) // the world installs the released plugin, at its version
	tools, err := lab.FindTools()
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"typescript", "python", "yaml"} {
		t.Run(lang, func(t *testing.T) {
			t.Parallel() // the three wait mostly on the engine, the controller and the registries
			w := newWorld(t)
			ecr, err := w.PrepareSnippets(standIns, tools)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(ecr.Stop)
			kw := withLoop(t, w) // before the cluster exists: its OIDC issuer is the world's
			// E2E_OUT keeps the engine's gRPC log too (what the eks stand-in's Construct got and
			// answered, what each program registered and invoked).
			t.Cleanup(func() {
				if keep := os.Getenv("E2E_OUT"); keep != "" {
					if data, err := os.ReadFile(w.Engine.GRPCLog); err == nil {
						_ = os.WriteFile(filepath.Join(w.outDir, "grpc.jsonl"), data, 0o644)
					}
				}
			})
			r := &snippetRun{lang: lang, w: w, kw: kw, ecr: ecr, cluster: clusterName(t, lang, snippets[lang]), snippet: snippets[lang]}
			start := time.Now()
			switch lang {
			case "typescript":
				r.prepareTypeScript(t, snippets[lang], dist)
			case "python":
				r.preparePython(t, snippets[lang], dist)
			case "yaml":
				r.prepareYAML(t, snippets[lang])
			}
			t.Logf("%s snippet installed in %s", lang, time.Since(start).Round(100*time.Millisecond))
			r.lifecycle(t)
		})
	}
}

// readmeSnippets are the first ```ts, ```python and ```yaml fences of README.md's "## Usage"
// section, by language. The test fails, saying what it looked for, when the section's shape
// changes.
func readmeSnippets(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testsPath(t), "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	start := slices.Index(lines, "## Usage")
	if start < 0 {
		t.Fatal(`README.md has no "## Usage" section: the snippet test runs the first ` + "```ts, ```python and ```yaml fences of that section")
	}
	section := lines[start+1:]
	for i, l := range section {
		if strings.HasPrefix(l, "## ") {
			section = section[:i]
			break
		}
	}
	out := map[string]string{}
	for lang, info := range map[string]string{"typescript": "```ts", "python": "```python", "yaml": "```yaml"} {
		open := slices.Index(section, info)
		if open < 0 {
			t.Fatalf("README.md's \"## Usage\" has no %s fence: the snippet test runs its first %s, %s and %s fences as programs", info, "```ts", "```python", "```yaml")
		}
		end := slices.Index(section[open+1:], "```")
		if end < 0 {
			t.Fatalf("README.md's \"## Usage\": the first %s fence is not closed", info)
		}
		out[lang] = strings.Join(section[open+1:open+1+end], "\n") + "\n"
	}
	// Each is a whole program with a pulumi-eks cluster and the component (what the test checks).
	for lang, want := range map[string][]string{
		"typescript": {`new eks.Cluster(`, `new karpenter.Karpenter(`},
		"python":     {`eks.Cluster(`, `karpenter.Karpenter(`},
		"yaml":       {`type: eks:Cluster`, `type: karpenter:Karpenter`, `runtime: yaml`},
	} {
		for _, s := range want {
			if !strings.Contains(out[lang], s) {
				t.Fatalf("README.md's first %s snippet under \"## Usage\" has no %q: the snippet test expects each to be a whole program "+
					"with a pulumi-eks cluster and the component (it checks what they do on that cluster):\n%s", lang, s, out[lang])
			}
		}
	}
	return out
}

// clusterName is the name the snippet gives its eks.Cluster (pulumi-eks names its children after
// it: <name>-eksCluster, <name>-instanceRole, ...).
func clusterName(t *testing.T, lang, snippet string) string {
	t.Helper()
	if lang == "yaml" {
		var p struct {
			Resources map[string]struct{ Type string }
		}
		if err := yaml.Unmarshal([]byte(snippet), &p); err != nil {
			t.Fatalf("the YAML snippet: %v", err)
		}
		for name, r := range p.Resources {
			if r.Type == "eks:Cluster" || r.Type == "eks:index:Cluster" {
				return name
			}
		}
	} else if m := regexp.MustCompile(`eks\.(?:New)?Cluster\((?:ctx,)?\s*"([^"]+)"`).FindStringSubmatch(snippet); m != nil {
		return m[1]
	}
	t.Fatalf("no eks.Cluster name in the %s snippet", lang)
	return ""
}

// snippetRun is one snippet's project in its world.
type snippetRun struct {
	cluster string // the snippet's eks.Cluster's resource name (pulumi-eks names its children after it)
	snippet string // the program as README.md has it
	lang    string
	w       *world
	kw      *karpenterWorld // the same world, with the controller in its loop
	ecr     *lab.PublicECR
	dir     string
	argv    []string // TypeScript and Python: the runner; YAML runs `pulumi` in dir
	env     []string
	// write puts a version of the program in the project (TypeScript: compiled).
	write func(t *testing.T, program string)
}

var (
	nodeDepsOnce, pythonDepsOnce sync.Once
	nodeDeps, pythonVenv         string
	nodeDepsErr, pythonDepsErr   error
)

// cachedInstall runs one of tests/docs-code's install scripts (`<script> deps`: the pinned
// packages into $CACHE_DIR/examples, keyed by the pins; a no-op once there) and returns where it
// installed them, with the same key the script computes.
func cachedInstall(script, prefix string, pinFiles ...string) (string, error) {
	tests, err := repo.TestsDir()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, f := range pinFiles {
		data, err := os.ReadFile(filepath.Join(filepath.Dir(tests), f))
		if err != nil {
			return "", err
		}
		h.Write(data)
	}
	dir := filepath.Join(repo.CacheDir(), "examples", prefix+"-"+hex.EncodeToString(h.Sum(nil))[:16])
	start := time.Now()
	cmd := exec.Command("bash", filepath.Join(tests, "docs-code", script), "deps")
	cmd.Env = append(os.Environ(), "CACHE_DIR="+repo.CacheDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("tests/docs-code/%s deps: %v\n%s", script, err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, ".installed")); err != nil {
		return "", fmt.Errorf("tests/docs-code/%s deps installed nothing at %s", script, dir)
	}
	fmt.Fprintf(os.Stderr, "snippets: %s's packages at %s (%s)\n", script, dir, time.Since(start).Round(100*time.Millisecond))
	return dir, nil
}

// prepareTypeScript: a project with the snippet as index.ts, examples/typescript's tsconfig (strict)
// and a node_modules holding the locked packages (linked from the cache) and the release's npm
// tarball (unpacked, as npm installs a package file); tsc compiles the snippet.
func (r *snippetRun) prepareTypeScript(t *testing.T, snippet string, dist sdkDist) {
	nodeDepsOnce.Do(func() {
		nodeDeps, nodeDepsErr = cachedInstall("typescript.sh", "nodejs", "examples/typescript/package.json", "examples/typescript/package-lock.json")
	})
	if nodeDepsErr != nil {
		t.Fatal(nodeDepsErr)
	}
	r.dir = filepath.Join(t.TempDir(), "typescript")
	modules := filepath.Join(r.dir, "node_modules")
	pkg := filepath.Join(modules, "@pulumi-karpenter", "karpenter")
	if err := os.MkdirAll(filepath.Dir(pkg), 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Join(nodeDeps, "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "@pulumi-karpenter" {
			if err := os.Symlink(filepath.Join(nodeDeps, "node_modules", e.Name()), filepath.Join(modules, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
	unpack := t.TempDir()
	install(t, unpack, "tar", "-xzf", dist.npm)
	if err := os.Rename(filepath.Join(unpack, "package"), pkg); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(pkg, "package.json")); err != nil || !strings.Contains(string(data), `"version": "`+dist.version+`"`) {
		t.Fatalf("%s is not the release's %s (%v)", pkg, dist.version, err)
	}
	copyFiles(t, filepath.Join(testsPath(t), "..", "examples", "typescript"), r.dir, "tsconfig.json")
	copyFiles(t, testsPath(t, "e2e", "snippets"), r.dir, "runner.js")
	write(t, filepath.Join(r.dir, "package.json"), `{"name": "readme-snippet-typescript", "private": true, "main": "bin/index.js"}`+"\n")
	r.write = func(t *testing.T, program string) {
		write(t, filepath.Join(r.dir, "index.ts"), program)
		install(t, r.dir, filepath.Join(modules, ".bin", "tsc"), "-p", ".")
	}
	r.write(t, snippet)
	// Node 20 running @pulumi/pulumi 3.256 (which targets Node >= 22): its deprecation warnings
	// stay out of the output.
	r.argv, r.env = []string{"node", "runner.js"}, []string{"NODE_OPTIONS=--no-deprecation"}
}

// preparePython: the snippet as snippet.py, run by the cached virtualenv of the pinned packages
// with the release's wheel installed beside it (PYTHONPATH, first: it, not any other
// pulumi_karpenter, is imported).
func (r *snippetRun) preparePython(t *testing.T, snippet string, dist sdkDist) {
	pythonDepsOnce.Do(func() {
		pythonVenv, pythonDepsErr = cachedInstall("python.sh", "python", "examples/python/requirements.txt", "tests/docs-code/python/constraints.txt")
	})
	if pythonDepsErr != nil {
		t.Fatal(pythonDepsErr)
	}
	r.dir = filepath.Join(t.TempDir(), "python")
	site := filepath.Join(r.dir, "site")
	if err := os.MkdirAll(site, 0o755); err != nil {
		t.Fatal(err)
	}
	python := filepath.Join(pythonVenv, "bin", "python")
	install(t, r.dir, python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps", "--target", site, dist.wheel)
	copyFiles(t, testsPath(t, "e2e", "snippets"), r.dir, "runner.py")
	r.write = func(t *testing.T, program string) { write(t, filepath.Join(r.dir, "snippet.py"), program) }
	r.write(t, snippet)
	r.argv, r.env = []string{python, "runner.py"}, []string{"PYTHONPATH=" + site}
	cmd := exec.Command(python, "-c", "import importlib.metadata as m, pulumi_karpenter, pulumi_eks, pulumi_aws, pulumi_kubernetes; "+
		"print(m.version('pulumi_karpenter'), m.version('pulumi_eks'), m.version('pulumi_aws'), m.version('pulumi_kubernetes'), pulumi_karpenter.__file__)")
	cmd.Env = append(os.Environ(), r.env...)
	out, err := cmd.CombinedOutput()
	if want := pep440(dist.version) + " 4.3.0 7.48.0 4.34.2 " + site; err != nil || !strings.HasPrefix(string(out), want) {
		t.Fatalf("the snippet's Python packages: %v %s, want %s/...", err, out, want)
	}
}

// prepareYAML: the snippet is the project's Pulumi.yaml, as written; its stack.
func (r *snippetRun) prepareYAML(t *testing.T, snippet string) {
	r.dir = filepath.Join(t.TempDir(), "yaml")
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r.write = func(t *testing.T, program string) { write(t, filepath.Join(r.dir, "Pulumi.yaml"), program) }
	r.write(t, snippet)
	r.w.Engine.Dir = r.dir
	if err := r.w.Engine.NewStack(lab.StackName); err != nil {
		t.Fatal(err)
	}
	// As for the runners: the stack's aws:region, which the snippet reads, and nothing else.
	if _, stderr, err := r.w.run(t, "config", "set", "aws:region", lab.Region); err != nil {
		t.Fatalf("pulumi config set aws:region: %v\n%s", err, stderr)
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// step runs preview, up or destroy: the runner (TypeScript, Python) or `pulumi` (YAML). It
// returns the outputs (up) and the engine's output.
func (r *snippetRun) step(t *testing.T, step string) (outputs map[string]any, engineOutput string) {
	t.Helper()
	start := time.Now()
	defer func() { t.Logf("%s %s: %s", r.lang, step, time.Since(start).Round(100*time.Millisecond)) }()
	if r.lang == "yaml" {
		args := map[string][]string{
			"preview":            {"preview", "--non-interactive", "--diff"},
			"preview-no-changes": {"preview", "--non-interactive", "--diff", "--expect-no-changes"},
			"up":                 {"up", "--yes", "--non-interactive", "--skip-preview"},
			"refresh":            {"refresh", "--yes", "--non-interactive", "--skip-preview"},
			"destroy":            {"destroy", "--yes", "--non-interactive", "--skip-preview"},
		}[step]
		stdout, stderr, err := r.w.run(t, args...)
		if err != nil {
			t.Fatalf("%v\n--- stdout ---\n%s\n--- stderr ---\n%s", err, tail(stdout, 80), stderr)
		}
		if step == "up" {
			outputs = r.w.outputs(t)
		}
		return outputs, stdout + stderr // without a terminal, the diagnostics go to stderr
	}
	// A preview takes seconds here, an up or a destroy well under a minute: the bounds only stop a
	// program that hangs (SNIPPET_STEP_TIMEOUT overrides them).
	timeout := map[string]time.Duration{"preview": 5 * time.Minute, "preview-no-changes": 5 * time.Minute}[step]
	if timeout == 0 {
		timeout = 10 * time.Minute
	}
	if d, err := time.ParseDuration(os.Getenv("SNIPPET_STEP_TIMEOUT")); err == nil {
		timeout = d
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.argv[0], append(slices.Clone(r.argv[1:]), step)...)
	cmd.Dir = r.dir
	path := filepath.Dir(r.w.Engine.Pulumi) + string(os.PathListSeparator) + r.w.Engine.Getenv("PATH")
	cmd.Env = append(append(slices.Clone(r.w.Engine.Env), "PATH="+path, "PYTHONUNBUFFERED=1"), r.env...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := lab.RunInGroup(cmd)
	r.w.keepOutput(r.lang+"-"+step, stdout.String(), stderr.String())
	if err != nil {
		hung := ""
		if ctx.Err() != nil {
			hung = fmt.Sprintf(" (no result after %s: the program hung; %s)", timeout, r.neverRegistered(t))
		}
		t.Fatalf("%s %s: %v%s\n--- stdout ---\n%s\n--- stderr ---\n%s", r.lang, step, err, hung, stdout.String(), tail(stderr.String(), 80))
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	var result struct {
		Step    string
		Outputs map[string]any
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &result); err != nil || result.Step != step {
		t.Fatalf("%s %s: the last line of stdout is not its result (%v):\n%s", r.lang, step, err, stdout.String())
	}
	return result.Outputs, stderr.String()
}

// lifecycle: preview, up (and what it did on the cluster), the second day (snippets_daytwo_test.go),
// destroy.
func (r *snippetRun) lifecycle(t *testing.T) {
	w := r.w
	t.Run("preview", r.previewWaitsForCluster)
	if t.Failed() {
		return
	}
	t.Run("up", func(t *testing.T) {
		outputs, out := r.step(t, "up")
		r.checkUp(t, outputs, out)
	})
	if !t.Failed() {
		r.secondDay(t)
	}
	t.Run("destroy", func(t *testing.T) {
		r.step(t, "destroy")
		r.removeNeighbourPrincipal(t)
		w.assertNothingLeft(t)
		clusters, err := eks.NewFromConfig(w.AWS).ListClusters(context.Background(), &eks.ListClustersInput{})
		if err != nil || len(clusters.Clusters) > 0 {
			t.Errorf("EKS clusters left in moto: %v %v", clusters, err)
		}
		vpc, subnets := r.defaultVPC(t)
		groups, err := ec2.NewFromConfig(w.AWS).DescribeSecurityGroups(context.Background(), &ec2.DescribeSecurityGroupsInput{
			Filters: []ec2types.Filter{{Name: aws.String("vpc-id"), Values: []string{vpc}}}})
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range groups.SecurityGroups {
			if aws.ToString(g.GroupName) != "default" {
				t.Errorf("security group %s (%s) left in the default VPC", aws.ToString(g.GroupName), aws.ToString(g.GroupId))
			}
		}
		for _, s := range subnets {
			for _, tag := range s.Tags {
				if aws.ToString(tag.Key) == "karpenter.sh/discovery" {
					t.Errorf("subnet %s still tagged %s=%s", aws.ToString(s.SubnetId), aws.ToString(tag.Key), aws.ToString(tag.Value))
				}
			}
		}
		r.checkOnlyPublicECR(t)
	})
}

// neverRegistered says which of the snippet's two components the program never asked the engine
// to register (the engine's gRPC log: RegisterResource calls on its resource monitor).
func (r *snippetRun) neverRegistered(t *testing.T) string {
	calls, err := r.w.Engine.GRPCCalls()
	if err != nil {
		return err.Error()
	}
	seen := map[string]bool{}
	for _, c := range calls.Started("ResourceMonitor/RegisterResource") {
		var req struct{ Type, Name string }
		if c.Decode(&req) == nil {
			seen[req.Type] = true
		}
	}
	var missing []string
	for _, typ := range []string{"eks:index:Cluster", "karpenter:index:Karpenter"} {
		if !seen[typ] {
			missing = append(missing, typ)
		}
	}
	if len(missing) == 0 {
		return "it registered both eks:index:Cluster and karpenter:index:Karpenter"
	}
	return "it never registered " + strings.Join(missing, " or ")
}

// defaultVPC is moto's default VPC of the region and its subnets.
func (r *snippetRun) defaultVPC(t *testing.T) (string, []ec2types.Subnet) {
	t.Helper()
	cl := ec2.NewFromConfig(r.w.AWS)
	vpcs, err := cl.DescribeVpcs(context.Background(), &ec2.DescribeVpcsInput{Filters: []ec2types.Filter{{Name: aws.String("is-default"), Values: []string{"true"}}}})
	if err != nil || len(vpcs.Vpcs) != 1 {
		t.Fatalf("moto's default VPC: %v %v", vpcs, err)
	}
	vpc := aws.ToString(vpcs.Vpcs[0].VpcId)
	subnets, err := cl.DescribeSubnets(context.Background(), &ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{{Name: aws.String("vpc-id"), Values: []string{vpc}}}})
	if err != nil || len(subnets.Subnets) < 2 {
		t.Fatalf("the default VPC's subnets: %v %v", subnets, err)
	}
	return vpc, subnets.Subnets
}

// checkUp: what `pulumi up` did on the README's cluster (access entries; pulumi-eks tags its node
// security group). The component read the cluster at up and gave its node role an EC2_LINUX
// access entry; neither it nor pulumi-eks wrote kube-system/aws-auth; it tagged the default VPC's
// subnets (the cluster's, from core.subnetIds) for discovery, and pulumi-eks its node security
// group; the charts came from public.ecr.aws.
func (r *snippetRun) checkUp(t *testing.T, outputs map[string]any, out string) {
	ctx := context.Background()
	w := r.w
	nodeRole := str(outputs["nodeRole"])
	if !strings.HasPrefix(nodeRole, "arn:aws:iam::123456789012:role/") {
		t.Errorf("output nodeRole = %v, want the component's node role ARN (outputs %v)", outputs["nodeRole"], outputs)
	}
	cluster := r.eksCluster(t)

	cs, err := kubernetes.NewForConfig(w.ControlPlane.Config)
	if err != nil {
		t.Fatal(err)
	}
	if cm, err := cs.CoreV1().ConfigMaps("kube-system").Get(ctx, "aws-auth", metav1.GetOptions{}); err == nil {
		t.Errorf("kube-system/aws-auth exists on an API cluster (annotations %v):\n%s", cm.Annotations, cm.Data["mapRoles"])
	}
	entries := r.nodeAccessEntries(t, cluster)
	if entries[nodeRole] != "EC2_LINUX" {
		t.Errorf("access entries of cluster %s: %v, want an EC2_LINUX entry for the node role %s", cluster, entries, nodeRole)
	}

	_, subnets := r.defaultVPC(t)
	for _, s := range subnets {
		if tag(s.Tags, "karpenter.sh/discovery") != cluster {
			t.Errorf("default VPC subnet %s (%s): karpenter.sh/discovery = %q, want %s", aws.ToString(s.SubnetId), aws.ToString(s.AvailabilityZone),
				tag(s.Tags, "karpenter.sh/discovery"), cluster)
		}
	}
	group := r.discoveredGroup(t, cluster)
	ops, err := w.Ops()
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range ops {
		if op.Type == "aws:ec2/tag:Tag" && strings.Contains(op.Name, "-discovery-security-group-") {
			t.Errorf("the component tagged a security group itself (%s %s): pulumi-eks owns its tags", op.Op, op.Name)
		}
	}

	// The charts came from oci://public.ecr.aws/karpenter, the component's default.
	var pulled []string
	for _, req := range r.ecr.Requests() {
		if m := regexp.MustCompile(`^GET /v2/karpenter/(karpenter(?:-crd)?)/manifests/(\S+)$`).FindStringSubmatch(req); m != nil {
			pulled = append(pulled, m[1]+":"+m[2])
		}
	}
	if v := strings.TrimPrefix(lab.KarpenterVersion, "v"); !slices.Contains(pulled, "karpenter:"+v) || !slices.Contains(pulled, "karpenter-crd:"+v) {
		t.Errorf("charts pulled from %s: %q, want karpenter and karpenter-crd %s", lab.PublicECRHost, pulled, v)
	}
	t.Logf("up: cluster %s; access entries %v; %d default subnets tagged; security group %s tagged by pulumi-eks; charts %q from %s (stand-in)",
		cluster, entries, len(subnets), aws.ToString(group.GroupId), pulled, lab.PublicECRHost)
}

// eksCluster is the one EKS cluster in moto: the snippet's.
func (r *snippetRun) eksCluster(t *testing.T) string {
	t.Helper()
	clusters, err := eks.NewFromConfig(r.w.AWS).ListClusters(context.Background(), &eks.ListClustersInput{})
	if err != nil || len(clusters.Clusters) != 1 {
		t.Fatalf("EKS clusters in moto: %v %v, want the snippet's", clusters, err)
	}
	return clusters.Clusters[0]
}

// nodeAccessEntries are the cluster's access entries (the aws stand-in's record), principal → type.
func (r *snippetRun) nodeAccessEntries(t *testing.T, cluster string) map[string]string {
	t.Helper()
	rec, err := r.w.EKSRecord()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range rec.AccessEntries {
		if e["clusterName"] == cluster {
			out[str(e["principalArn"])] = str(e["type"])
		}
	}
	return out
}

// discoveredGroup is the one security group tagged karpenter.sh/discovery: cluster, pulumi-eks's
// node security group (tagged through its nodeSecurityGroupTags).
func (r *snippetRun) discoveredGroup(t *testing.T, cluster string) ec2types.SecurityGroup {
	t.Helper()
	groups, err := ec2.NewFromConfig(r.w.AWS).DescribeSecurityGroups(context.Background(), &ec2.DescribeSecurityGroupsInput{
		Filters: []ec2types.Filter{{Name: aws.String("tag:karpenter.sh/discovery"), Values: []string{cluster}}}})
	if err != nil || len(groups.SecurityGroups) != 1 || !strings.HasPrefix(aws.ToString(groups.SecurityGroups[0].GroupName), r.cluster+"-nodeSecurityGroup-") {
		t.Fatalf("security groups tagged for discovery: %v %v, want pulumi-eks's node security group", groups, err)
	}
	return groups.SecurityGroups[0]
}

func tag(tags []ec2types.Tag, key string) string {
	for _, t := range tags {
		if aws.ToString(t.Key) == key {
			return aws.ToString(t.Value)
		}
	}
	return ""
}
