package tests

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxLines is the most lines a hand-written Go file of the repository may have: past it, a file
// holds more than one concern and is split by concern. This is the one check of the rule, for
// provider/ too.
const maxLines = 600

// Every hand-written Go file of the repository — the provider, the tests, the tools, the
// examples — stays readable: at most maxLines lines. Generated code is excepted: the SDKs (sdk/)
// and the release's packages (dist/), and what package managers and builds put in the tree
// (node_modules, vendor, target, bin/, hidden directories such as .git).
func TestFilesStayReadableEverywhere(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "provider")); err != nil {
		t.Fatalf("%s is not the repository root: %v", root, err)
	}
	generated := map[string]bool{"sdk": true, "dist": true, "bin": true}
	var checked int
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			name := d.Name()
			switch {
			case path == root:
			case strings.HasPrefix(name, "."), name == "node_modules", name == "vendor", name == "target",
				generated[rel]:
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		checked++
		if n := strings.Count(string(src), "\n"); n > maxLines {
			t.Errorf("%s: %d lines; split it by concern (at most %d)", rel, n, maxLines)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatalf("no Go file found under %s", root)
	}
}
