package conformance

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The parser reads every declaration file of the checked packages without an error (each a
// few thousand files in the generators' style), so a construct it does not know fails here
// rather than as a missing key later.
func TestParseEveryDeclarationFile(t *testing.T) {
	pkgs, err := OpenAll()
	must(t, err)
	for _, pkg := range pkgs {
		n := 0
		err := filepath.WalkDir(pkg.Root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".d.ts") {
				return err
			}
			rel, _ := filepath.Rel(pkg.Root, path)
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if _, err := ParseFile(filepath.ToSlash(rel), string(src)); err != nil {
				t.Errorf("%s: %v", pkg, err)
			}
			n++
			return nil
		})
		must(t, err)
		t.Logf("%s: %d files parsed", pkg, n)
	}
}
