//go:build e2e

package e2e

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// prepareGo: the Registry page's Go program as main.go, run by snippets/runner.go as an Automation
// API inline program (the module proxy serves no Go language host; runner.go says what the two
// changes to the program are, each checked to happen once), built with examples/go's go.mod and
// go.sum — the SDKs the page imports — with the release's Go SDK in place of ../../sdk/go, and
// the modules the Automation API needs beyond the program at the versions tests/e2e/programs/go's
// go.mod pins (its go.sum beside the example's).
func (r *snippetRun) prepareGo(t *testing.T, snippet string, dist sdkDist) {
	r.dir = filepath.Join(t.TempDir(), "go")
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	example, sdkProgram := filepath.Join(testsPath(t), "..", "examples", "go"), testsPath(t, "e2e", "programs", "go")
	copyFiles(t, example, r.dir, "go.mod", "go.sum")
	copyFiles(t, testsPath(t, "e2e", "snippets"), r.dir, "runner.go")
	program := snippet
	for _, change := range [][2]string{{"func main() {", "func pageMain() {"}, {"pulumi.Run(", "captureRun("}} {
		if n := strings.Count(program, change[0]); n != 1 {
			t.Fatalf("the Registry page's Go program has %q %d times, want once: snippets/runner.go runs it by changing that", change[0], n)
		}
		program = strings.Replace(program, change[0], change[1], 1)
	}
	write(t, filepath.Join(r.dir, "main.go"), program)

	install(t, r.dir, "go", "mod", "edit", "-replace=github.com/pulumi-karpenter/pulumi-karpenter/sdk/go="+dist.goSDK)
	have := goModRequires(t, r.dir)
	for path, version := range goModRequires(t, sdkProgram) {
		if _, ok := have[path]; !ok {
			install(t, r.dir, "go", "mod", "edit", "-require="+path+"@"+version)
		}
	}
	sums, err := os.ReadFile(filepath.Join(sdkProgram, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(r.dir, "go.sum"), os.O_APPEND|os.O_WRONLY, 0)
	if err == nil {
		_, err = f.Write(sums)
		err = errors.Join(err, f.Close())
	}
	if err != nil {
		t.Fatal(err)
	}
	install(t, r.dir, "go", "build", "-mod=mod", "-tags", "examplerunner", "-o", "program", ".")
	r.argv = []string{"./program"}
}

// goModRequires are the modules dir's go.mod requires, path → version.
func goModRequires(t *testing.T, dir string) map[string]string {
	t.Helper()
	var mod struct {
		Require []struct{ Path, Version string }
	}
	if err := json.Unmarshal([]byte(install(t, dir, "go", "mod", "edit", "-json")), &mod); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, r := range mod.Require {
		out[r.Path] = r.Version
	}
	return out
}
