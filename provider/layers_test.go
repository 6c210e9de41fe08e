package provider

import (
	"go/build"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// layers are the provider's packages in pipeline order; each imports only the ones before it
// (this package, the top, imports them all). Go refuses an import cycle; this test also
// refuses an acyclic import against the order (catalog importing inputs, say), which Go allows.
// field (paths and errors of the inputs) is below them all and imports only the standard library.
var layers = []string{"field", "catalog", "inputs", "plan", "children"}

const modulePath = "github.com/pulumi-karpenter/pulumi-karpenter/provider/"

func TestLayersImportDownwardOnly(t *testing.T) {
	for rank, layer := range layers {
		pkg, err := build.ImportDir(layer, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range append(slices.Clone(pkg.Imports), pkg.TestImports...) {
			if other, ok := strings.CutPrefix(imp, modulePath); ok {
				if i := slices.Index(layers, other); i < 0 || i >= rank {
					t.Errorf("provider/%s imports %s: a layer imports only the layers before it (%s)", layer, imp, strings.Join(layers[:rank], ", "))
				}
			}
		}
		if layer == "field" {
			for _, imp := range append(append(slices.Clone(pkg.Imports), pkg.TestImports...), pkg.XTestImports...) {
				if first, _, _ := strings.Cut(imp, "/"); strings.Contains(first, ".") {
					t.Errorf("provider/field imports %s: it imports only the standard library", imp)
				}
			}
		}
		// The catalog is data and the plan is pure: neither needs Pulumi (the plan's tests name
		// pulumi.String to fill the args' Input fields).
		for _, imp := range pkg.Imports {
			if (layer == "catalog" || layer == "plan") && strings.HasPrefix(imp, "github.com/pulumi/") {
				t.Errorf("provider/%s imports %s: it must not depend on Pulumi", layer, imp)
			}
		}
	}
}

// Only build registers resources and handles Outputs: spec and plan may name Pulumi's Input
// types (the args carry them) but never resolve or create an Output, nor take a context.
func TestOnlyBuildHandlesOutputs(t *testing.T) {
	outputs := regexp.MustCompile(`pulumi\.Context|\.ApplyT\(|pulumi\.All\(|\.ToStringOutput\(|\.ToStringPtrOutput\(`)
	for _, layer := range []string{"catalog", "inputs", "plan"} {
		files, err := filepath.Glob(filepath.Join(layer, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for i, line := range strings.Split(string(src), "\n") {
				if m := outputs.FindString(line); m != "" && !strings.HasPrefix(strings.TrimSpace(line), "//") {
					t.Errorf("%s:%d: %s belongs in provider/children (the only layer that handles Outputs)", f, i+1, m)
				}
			}
		}
	}
}

// No file over ~600 lines: a file is one concern a reader can hold.
func TestFilesStayReadable(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, layer := range layers {
		more, err := filepath.Glob(filepath.Join(layer, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, more...)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(src), "\n"); n > 600 {
			t.Errorf("%s: %d lines; split it by concern (at most 600)", f, n)
		}
	}
}

// Versions branch only in the catalog: the layers above ask a release what it has (Has,
// Require, UnreadChartSettings) rather than compare its version.
func TestVersionsBranchOnlyInTheCatalog(t *testing.T) {
	comparison := regexp.MustCompile(`\.(LT|LTE|GT|GTE|EQ|Compare)\(`)
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, layer := range []string{"spec", "plan", "build"} {
		more, err := filepath.Glob(filepath.Join(layer, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, more...)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(src), "\n") {
			if comparison.MatchString(line) {
				t.Errorf("%s:%d: a version comparison outside provider/catalog; add a catalog.Feature and ask release.Has", f, i+1)
			}
		}
	}
}
