//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/lab"
)

// TestSDKPrograms runs the TypeScript, Python, Go and Java programs of tests/e2e/programs — each
// lab/programs/program-sdk.yaml written with that language's SDK as the release packages it (the
// npm tarball, the wheel, the stamped Go module and the Maven Central bundle of `make
// release-dry-run`'s dist/, and the plugin from its archive) — through the real CLI and engine as
// Automation API inline programs, in one world after the YAML program: first a typo'd enum
// (refused by tsc and javac at compile time; by the component at preview, naming the field, where
// the language's types let it through), then preview (unknowns), up, preview
// --expect-no-changes, a refresh and another preview with nothing to do, an update of one pool,
// destroy. What each language's components receive (the Construct requests) and register (their
// children's inputs in the state) must equal the YAML program's: a difference is a bug in an SDK or
// the schema. It bites: Python's `weight=11`, or TypeScript's budget reasons ["Drifted","Empty"],
// each failed the preview comparison, the Construct comparison at `up` and the state comparison,
// in that language only.
//
// SDK_DIST names the dist/ directory (`make e2e-sdks` builds it with test-release-dry-run first).
func TestSDKPrograms(t *testing.T) {
	dist := findSDKDist(t)
	t.Setenv("PROVIDER_BIN", dist.plugin) // the world installs the released plugin, at its version
	w := newWorld(t)
	// The general pool allows Spot: the account has used Spot before (the component checks).
	if err := w.SeedSpotServiceLinkedRole(context.Background()); err != nil {
		t.Fatal(err)
	}

	// Each language's program is installed before anything runs, as a user's project would be.
	langs := []*sdkProgram{
		prepareNodejs(t, dist),
		preparePython(t, dist),
		prepareGo(t, dist),
		prepareJava(t, dist),
	}

	// E2E_OUT keeps the engine's gRPC log too (what every Construct received).
	t.Cleanup(func() {
		if keep := os.Getenv("E2E_OUT"); keep != "" {
			if data, err := os.ReadFile(w.Engine.GRPCLog); err == nil {
				_ = os.WriteFile(filepath.Join(w.outDir, "grpc.jsonl"), data, 0o644)
			}
		}
	})
	ref := yamlReference(t, w)
	if t.Failed() {
		return
	}
	for _, p := range langs {
		t.Run(p.lang, func(t *testing.T) { p.lifecycle(t, w, ref) })
	}
}

// sdkDist is what `make release-dry-run` left in dist/ for this machine.
type sdkDist struct {
	version string // the stamped release version, e.g. 1.2.3-rc.4
	plugin  string // pulumi-resource-karpenter from the linux archive, extracted
	npm     string // the npm tarball
	wheel   string
	goSDK   string // the stamped Go module (dist/sdk/go)
	maven   string // the Maven Central bundle (the jar, its sources, javadoc and pom, signed)
}

func findSDKDist(t *testing.T) sdkDist {
	t.Helper()
	dir := os.Getenv("SDK_DIST")
	if dir == "" {
		t.Fatal("SDK_DIST is not set: run `make e2e-sdks` (it builds dist/ with `make test-release-dry-run` first)")
	}
	var meta struct{ Version string }
	data, err := os.ReadFile(filepath.Join(dir, "metadata.json"))
	if err == nil {
		err = json.Unmarshal(data, &meta)
	}
	if err != nil || meta.Version == "" {
		t.Fatalf("%s/metadata.json (goreleaser's): %v; run `make test-release-dry-run`", dir, err)
	}
	one := func(pattern string) string {
		m, _ := filepath.Glob(filepath.Join(dir, pattern))
		if len(m) != 1 {
			t.Fatalf("want exactly one %s in %s, found %q", pattern, dir, m)
		}
		return m[0]
	}
	d := sdkDist{
		version: meta.Version,
		npm:     one("npm/*-" + meta.Version + ".tgz"),
		wheel:   one("python/*.whl"),
		goSDK:   filepath.Join(dir, "sdk", "go"),
		maven:   one("maven-central/*-" + meta.Version + "-bundle.zip"),
	}
	archive := one(fmt.Sprintf("pulumi-resource-karpenter-v%s-linux-amd64.tar.gz", meta.Version))
	bin := t.TempDir()
	if out, err := exec.Command("tar", "-xzf", archive, "-C", bin, "pulumi-resource-karpenter").CombinedOutput(); err != nil {
		t.Fatalf("tar -xzf %s: %v\n%s", archive, err, out)
	}
	d.plugin = filepath.Join(bin, "pulumi-resource-karpenter")
	if v, err := lab.PluginVersion(d.plugin); err != nil || v != meta.Version {
		t.Fatalf("%s reports version %q (%v), want the release's %s", archive, v, err, meta.Version)
	}
	return d
}

