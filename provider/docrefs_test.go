package provider

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
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

func existsFrom(ref string, dirs ...string) bool {
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, ref)); err == nil {
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
