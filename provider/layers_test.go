package provider

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
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
// render runs the provider under an in-process engine: it imports the layers (children's
// recorder) and is given the provider it runs, so that the top, which wires it (and so imports
// it: Go refuses the cycle of render importing the top), and the tests can import it.
var layers = []string{"field", "catalog", "inputs", "plan", "children", "render"}

// leaves are packages any layer may import: they import only the standard library. render's
// output format is one, so that the tests module (tests/) can read a render without the
// provider's dependencies.
var leaves = []string{"render/format"}

const modulePath = "github.com/pulumi-karpenter/pulumi-karpenter/provider/"

func TestLayersImportDownwardOnly(t *testing.T) {
	for rank, layer := range layers {
		pkg, err := build.ImportDir(layer, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range append(slices.Clone(pkg.Imports), pkg.TestImports...) {
			// Test helpers (internal/argstest: args from JSON) serve the layers' tests only.
			if slices.Contains(pkg.TestImports, imp) && !slices.Contains(pkg.Imports, imp) && strings.HasPrefix(imp, modulePath+"internal/") {
				continue
			}
			if other, ok := strings.CutPrefix(imp, modulePath); ok {
				if i := slices.Index(layers, other); (i < 0 || i >= rank) && !slices.Contains(leaves, other) {
					t.Errorf("provider/%s imports %s: a layer imports only the layers before it (%s) and the leaves (%s)", layer, imp, strings.Join(layers[:rank], ", "), strings.Join(leaves, ", "))
				}
			}
		}
		// A layer's external tests (package <layer>_test) assert what it decides through a whole
		// render: they see the provider only through internal/rendertest, the one way to render.
		for _, imp := range pkg.XTestImports {
			if imp == strings.TrimSuffix(modulePath, "/") {
				t.Errorf("provider/%s's external tests import the provider itself: render through %sinternal/rendertest", layer, modulePath)
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

// Only children registers resources and handles Outputs: inputs and plan may name Pulumi's Input
// types (the args carry them) but never resolve or create an Output, nor take a context.
func TestOnlyChildrenHandlesOutputs(t *testing.T) {
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

// The leaves import only the standard library (an import path without a dot in its first
// element), in their tests too.
func TestLeavesImportOnlyTheStandardLibrary(t *testing.T) {
	for _, leaf := range leaves {
		pkg, err := build.ImportDir(leaf, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range append(append(slices.Clone(pkg.Imports), pkg.TestImports...), pkg.XTestImports...) {
			if first, _, _ := strings.Cut(imp, "/"); strings.Contains(first, ".") {
				t.Errorf("provider/%s imports %s: it imports only the standard library", leaf, imp)
			}
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
	for _, layer := range []string{"inputs", "plan", "children"} {
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

// Whether Auto Mode runs Karpenter is asked one way, in every layer: release.IsAutoMode() (the
// Plan's Mode() says it for the `mode` output only).
func TestAutoModeIsAskedOneWay(t *testing.T) {
	other := regexp.MustCompile(`\.AutoMode (!=|==) nil|Mode\(?\)? (==|!=) inputs\.Mode|switch [a-z.]*Mode\(?\)? \{`)
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, layer := range []string{"catalog", "inputs", "plan", "children", "render"} {
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
		for i, line := range strings.Split(string(src), "\n") {
			if other.MatchString(line) && !strings.Contains(line, "func (r Release) IsAutoMode()") {
				t.Errorf("%s:%d: Auto Mode asked another way than release.IsAutoMode(): %s", f, i+1, strings.TrimSpace(line))
			}
		}
	}
}

// The Plan is the only channel into children: it never sees the component's args (their
// Input-typed values reach it as the Plan's Deferred), nor the raw construct inputs (what the
// engine sent known is the Plan's Known).
func TestChildrenReadOnlyThePlan(t *testing.T) {
	forbidden := map[string]string{
		"inputs.KarpenterArgs": "the component's args", "inputs.NodePoolArgs": "a NodePool's args",
		"inputs.NodeClassArgs": "a NodeClass's args",
	}
	for _, f := range parseLayer(t, "children", false) {
		for _, imp := range f.file.Imports {
			if imp.Path.Value == `"github.com/pulumi/pulumi/sdk/v3/go/property"` {
				t.Errorf("%s imports the raw property values: what children needs of the construct inputs is in the Plan", f.name)
			}
		}
		ast.Inspect(f.file, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok {
					if what, bad := forbidden[x.Name+"."+sel.Sel.Name]; bad {
						t.Errorf("%s: reads %s (%s.%s); children reads only the Plan", f.fset.Position(sel.Pos()), what, x.Name, sel.Sel.Name)
					}
				}
			}
			return true
		})
	}
}

// Plans are made by the plan package (plan.New, plan.ForNodePool, plan.ForNodeClass), which
// checks what it resolves; a Plan literal elsewhere (tests included) would skip the checks.
func TestNoPlanMadeOutsidePlan(t *testing.T) {
	dirs := []string{"."}
	for _, layer := range layers {
		if layer != "plan" {
			dirs = append(dirs, layer)
		}
	}
	for _, dir := range dirs {
		for _, f := range parseLayer(t, dir, true) {
			ast.Inspect(f.file, func(n ast.Node) bool {
				lit, ok := n.(*ast.CompositeLit)
				if !ok {
					return true
				}
				if sel, ok := lit.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "Plan" {
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == "plan" {
						t.Errorf("%s: a plan.Plan literal; make plans with the plan package's constructors", f.fset.Position(lit.Pos()))
					}
				}
				return true
			})
		}
	}
}

type parsedFile struct {
	name string
	fset *token.FileSet
	file *ast.File
}

// parseLayer parses the Go files of a directory (its tests too, when tests).
func parseLayer(t *testing.T, dir string, tests bool) []parsedFile {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []parsedFile
	for _, name := range names {
		if !tests && strings.HasSuffix(name, "_test.go") {
			continue
		}
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, parsedFile{name, fset, file})
	}
	return out
}
