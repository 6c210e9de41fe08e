package conformance

import (
	"fmt"
	"path/filepath"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/internal/repo"
)

// Packages are the declarations every child and invoke is checked against (keep in step with
// install-declarations.sh): for each provider, the version the children are registered at
// (provider/children/resources.go) and the current release of the major a program may pass instead
// (a program on pulumi-aws v7 passes a v7 provider, which the children then use).
var Packages = []struct {
	Provider, Version string
	Newest            bool // the newest checked version of its provider: deprecations fail here
}{
	{"aws", "6.83.2", false},
	{"aws", "7.48.0", true},
	{"kubernetes", "4.30.0", false},
	{"kubernetes", "4.34.2", true},
}

// DeclarationsDir is where install-declarations.sh unpacks the packages.
func DeclarationsDir() string {
	return filepath.Join(repo.CacheDir(), "conformance")
}

// OpenAll opens every package of Packages from DeclarationsDir.
func OpenAll() ([]*Package, error) {
	var out []*Package
	for _, p := range Packages {
		root := filepath.Join(DeclarationsDir(), p.Provider+"-"+p.Version, "package")
		pkg, err := OpenPackage(p.Provider, p.Version, root)
		if err != nil {
			return nil, fmt.Errorf("declarations of @pulumi/%s %s: %w (run `make conformance-deps`)", p.Provider, p.Version, err)
		}
		out = append(out, pkg)
	}
	return out, nil
}

// IsNewest reports whether pkg is the newest checked version of its provider.
func IsNewest(pkg *Package) bool {
	for _, p := range Packages {
		if p.Provider == pkg.Provider && p.Version == pkg.Version {
			return p.Newest
		}
	}
	return false
}
