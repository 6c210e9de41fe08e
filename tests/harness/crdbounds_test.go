package harness

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/internal/repo"
)

var updateCRDBounds = flag.Bool("update-crd-bounds", false, "rewrite "+CRDBoundsFile+" from the CRDs")

// The committed CRD bounds are what the CRDs of each version say: a version added to the harness,
// or a CRD changed, fails here until the file is made again (-update-crd-bounds).
func TestCRDBoundsAreTheCRDs(t *testing.T) {
	want, err := CRDBounds()
	if err != nil {
		t.Fatal(err)
	}
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, filepath.FromSlash(CRDBoundsFile))
	if *updateCRDBounds {
		if err := os.WriteFile(file, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("%s is not what the CRDs say: run `go test ./harness -run TestCRDBoundsAreTheCRDs -update-crd-bounds` in tests/ and review the diff", CRDBoundsFile)
	}
}
