//go:build e2e

package e2e

import (
	"archive/zip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/e2e/lab"
	"github.com/pulumi-karpenter/pulumi-karpenter/tests/harness"
)

// TestSDKPrograms runs the TypeScript, Python, Go and Java programs of tests/e2e/sdk — each
// lab/programs/program-sdk.yaml written with that language's SDK as the release packages it (the npm
// tarball, the wheel, the stamped Go module and the Maven Central bundle of `make
// release-dry-run`'s dist/, and the plugin from its archive) — through the real CLI and engine as
// Automation API inline programs, in one world after the YAML program: first a typo'd enum
// (refused by tsc and javac at compile time; by the component at preview, naming the field, where
// the language's types let it through), then preview (unknowns), up, preview
// --expect-no-changes, an update of one pool, destroy. What each language's components receive
// (the Construct requests) and register (their children's inputs in the state) must equal the
// YAML program's: a difference is a bug in an SDK or the schema.
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

// sdkProgram is one language's program, installed in dir and run as argv + step.
type sdkProgram struct {
	lang string
	dir  string
	argv []string
	// badField is how the typo'd enum of the bad step is named in the component's error; empty
	// when the language's types make the typo a compile error only (Java's enums).
	badField string
	// badType: the program has a badtype step, a value of the wrong type its language lets
	// through (Python).
	badType bool
}

// testsPath is a path under tests/.
func testsPath(t *testing.T, elem ...string) string {
	t.Helper()
	tests, err := lab.TestsDir()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(append([]string{tests}, elem...)...)
}

// copyFiles copies the named files of src into dst.
func copyFiles(t *testing.T, src, dst string, names ...string) {
	t.Helper()
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(src, n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, n), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// install runs a setup command (npm, pip, go) with the machine's own environment: package
// managers reach their registries, unlike the engine.
func install(t *testing.T, dir string, name string, args ...string) string {
	t.Helper()
	start := time.Now()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s (in %s): %v\n%s", name, strings.Join(args, " "), dir, err, out)
	}
	t.Logf("%s %s: %s", name, strings.Join(args, " "), time.Since(start).Round(100*time.Millisecond))
	return string(out)
}

// prepareNodejs: the program's locked dependencies (@pulumi/pulumi, typescript), then the release's
// tarball installed as a user installs a package file; tsc (strict) refuses a typo'd enum and a
// wrong type naming them, and compiles the program.
func prepareNodejs(t *testing.T, dist sdkDist) *sdkProgram {
	t.Helper()
	src, dir := testsPath(t, "e2e", "sdk", "nodejs"), filepath.Join(t.TempDir(), "nodejs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	copyFiles(t, src, dir, "package.json", "package-lock.json", "tsconfig.json", "index.ts", "typo.ts")
	install(t, dir, "npm", "ci", "--no-audit", "--no-fund", "--prefer-offline")
	install(t, dir, "npm", "install", "--no-save", "--no-audit", "--no-fund", "--prefer-offline", dist.npm)
	pkg, err := os.ReadFile(filepath.Join(dir, "node_modules", "@pulumi-karpenter", "karpenter", "package.json"))
	if err != nil || !strings.Contains(string(pkg), `"version": "`+dist.version+`"`) {
		t.Fatalf("node_modules/@pulumi-karpenter/karpenter is not the release's %s (%v):\n%s", dist.version, err, pkg)
	}

	t.Run("nodejs/tsc refuses a typo'd enum and a wrong type", func(t *testing.T) {
		cmd := exec.Command(filepath.Join(dir, "node_modules", ".bin", "tsc"), "--noEmit", "--strict", "--skipLibCheck",
			"--module", "commonjs", "--moduleResolution", "node", "typo.ts")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Fatalf("tsc compiled typo.ts:\n%s", out)
		}
		for _, want := range []string{
			`typo.ts(9,9): error TS2322: Type 'string' is not assignable to type 'Input<number | undefined>'`,
			`typo.ts(10,61): error TS2322: Type '"Inn"' is not assignable to type 'Input<RequirementOperator>'`,
		} {
			if !strings.Contains(string(out), want) {
				t.Errorf("tsc does not say %q:\n%s", want, out)
			}
		}
	})
	install(t, dir, filepath.Join(dir, "node_modules", ".bin", "tsc"), "-p", ".")
	return &sdkProgram{lang: "nodejs", dir: dir, argv: []string{"node", "bin/index.js"},
		badField: "nodePools[0].requirements[0].operator"}
}

