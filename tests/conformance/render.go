package conformance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/render/format"
)

// A render's output (`pulumi-resource-karpenter render --args FILE`) is declared in package
// format, which imports nothing but the standard library, like this package. The checks read
// the component's type, the children's types, names and inputs ("[secret]" masks a secret), and
// the invokes.

// Render is a render's component, children, outputs and invokes.
type Render = format.Rendered

// Resource is one child: its type token, logical name and inputs.
type Resource = format.Resource

// Invoke is one provider function the component called: the arguments as sent and the result
// fields it reads ("a|b": a, falling back to b where the provider does not answer a).
type Invoke = format.Invoke

// RunRender runs the provider binary's render command on an args file.
func RunRender(bin, argsFile string) (*Render, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, "render", "--args", argsFile)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("render %s: %w: %s", argsFile, err, strings.TrimSpace(stderr.String()))
	}
	var r Render
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		return nil, fmt.Errorf("render %s: %w", argsFile, err)
	}
	return &r, nil
}

// RepoRoot is the repository root (the directory holding provider/ and tests/) above the
// working directory.
func RepoRoot() (string, error) {
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

// ProviderBinary is the built provider (`make build`); PROVIDER_BIN overrides it.
func ProviderBinary() (string, error) {
	if p := os.Getenv("PROVIDER_BIN"); p != "" {
		return p, nil
	}
	root, err := RepoRoot()
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
