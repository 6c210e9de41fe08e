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
)

// The parts of `pulumi-resource-karpenter render --args FILE` output the checks read. (The
// harness decodes the same output strictly; this package only needs types, names, inputs and
// invokes, and depends on nothing but the standard library.)

// Render is a render's component, children and invokes.
type Render struct {
	Component struct {
		Type string `json:"type"`
	} `json:"component"`
	Resources []Resource `json:"resources"`
	Invokes   []Invoke   `json:"invokes"`
}

// Resource is one child: its type token, logical name and inputs ("[secret]" masks a secret).
type Resource struct {
	Type   string         `json:"type"`
	Name   string         `json:"name"`
	Inputs map[string]any `json:"inputs"`
	// ReadID is set for an existing object the component reads instead of creating.
	ReadID string `json:"readId,omitempty"`
}

// Invoke is one provider function the component called: the arguments as sent and the result
// fields it reads ("a|b": a, falling back to b where the provider does not answer a).
type Invoke struct {
	Token string         `json:"token"`
	Args  map[string]any `json:"args"`
	Reads []string       `json:"reads"`
}

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