// preparePython: a fresh venv with the pinned Pulumi SDK and the release's wheel.
func preparePython(t *testing.T, dist sdkDist) *sdkProgram {
	t.Helper()
	src, dir := testsPath(t, "e2e", "sdk", "python"), filepath.Join(t.TempDir(), "python")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	copyFiles(t, src, dir, "program.py", "requirements.txt")
	install(t, dir, "python3", "-m", "venv", "venv")
	install(t, dir, "venv/bin/pip", "install", "--quiet", "--disable-pip-version-check", "-r", "requirements.txt", dist.wheel)
	if out := install(t, dir, "venv/bin/pip", "show", "pulumi_karpenter"); !strings.Contains(out, "\nVersion: "+pep440(dist.version)+"\n") {
		t.Fatalf("pulumi_karpenter is not the release's %s:\n%s", pep440(dist.version), out)
	}
	return &sdkProgram{lang: "python", dir: dir, argv: []string{"venv/bin/python", "program.py"},
		badField: "nodePools[0].requirements[0].operator", badType: true}
}

// pep440 is the Python SDK's form of a release version (1.2.3-rc.4 -> 1.2.3rc4).
func pep440(v string) string {
	m := regexp.MustCompile(`-(alpha|beta|rc|dev)\.(\d+)$`).FindStringSubmatch(v)
	if m == nil {
		return v
	}
	short := map[string]string{"alpha": "a", "beta": "b", "rc": "rc", "dev": ".dev"}[m[1]]
	return strings.TrimSuffix(v, m[0]) + short + m[2]
}

// prepareGo: the program's module with the SDK replaced by the release's stamped module, built.
func prepareGo(t *testing.T, dist sdkDist) *sdkProgram {
	t.Helper()
	src, dir := testsPath(t, "e2e", "sdk", "go"), filepath.Join(t.TempDir(), "go")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	copyFiles(t, src, dir, "main.go", "go.mod", "go.sum")
	install(t, dir, "go", "mod", "edit", "-replace=github.com/pulumi-karpenter/pulumi-karpenter/sdk/go="+dist.goSDK)
	install(t, dir, "go", "build", "-o", "program", ".")
	return &sdkProgram{lang: "go", dir: dir, argv: []string{"./program"},
		badField: "nodePools[0].requirements[0].operator"}
}

