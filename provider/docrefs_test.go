package provider

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The provider's comments name files and identifiers to send a reader there ("plan/owners.go",
// "catalog.AccessEntryOwnerTag"); a rename or a move that leaves a comment behind sends the reader
// nowhere. Every file a comment names with a directory exists (from the repository's root, from
// provider/, or beside the commenting file), and every `<layer>.<Exported>` a comment names is a
// declaration, method or field of that layer.
func TestCommentsNameWhatExists(t *testing.T) {
	layers := map[string]map[string]bool{}
	for _, layer := range []string{"field", "catalog", "inputs", "plan", "children", "render"} {
		layers[layer] = declaredNames(t, layer)
	}
	fileRef := regexp.MustCompile(`\b((?:[\w.-]+/)+[\w.-]+\.(?:go|sh|md|json|yaml|yml|mk))\b`)
	identRef := regexp.MustCompile(`\b(field|catalog|inputs|plan|children|render)\.([A-Z]\w*)`)
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.Contains(path, "testdata") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		for _, group := range f.Comments {
			text := group.Text()
			for _, m := range fileRef.FindAllStringSubmatch(text, -1) {
				ref := strings.TrimSuffix(m[1], ".")
				if strings.Contains(ref, "://") || strings.HasPrefix(ref, "github.com/") || strings.HasPrefix(ref, "sigs.k8s.io/") {
					continue
				}
				if !existsFrom(ref, "..", ".", filepath.Dir(path)) && !upstreamPath(text, ref) {
					t.Errorf("%s: a comment names %s, which does not exist", path, ref)
				}
			}
			for _, m := range identRef.FindAllStringSubmatch(text, -1) {
				if !layers[m[1]][m[2]] {
					t.Errorf("%s: a comment names %s.%s, which provider/%s does not declare", path, m[1], m[2], m[1])
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// existsFrom: ref names a file or directory in one of dirs; a pattern (validate_*.go) matches at least one.
func existsFrom(ref string, dirs ...string) bool {
	for _, d := range dirs {
		if matches, _ := filepath.Glob(filepath.Join(d, ref)); len(matches) > 0 {
			return true
		}
	}
	return false
}

// upstreamPath: a path a comment cites as another project's (Karpenter's, EKS's, a module's)
// rather than this repository's — the comment names the project near it.
func upstreamPath(text, ref string) bool {
	i := strings.Index(text, ref)
	before := strings.ToLower(text[max(0, i-200):min(len(text), i+len(ref)+80)])
	for _, project := range []string{"karpenter-provider-aws", "sigs.k8s.io", "pulumi-aws", "pulumi-eks", "pulumi-kubernetes",
		"pulumi/pulumi", "pulumi's", "helm", "upstream", "aws/", "kubernetes/", "terraform", "eksctl", "awslabs", "module zip", "k8s.io", "internal/service"} {
		if strings.Contains(before, project) {
			return true
		}
	}
	return false
}

// declaredNames are the names a package declares at top level, with its methods' and struct
// fields' names (a comment may name plan.CheckCluster for (*Plan).CheckCluster).
func declaredNames(t *testing.T, dir string) map[string]bool {
	t.Helper()
	pkgs, err := parser.ParseDir(token.NewFileSet(), dir, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, pkg := range pkgs {
		for _, f := range pkg.Files {
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.FuncDecl:
					names[n.Name.Name] = true
				case *ast.TypeSpec:
					names[n.Name.Name] = true
				case *ast.ValueSpec:
					for _, id := range n.Names {
						names[id.Name] = true
					}
				case *ast.Field:
					for _, id := range n.Names {
						names[id.Name] = true
					}
				}
				return true
			})
		}
	}
	return names
}

// A package's doc (the comment above any of its files' package clause) is where a reader starts,
// in both modules: what the package docs of provider/ and tests/ name exists. Beyond what
// TestCommentsNameWhatExists checks in provider's comments, a package doc names its own files bare
// ("install.go") and directories with their slash ("moto/"), identifiers of any package of the
// repository by its directory's name ("lab.NewWorld", "provider.Renderer"), its own types' methods
// and fields ("World.Ops"), and Go doc links ("[Plan]", "[plan.New]"). A file or directory resolves
// from the package's directory or any directory above it, up to the repository's root
// (tests/e2e/programs/go's doc names the lab's programs from tests/e2e). Not checked, as ambiguous: a
// bare identifier in backquotes (they quote commands and values too: `schema`), and a directory
// name two packages share. Files are parsed one by one, so build tags (e2e) hide none.
func TestPackageDocsNameWhatExists(t *testing.T) {
	dirsNamed := map[string][]string{} // a directory's name → the directories of Go files with it
	type doc struct {
		file, pkg string
		fset      *token.FileSet
		group     *ast.CommentGroup
	}
	var docs []doc
	for _, tree := range []string{"../provider", "../tests"} {
		err := filepath.WalkDir(tree, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			// What Go leaves out of packages (testdata, _ and . directories) and what package managers put in.
			if name := d.Name(); d.IsDir() && (name == "testdata" || name == "node_modules" || name == "vendor" ||
				name[0] == '.' || name[0] == '_') {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") {
				return nil
			}
			if dir := filepath.Dir(path); !slices.Contains(dirsNamed[filepath.Base(dir)], dir) {
				dirsNamed[filepath.Base(dir)] = append(dirsNamed[filepath.Base(dir)], dir)
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, nil, parser.PackageClauseOnly|parser.ParseComments)
			if err == nil && f.Doc != nil {
				docs = append(docs, doc{path, f.Name.Name, fset, f.Doc})
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(docs) == 0 {
		t.Fatal("no package doc found under ../provider and ../tests")
	}
	declared := map[string]map[string]bool{} // parsed once per directory a doc names
	declares := func(dir string, names ...string) bool {
		if declared[dir] == nil {
			declared[dir] = declaredNames(t, dir)
		}
		for _, n := range names {
			if !declared[dir][n] {
				return false
			}
		}
		return true
	}
	fileRef := regexp.MustCompile(`(?:^|[\s(,;:"` + "`" + `])((?:[\w.*-]+/)*[\w*-][\w.*-]*\.(?:go|sh|md|json|yaml|yml|mk|py|mod))\b`)
	dirRef := regexp.MustCompile(`(?:^|[\s(,;:])((?:[\w.-]+/)+)(?:[\s),;:]|$)`) // a directory as docs write one: moto/
	qualified := regexp.MustCompile(`\b([a-z][\w-]*)\.([A-Z]\w*)(?:\.([A-Z]\w*))?`)
	typeMember := regexp.MustCompile(`(?:^|[^\w.])([A-Z]\w*)\.([A-Z]\w*)`)
	ownLink := regexp.MustCompile(`(?:^|[\s(])\[\*?([A-Z]\w*)\](?:[^\w:(]|$)`)
	for _, d := range docs {
		text, dir := d.group.Text(), filepath.Dir(d.file)
		var above []string // the package's directory and those above it, to the root
		for at := dir; at != "."; at = filepath.Dir(at) {
			above = append(above, at)
		}
		for _, c := range d.group.List {
			at := fmt.Sprintf("%s:%d: package %s's doc names", strings.TrimPrefix(d.file, "../"), d.fset.Position(c.Pos()).Line, d.pkg)
			for _, m := range append(fileRef.FindAllStringSubmatch(c.Text, -1), dirRef.FindAllStringSubmatch(c.Text, -1)...) {
				if !existsFrom(m[1], above...) && !upstreamPath(text, m[1]) {
					t.Errorf("%s %s, which does not exist from %s or a directory above it", at, m[1], strings.TrimPrefix(dir, "../"))
				}
			}
			for _, m := range qualified.FindAllStringSubmatch(c.Text, -1) {
				dirs := dirsNamed[m[1]]
				if len(dirs) != 1 || upstreamPath(text, m[0]) {
					continue // not one package of this repository's, or cited as another project's
				}
				if !declares(dirs[0], slices.DeleteFunc(m[2:], func(s string) bool { return s == "" })...) {
					t.Errorf("%s %s, which %s does not declare", at, m[0], strings.TrimPrefix(dirs[0], "../"))
				}
			}
			for _, m := range typeMember.FindAllStringSubmatch(c.Text, -1) {
				if declares(dir, m[1]) && !declares(dir, m[2]) {
					t.Errorf("%s %s.%s, and its package declares no %s", at, m[1], m[2], m[2])
				}
			}
			for _, m := range ownLink.FindAllStringSubmatch(c.Text, -1) {
				if !declares(dir, m[1]) {
					t.Errorf("%s [%s], which its package does not declare", at, m[1])
				}
			}
		}
	}
}
