// Package repo locates what every test of the tests module finds the same way: the repository's
// root, its tests/ directory, the cache of heavy builds, and the built provider.
package repo

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Root is the repository root (the directory holding provider/ and tests/) at or above the
// working directory. Not runtime.Caller: `make test` compiles with -trimpath, which leaves no
// file system path in the binary.
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if isDir(filepath.Join(dir, "provider")) && isDir(filepath.Join(dir, "tests")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("repository root (with provider/ and tests/) not found above the working directory")
		}
		dir = parent
	}
}

// TestsDir is the tests module's directory, tests/ under Root.
func TestsDir() (string, error) {
	root, err := Root()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "tests"), nil
}

// CacheDir is where heavy, reusable builds live: $CACHE_DIR, else ~/.cache/pulumi-karpenter (the
// root Makefile's default).
func CacheDir() string {
	if d := os.Getenv("CACHE_DIR"); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		home = os.TempDir()
	}
	return filepath.Join(home, ".cache", "pulumi-karpenter")
}

// ProviderBinary is the built provider (`make build`); PROVIDER_BIN overrides it.
func ProviderBinary() (string, error) {
	if p := os.Getenv("PROVIDER_BIN"); p != "" {
		return p, nil
	}
	root, err := Root()
	if err != nil {
		return "", err
	}
	p := filepath.Join(root, "bin", "pulumi-resource-karpenter")
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("%s is missing (run `make build`): %w", p, err)
	}
	return p, nil
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