// prepareJava: the release's Maven Central bundle unpacked as a repository the program's pom
// resolves io.github.pulumikarpenter:karpenter from (as from Central), com.pulumi:pulumi from Maven
// Central into a local repository in the cache (the release's artifact removed from it first, so a
// rebuilt jar of the same version is never taken from there); javac refuses a typo'd enum and a
// wrong type naming them.
func prepareJava(t *testing.T, dist sdkDist) *sdkProgram {
	t.Helper()
	src, dir := testsPath(t, "e2e", "sdk", "java"), filepath.Join(t.TempDir(), "java")
	repo := filepath.Join(filepath.Dir(dir), "maven-repo")
	for _, d := range []string{filepath.Join(dir, "src", "main", "java", "e2e"), filepath.Join(dir, "typo"), repo} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	copyFiles(t, src, dir, "pom.xml", filepath.Join("src", "main", "java", "e2e", "App.java"), filepath.Join("typo", "Typo.java"))
	unzip(t, dist.maven, repo)
	local := filepath.Join(harness.CacheDir(), "e2e-sdk-java-m2")
	if err := os.RemoveAll(filepath.Join(local, "io", "github", "pulumikarpenter")); err != nil {
		t.Fatal(err)
	}
	install(t, dir, "mvn", "-B", "-q", "-ntp", "-Dstyle.color=never", "-Dmaven.repo.local="+local,
		"-Dkarpenter.version="+dist.version, "-Dkarpenter.repo=file://"+repo,
		"compile", "dependency:build-classpath", "-Dmdep.outputFile=classpath.txt")
	data, err := os.ReadFile(filepath.Join(dir, "classpath.txt"))
	if err != nil {
		t.Fatal(err)
	}
	cp := strings.TrimSpace(string(data))
	if want := "karpenter-" + dist.version + ".jar"; !strings.Contains(cp, want) {
		t.Fatalf("the program's classpath has no %s:\n%s", want, cp)
	}

	t.Run("java/javac refuses a typo'd enum and a wrong type", func(t *testing.T) {
		cmd := exec.Command("javac", "-cp", cp, "-d", t.TempDir(), filepath.Join("typo", "Typo.java"))
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Fatalf("javac compiled Typo.java:\n%s", out)
		}
		for _, want := range []string{
			"Typo.java:10: error: no suitable method found for weight(String)",
			"Typo.java:11: error: cannot find symbol",
			"symbol:   variable Inn",
		} {
			if !strings.Contains(string(out), want) {
				t.Errorf("javac does not say %q:\n%s", want, out)
			}
		}
	})
	return &sdkProgram{lang: "java", dir: dir, argv: []string{"java", "-cp", "target/classes:" + cp, "e2e.App"}}
}

