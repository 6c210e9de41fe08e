package conformance

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/internal/repo"
)

// argsFiles are the install shapes rendered: the provider's golden args, the examples, the
// harness's args and this test's own (every child type and option, every supported
// generation). The harness's deliberately invalid args (testdata/args/bad) are left out.
func argsFiles(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	for _, pattern := range []string{
		"provider/testdata/args/*",
		"examples/render/*.json",
		"tests/testdata/args/*.json",
		"tests/conformance/testdata/args/*.json",
	} {
		matches, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil || len(matches) == 0 {
			t.Fatalf("no args files match %s (%v)", pattern, err)
		}
		files = append(files, matches...)
	}
	return files
}

// rendered is one args file's render.
type rendered struct {
	file   string
	render *Render
}

func renderAll(t *testing.T) []rendered {
	t.Helper()
	root, err := repo.Root()
	must(t, err)
	bin, err := repo.ProviderBinary()
	must(t, err)
	files := argsFiles(t, root)
	out := make([]rendered, len(files))
	var wg sync.WaitGroup
	errs := make([]error, len(files))
	sem := make(chan struct{}, 2) // the machine has 2 cores
	for i, f := range files {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			r, err := RunRender(bin, f)
			rel, _ := filepath.Rel(root, f)
			out[i], errs[i] = rendered{file: rel, render: r}, err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("%s: %v", files[i], err)
		}
	}
	return out
}

// TestConformance renders every install shape and checks each child's inputs and each
// invoke's arguments and read result fields against the published declarations of every
// checked provider version.
func TestConformance(t *testing.T) {
	pkgs, err := OpenAll()
	must(t, err)
	renders := renderAll(t)

	// The same finding on many children (every EventTarget, in every render) is reported once,
	// naming its first child and counting the rest.
	type seen struct {
		finding  Finding
		children map[string]bool
		files    []string
	}
	findings := map[string]*seen{}
	var order []string
	note := func(f Finding, file string) {
		key := f.Package.String() + "\x00" + f.Token + "\x00" + f.Message
		s, ok := findings[key]
		if !ok {
			s = &seen{finding: f, children: map[string]bool{}}
			findings[key] = s
			order = append(order, key)
		}
		s.children[file+"\x00"+f.Name] = true
		if len(s.files) == 0 || s.files[len(s.files)-1] != file {
			s.files = append(s.files, file)
		}
	}
	types, invokes := map[string]bool{}, map[string]bool{}
	checked := 0
	for _, r := range renders {
		for _, res := range r.render.Resources {
			types[res.Type] = true
			matched := false
			for _, pkg := range pkgs {
				if strings.HasPrefix(res.Type, pkg.Provider+":") {
					checked++
					matched = true
					for _, f := range CheckResource(pkg, res) {
						note(f, r.file)
					}
				}
			}
			if !matched {
				t.Errorf("%s: %s %s: no declarations of its provider are checked (add the package to versions.go)", r.file, res.Type, res.Name)
			}
		}
		// The Karpenter component always reads the AWS scope; a NodePool or NodeClass calls nothing.
		if len(r.render.Invokes) == 0 && r.render.Component.Type == "karpenter:index:Karpenter" {
			t.Fatalf("%s: the render reports no invokes (a provider binary older than the invokes list?)", r.file)
		}
		for _, inv := range r.render.Invokes {
			invokes[inv.Token] = true
			matched := false
			for _, pkg := range pkgs {
				if strings.HasPrefix(inv.Token, pkg.Provider+":") {
					checked++
					matched = true
					for _, f := range CheckInvoke(pkg, inv) {
						note(f, r.file)
					}
				}
			}
			if !matched {
				t.Errorf("%s: invoke %s: no declarations of its provider are checked (add the package to versions.go)", r.file, inv.Token)
			}
		}
	}
	t.Logf("%d renders, %d child types, %d invoke tokens, %d checks against %d packages", len(renders), len(types), len(invokes), checked, len(pkgs))

	sort.Strings(order)
	allowedUsed := map[string]bool{}
	for _, key := range order {
		s := findings[key]
		where := fmt.Sprintf(" [%s]", summarize(s.files))
		if n := len(s.children) - 1; n > 0 {
			where = fmt.Sprintf(" [and %d more children; in %s]", n, summarize(s.files))
		}
		switch f := s.finding; {
		case !f.Deprecated:
			t.Error(f.String() + where)
		case !IsNewest(f.Package):
			t.Log("note (deprecated in an older version): " + f.String() + where)
		case AllowedDeprecations[f.Key] != "":
			allowedUsed[f.Key] = true
			t.Logf("allowed: %s (%s)%s", f, AllowedDeprecations[f.Key], where)
		default:
			t.Error(f.String() + " (allow-list it in allow.go with a reason, or stop sending it)" + where)
		}
	}
	for key := range AllowedDeprecations {
		if !allowedUsed[key] {
			t.Errorf("allow.go: %q is allowed but no render sends or reads it deprecated any more: remove it", key)
		}
	}

	// Coverage: every type and invoke token the component declares appears in some render, and
	// so does a custom resource.
	declared := declaredTokens(t)
	for _, tok := range declared {
		if !types[tok] && !invokes[tok] {
			t.Errorf("no render covers %s: add an args file under tests/conformance/testdata/args that creates it", tok)
		}
	}
	custom := false
	for typ := range types {
		if strings.HasPrefix(typ, "kubernetes:karpenter") {
			custom = true
		}
	}
	if !custom {
		t.Error("no render has a Karpenter custom resource")
	}
}

// declaredTokens are the type and invoke tokens in provider/children/resources.go.
func declaredTokens(t *testing.T) []string {
	root, err := repo.Root()
	must(t, err)
	b, err := os.ReadFile(filepath.Join(root, "provider", "children", "resources.go"))
	must(t, err)
	var out []string
	for _, m := range regexp.MustCompile(`"((?:aws|kubernetes):[^"]+:[^"]+)"`).FindAllStringSubmatch(string(b), -1) {
		out = append(out, m[1])
	}
	sort.Strings(out)
	if len(out) == 0 {
		t.Fatal("provider/children/resources.go declares no type tokens")
	}
	return out
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func summarize(files []string) string {
	if len(files) <= 3 {
		return strings.Join(files, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(files[:3], ", "), len(files)-3)
}

// The versions the children are registered at (provider/children/resources.go) are among the checked ones.
func TestRegisteredVersionsAreChecked(t *testing.T) {
	root, err := repo.Root()
	must(t, err)
	b, err := os.ReadFile(filepath.Join(root, "provider", "children", "resources.go"))
	must(t, err)
	for provider, constant := range map[string]string{"aws": "AWSVersion", "kubernetes": "KubernetesVersion"} {
		m := regexp.MustCompile(constant + `\s*=\s*"([^"]+)"`).FindStringSubmatch(string(b))
		if m == nil {
			t.Fatalf("provider/children/resources.go: no %s", constant)
		}
		found := false
		for _, p := range Packages {
			found = found || (p.Provider == provider && p.Version == m[1])
		}
		if !found {
			t.Errorf("children are registered at %s %s, which versions.go (and install-declarations.sh) do not check", provider, m[1])
		}
	}
}