// run runs one step of the program with the engine's environment (its PULUMI_HOME, backend,
// passphrase and gRPC log; no network), the CLI on PATH (the Automation API runs `pulumi`) and
// the world's chart repository; it returns the JSON line the program printed.
func (p *sdkProgram) run(t *testing.T, w *world, step string) (map[string]any, error) {
	t.Helper()
	result, err := p.runOnce(t, w, step)
	if err != nil && p.lang == "java" && (step == "preview" || step == "check") && javaEventLogRace(err) {
		// pulumi-java's Automation API tails the CLI's event log while the CLI writes it, and can
		// read a line before its end (com.pulumi.automation.events.internal.EventLogWatcher:
		// "MalformedJsonException: Unterminated string"); the twin of pulumi/pulumi#10051 in
		// .NET. A preview changes nothing, so it runs again once; a second failure stands.
		t.Logf("java %s: pulumi-java's event log watcher read a partial line (an upstream race): running the %s again", step, step)
		result, err = p.runOnce(t, w, step)
	}
	return result, err
}

// javaEventLogRace says whether a Java step failed on pulumi-java's event log race.
func javaEventLogRace(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "EventLogWatcher") && strings.Contains(msg, "MalformedJsonException")
}

func (p *sdkProgram) runOnce(t *testing.T, w *world, step string) (map[string]any, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	argv := append(slices.Clone(p.argv), step)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = p.dir
	env := slices.Clone(w.Engine.Env)
	path := filepath.Dir(w.Engine.Pulumi) + string(os.PathListSeparator) + w.Engine.Getenv("PATH")
	cmd.Env = append(env, "PATH="+path, "E2E_CHART_REPOSITORY="+w.ChartRepository(), "PYTHONUNBUFFERED=1",
		// The world's VPC, where the program makes its cluster (the YAML program's template reads it).
		"E2E_SUBNET_IDS="+strings.Join(w.VPC.SubnetIDs, ","), "E2E_SECURITY_GROUP_ID="+w.VPC.SecurityGroupID)
	if p.lang == "nodejs" {
		// Keeps Node's deprecation warnings (Node 20 running @pulumi/pulumi 3.256, which targets
		// Node >= 22) out of the program's stderr.
		cmd.Env = append(cmd.Env, "NODE_OPTIONS=--no-deprecation")
	}
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := lab.RunInGroup(cmd)
	t.Logf("%s %s: %v after %s", p.lang, step, err, time.Since(start).Round(100*time.Millisecond))
	w.keepOutput(p.lang+"-"+step, stdout.String(), stderr.String())
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w\n--- stdout ---\n%s\n--- stderr ---\n%s", p.lang, step, err, stdout.String(), tail(stderr.String(), 60))
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	var result map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &result); err != nil || result["step"] != step {
		return nil, fmt.Errorf("%s %s: the last line of stdout is not its result (%v):\n%s", p.lang, step, err, stdout.String())
	}
	return result, nil
}