// unzip extracts a zip archive (the Maven Central bundle: a repository's layout) into dir.
func unzip(t *testing.T, archive, dir string) {
	t.Helper()
	r, err := zip.OpenReader(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, f := range r.File {
		path := filepath.Join(dir, filepath.FromSlash(f.Name))
		if !strings.HasPrefix(path, filepath.Clean(dir)+string(os.PathSeparator)) {
			t.Fatalf("%s: %s leaves the directory", archive, f.Name)
		}
		if f.FileInfo().IsDir() {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err == nil {
			err = os.MkdirAll(filepath.Dir(path), 0o755)
		}
		if err == nil {
			err = os.WriteFile(path, data, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// run runs one step of the program with the engine's environment (its PULUMI_HOME, backend,
// passphrase and gRPC log; no network), the CLI on PATH (the Automation API runs `pulumi`) and
// the world's chart repository; it returns the JSON line the program printed.
func (p *sdkProgram) run(t *testing.T, w *world, step string) (map[string]any, error) {
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

// checkSDKResult: the outputs, and in the API server the pools and classes of program-sdk.yaml with
// the batch pool's expireAfter.
func (w *world) checkSDKResult(t *testing.T, out map[string]any, batchExpireAfter string) {
	t.Helper()
	if got, want := strs(out["nodePoolNames"]), []string{"general", "batch"}; !reflect.DeepEqual(got, want) {
		t.Errorf("nodePoolNames = %q, want %q", got, want)
	}
	if got, want := strs(out["nodeClassNames"]), []string{"general"}; !reflect.DeepEqual(got, want) {
		t.Errorf("nodeClassNames = %q, want %q", got, want)
	}
	if str(out["teamNodePoolName"]) != "team-a-spot" || str(out["teamNodeClassName"]) != "team-a" {
		t.Errorf("team outputs: %v, %v", out["teamNodePoolName"], out["teamNodeClassName"])
	}
	ctx := context.Background()
	pools := w.Cluster.Dynamic.Resource(nodePoolGVR)
	for _, name := range []string{"general", "batch", "team-a-spot"} {
		pool, err := pools.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Errorf("NodePool %s: %v", name, err)
			continue
		}
		if name == "batch" {
			if got, _, _ := unstructured.NestedString(pool.Object, "spec", "template", "spec", "expireAfter"); got != batchExpireAfter {
				t.Errorf("NodePool batch: expireAfter %q, want %q", got, batchExpireAfter)
			}
		}
	}
	classes := w.Cluster.Dynamic.Resource(schema.GroupVersionResource{Group: "karpenter.k8s.aws", Version: "v1", Resource: "ec2nodeclasses"})
	for _, name := range []string{"general", "team-a"} {
		if _, err := classes.Get(ctx, name, metav1.GetOptions{}); err != nil {
			t.Errorf("EC2NodeClass %s: %v", name, err)
		}
	}
	// The class wired to the cluster the program made: its selector, tag and user data hold what
	// the preview did not know.
	general, err := classes.Get(ctx, "general", metav1.GetOptions{})
	if err != nil {
		return
	}
	terms, _, _ := unstructured.NestedSlice(general.Object, "spec", "subnetSelectorTerms")
	userData, _, _ := unstructured.NestedString(general.Object, "spec", "userData")
	tag, _, _ := unstructured.NestedString(general.Object, "spec", "tags", "cluster")
	if entry(entry(index(terms, 0), "tags"), "karpenter.sh/discovery") != "e2e-sdk-cluster" ||
		!strings.Contains(userData, "echo "+w.ControlPlane.URL+" >") || tag != "arn:aws:eks:us-west-2:123456789012:cluster/e2e-sdk-cluster" {
		t.Errorf("EC2NodeClass general: subnetSelectorTerms %v, userData %q, tags.cluster %q; want the cluster's name, endpoint and ARN", terms, userData, tag)
	}
}

// assertNothingCreatedSince: moto and the API server hold nothing new, and since mark the engine
// asked no plugin to create anything (a failed preview leaves no trace).
func (w *world) assertNothingCreatedSince(t *testing.T, mark int) {
	t.Helper()
	for _, l := range w.aws(t).Leftovers() {
		t.Errorf("moto holds %s", l)
	}
	w.assertCreatedSince(t, mark)
}

// grpcMark is the number of gRPC log entries so far: what a step sent comes after it.
func (w *world) grpcMark(t *testing.T) int {
	t.Helper()
	calls, err := w.Engine.GRPCCalls()
	if errors.Is(err, fs.ErrNotExist) {
		return 0 // nothing has run yet
	}
	if err != nil {
		t.Fatal(err)
	}
	return len(calls)
}

// constructs are the inputs of the Construct calls completed since mark, by "type name",
// normalized (see normalize).
func (w *world) constructs(t *testing.T, mark int, names map[string]string) map[string]any {
	t.Helper()
	calls, err := w.Engine.GRPCCalls()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]any{}
	for _, c := range lab.GRPCLog(calls[mark:]).Completed("ResourceProvider/Construct") {
		var req struct {
			Type, Name string
			Inputs     map[string]any
		}
		if err := c.Decode(&req); err != nil {
			t.Fatal(err)
		}
		if len(c.Errors) > 0 {
			t.Errorf("Construct %s %s failed: %q", req.Type, req.Name, c.Errors)
		}
		got[req.Type+" "+req.Name] = normalize(req.Inputs, names)
	}
	if len(got) != 3 {
		t.Errorf("want Construct calls for the Karpenter, NodeClass and NodePool components, got %d: %v", len(got), slices.Sorted(mapKeys(got)))
	}
	return got
}

// children are the inputs in the state of every resource a component registered (its URN's type
// chain passes through one of the package's components), by URN, normalized.
func (w *world) children(t *testing.T, names map[string]string) map[string]any {
	t.Helper()
	stdout := w.must(t, "stack", "export", "--stack", lab.StackName)
	var export struct {
		Deployment struct{ Resources []lab.StateResource }
	}
	if err := json.Unmarshal([]byte(stdout), &export); err != nil {
		t.Fatal(err)
	}
	got := map[string]any{}
	for _, r := range export.Deployment.Resources {
		if regexp.MustCompile(`karpenter:index:(Karpenter|NodePool|NodeClass)\$`).MatchString(r.URN) {
			got[r.URN] = normalize(r.Inputs, names)
		}
	}
	if len(got) < 30 {
		t.Errorf("only %d children in the state", len(got))
	}
	return got
}

func mapKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// randomNames are the names of a run's roles created with a name prefix (a random suffix), by the
// placeholder normalize puts in their place.
func randomNames(outputs map[string]any) map[string]string {
	return map[string]string{str(outputs["clusterName"]): "<cluster>", str(outputs["teamRoleName"]): "<teamRole>"}
}

// oidcIssuerID is the id in an EKS cluster's OIDC issuer (oidc.eks.<region>.amazonaws.com/id/<32
// hex digits>), which each stack's cluster gets anew.
var oidcIssuerID = regexp.MustCompile(`(oidc\.eks\.[a-z0-9-]+\.amazonaws\.com/id/)[0-9A-F]{32}`)

// normalize makes two programs' values comparable: the roles' random names (randomNames) and the
// cluster's OIDC issuer id (EKS's, random per cluster: oidcIssuerID) become placeholders, every
// unknown — the plain sentinel or an output value without one — becomes <unknown>, and a known
// output value becomes its value (the languages wrap different inputs in output values: which
// ones is how each SDK serializes, not what the component receives).
func normalize(v any, names map[string]string) any {
	switch v := v.(type) {
	case string:
		if v == unknownSentinel {
			return "<unknown>"
		}
		for name, placeholder := range names {
			if name != "" {
				v = strings.ReplaceAll(v, name, placeholder)
			}
		}
		return oidcIssuerID.ReplaceAllString(v, "${1}<issuer-id>")
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = normalize(x, names)
		}
		return out
	case map[string]any:
		if v["4dabf18193072939515e22adb298388d"] == "d0e6a833031e9bbcd3f4e8bde6ca49a4" {
			if value, ok := v["value"]; ok {
				return normalize(value, names)
			}
			return "<unknown>"
		}
		out := map[string]any{}
		for k, x := range v {
			out[k] = normalize(x, names)
		}
		return out
	}
	return v
}

// javaPreview is YAML's preview Construct inputs as the Java program sends them: Java builds a map
// holding an output as one Output<Map<...>>, so at preview the pool's annotations and the class's
// tags are unknown as a whole where YAML sends the maps with an unknown value (the component takes
// both: their values only pass through).
func javaPreview(ref map[string]any) map[string]any {
	var copied map[string]any
	b, _ := json.Marshal(ref)
	_ = json.Unmarshal(b, &copied)
	k, _ := copied["karpenter:index:Karpenter karpenter"].(map[string]any)
	if pool, ok := index(k["nodePools"], 0).(map[string]any); ok {
		pool["annotations"] = "<unknown>"
	}
	if class, ok := index(k["nodeClasses"], 0).(map[string]any); ok {
		class["tags"] = "<unknown>"
	}
	return copied
}

// entry is m[k] of a map, or nil.
func entry(m any, k string) any {
	if mm, ok := m.(map[string]any); ok {
		return mm[k]
	}
	return nil
}

// normalizeOutputs: the outputs with the random names replaced (they differ between stacks).
func normalizeOutputs(out map[string]any) map[string]any {
	n := normalize(out, randomNames(out)).(map[string]any)
	delete(n, "languageCheck") // the languages' own export; YAML has none
	return n
}

// compareRuns reports every key whose value differs between a language's run and YAML's.
func compareRuns(t *testing.T, what string, got, want map[string]any) {
	t.Helper()
	keys := map[string]bool{}
	for k := range got {
		keys[k] = true
	}
	for k := range want {
		keys[k] = true
	}
	var names []string
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		g, inGot := got[k]
		y, inWant := want[k]
		switch {
		case !inGot:
			t.Errorf("%s: %s is missing (YAML has it)", what, k)
		case !inWant:
			t.Errorf("%s: %s is extra (YAML has none)", what, k)
		case !reflect.DeepEqual(g, y):
			gj, _ := json.MarshalIndent(g, "", "  ")
			yj, _ := json.MarshalIndent(y, "", "  ")
			t.Errorf("%s: %s differs from YAML's\n--- got ---\n%s\n--- YAML ---\n%s", what, k, gj, yj)
		}
	}
}
