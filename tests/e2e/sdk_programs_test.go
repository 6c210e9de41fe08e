//go:build e2e

package e2e

import (
	"archive/zip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/internal/repo"
)

// Each language's program of tests/e2e/programs, installed from the release's packages as a user installs
// them (npm, pip, a go.mod replace, Maven), ready to run a step.

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
	tests, err := repo.TestsDir()
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
	src, dir := testsPath(t, "e2e", "programs", "nodejs"), filepath.Join(t.TempDir(), "nodejs")
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
	src, dir := testsPath(t, "e2e", "programs", "python"), filepath.Join(t.TempDir(), "python")
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
	src, dir := testsPath(t, "e2e", "programs", "go"), filepath.Join(t.TempDir(), "go")
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
	src, dir := testsPath(t, "e2e", "programs", "java"), filepath.Join(t.TempDir(), "java")
	mavenRepo := filepath.Join(filepath.Dir(dir), "maven-repo")
	for _, d := range []string{filepath.Join(dir, "src", "main", "java", "e2e"), filepath.Join(dir, "typo"), mavenRepo} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	copyFiles(t, src, dir, "pom.xml", filepath.Join("src", "main", "java", "e2e", "App.java"), filepath.Join("typo", "Typo.java"))
	unzip(t, dist.maven, mavenRepo)
	local := filepath.Join(repo.CacheDir(), "e2e-sdk-java-m2")
	if err := os.RemoveAll(filepath.Join(local, "io", "github", "pulumikarpenter")); err != nil {
		t.Fatal(err)
	}
	install(t, dir, "mvn", "-B", "-q", "-ntp", "-Dstyle.color=never", "-Dmaven.repo.local="+local,
		"-Dkarpenter.version="+dist.version, "-Dkarpenter.repo=file://"+mavenRepo,
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