func (p *sdkProgram) must(t *testing.T, w *world, step string) map[string]any {
	t.Helper()
	r, err := p.run(t, w, step)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// index is a list's i-th element, or nil.
func index(list any, i int) any {
	if l, ok := list.([]any); ok && i < len(l) {
		return l[i]
	}
	return nil
}

func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// sdkRun is what one program's preview or up handed the component and what that registered.
type sdkRun struct {
	constructs map[string]any // "type name" -> the Construct request's inputs, normalized
	children   map[string]any // URN -> inputs in the state of every resource the components registered
	outputs    map[string]any
}

// yamlReference runs lab/programs/program-sdk.yaml: preview and up, what they sent and registered,
// then destroy and `stack rm` so that each language starts from an empty stack of the same name
// (the same URNs and AWS names).
func yamlReference(t *testing.T, w *world) (ref struct{ preview, up sdkRun }) {
	t.Helper()
	prog, err := w.ProgramFile("program-sdk.yaml", lab.ProgramOptions{Inputs: w.WithChartRepository("")})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.NewStack(prog); err != nil {
		t.Fatal(err)
	}
	mark := w.grpcMark(t)
	w.preview(t)
	ref.preview = sdkRun{constructs: w.constructs(t, mark, nil)}
	mark = w.grpcMark(t)
	w.up(t)
	ref.up.outputs = w.outputs(t)
	names := randomNames(ref.up.outputs)
	ref.up.constructs = w.constructs(t, mark, names)
	ref.up.children = w.children(t, names)
	w.checkSDKResult(t, ref.up.outputs, "720h")
	w.must(t, "destroy", "--yes", "--non-interactive", "--skip-preview")
	w.must(t, "stack", "rm", "--yes", "--non-interactive", lab.StackName)
	w.assertNothingLeft(t)
	return ref
}

// lifecycle is one language's run, compared with the YAML program's.
func (p *sdkProgram) lifecycle(t *testing.T, w *world, ref struct{ preview, up sdkRun }) {
	// In Java a typo'd enum does not compile (prepareJava's javac check): no program to preview.
	if p.badField != "" {
		p.typoAtPreview(t, w)
	}
	if p.badType {
		p.wrongTypeAtPreview(t, w)
	}
	p.previewUpUpdateDestroy(t, w, ref)
}

// typoAtPreview: a typo'd enum value, which the language's types let through, fails the preview
// with the component's message naming the field, and nothing is created.
func (p *sdkProgram) typoAtPreview(t *testing.T, w *world) {
	t.Run("a typo'd enum fails at preview naming the field", func(t *testing.T) {
		mark := w.grpcMark(t)
		r := p.must(t, w, "bad")
		msg := str(r["error"])
		for _, want := range []string{p.badField, `"Inn"`} {
			if !strings.Contains(msg, want) {
				t.Errorf("the preview's error does not name %s:\n%s", want, tail(msg, 30))
			}
		}
		w.assertNothingCreatedSince(t, mark)
	})
}

// wrongTypeAtPreview: a value of the wrong type, which the language lets through, fails the
// preview with the component's message naming its path (the SDK's decoding would name only
// nodePools), and nothing is created.
func (p *sdkProgram) wrongTypeAtPreview(t *testing.T, w *world) {
	t.Run("a value of the wrong type fails at preview naming its path", func(t *testing.T) {
		mark := w.grpcMark(t)
		msg := str(p.must(t, w, "badtype")["error"])
		if want := `nodePools[0].weight: expected an integer, got the string \"5\"`; !strings.Contains(msg, want) && !strings.Contains(msg, strings.ReplaceAll(want, `\"`, `"`)) {
			t.Errorf("the preview's error does not say %s:\n%s", want, tail(msg, 30))
		}
		w.assertNothingCreatedSince(t, mark)
	})
}

func (p *sdkProgram) previewUpUpdateDestroy(t *testing.T, w *world, ref struct{ preview, up sdkRun }) {
	t.Run("preview sends what YAML sends, unknowns included", func(t *testing.T) {
		mark := w.grpcMark(t)
		p.must(t, w, "preview")
		got := w.constructs(t, mark, nil)
		want := ref.preview.constructs
		if p.lang == "java" {
			want = javaPreview(want)
		}
		compareRuns(t, "Construct inputs at preview", got, want)
		// Outputs of resources not created yet are unknown, at the top (oidcProviderArn) and
		// inside the typed lists: the team class's role, the class's tag and user data from the
		// cluster's ARN and endpoint, the pool's annotation from the OIDC provider's URL; the
		// cluster's name, given in the program, is known.
		k, _ := got["karpenter:index:Karpenter karpenter"].(map[string]any)
		teamClass, _ := got["karpenter:index:NodeClass teamClass"].(map[string]any)
		pool, _ := index(k["nodePools"], 0).(map[string]any)
		class, _ := index(k["nodeClasses"], 0).(map[string]any)
		spec, _ := teamClass["spec"].(map[string]any)
		unknowns := map[string]any{
			"oidcProviderArn": k["oidcProviderArn"], "teamClass spec.role": spec["role"], "nodeClasses[0].userData": class["userData"],
		}
		if p.lang != "java" { // whole maps in Java (javaPreview)
			unknowns[`nodePools[0].annotations["example.com/oidc-issuer"]`] = entry(pool["annotations"], "example.com/oidc-issuer")
			unknowns[`nodeClasses[0].tags["cluster"]`] = entry(class["tags"], "cluster")
		}
		for name, v := range unknowns {
			if v != "<unknown>" {
				t.Errorf("Construct input %s = %v, want unknown", name, v)
			}
		}
		if k["clusterName"] != "e2e-sdk-cluster" {
			t.Errorf("Construct input clusterName = %v, want e2e-sdk-cluster", k["clusterName"])
		}
		w.assertNothingCreatedSince(t, mark)
	})

	t.Run("up registers what YAML registers", func(t *testing.T) {
		mark := w.grpcMark(t)
		r := p.must(t, w, "up")
		out, _ := r["outputs"].(map[string]any)
		names := randomNames(out)
		w.checkSDKResult(t, out, "720h")
		compareRuns(t, "outputs", normalizeOutputs(out), normalizeOutputs(ref.up.outputs))
		if got, want := str(out["languageCheck"]), "2 pools general,batch, version 3 parts"; got != want {
			t.Errorf("languageCheck (the outputs used in the language's types) = %q, want %q", got, want)
		}
		compareRuns(t, "Construct inputs at up", w.constructs(t, mark, names), ref.up.constructs)
		compareRuns(t, "the children's inputs in the state", w.children(t, names), ref.up.children)
	})
	if t.Failed() {
		p.destroy(t, w)
		return
	}

	t.Run("a second preview expects no changes", func(t *testing.T) {
		p.must(t, w, "check")
	})

	// What AWS and the cluster hold, read into the state, is what the program declares: a
	// preview after a refresh has nothing to do either (no stand-in artefact, no drift of a
	// child's inputs).
	t.Run("a refresh, then a preview with nothing to do", func(t *testing.T) {
		p.must(t, w, "refresh")
		p.must(t, w, "check")
	})

	t.Run("an update of one pool updates only its NodePool", func(t *testing.T) {
		before, err := w.Ops()
		if err != nil {
			t.Fatal(err)
		}
		r := p.must(t, w, "update")
		w.checkSDKResult(t, r["outputs"].(map[string]any), "360h")
		ops, err := w.Ops()
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, op := range ops[len(before):] {
			got = append(got, op.Op+" "+op.Type+" "+op.Name)
		}
		want := []string{"Update kubernetes:karpenter.sh/v1:NodePool karpenter-nodepool-batch"}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("the update's resource operations:\n got %q\nwant %q", got, want)
		}
	})

	p.destroy(t, w)
}

func (p *sdkProgram) destroy(t *testing.T, w *world) {
	t.Run("destroy leaves nothing", func(t *testing.T) {
		p.must(t, w, "destroy")
		w.assertNothingLeft(t)
	})
}
