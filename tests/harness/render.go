package harness

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

// Render is what `pulumi-resource-karpenter render --args FILE` prints.
type Render struct {
	Component struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"component"`
	Resources []Resource     `json:"resources"`
	Outputs   map[string]any `json:"outputs"`
}

// Resource is one child resource the component would register.
type Resource struct {
	Type      string         `json:"type"`
	Name      string         `json:"name"`
	Parent    string         `json:"parent,omitempty"`
	DependsOn []string       `json:"dependsOn,omitempty"`
	Inputs    map[string]any `json:"inputs"`
}

// Type tokens the harness treats specially.
const (
	ReleaseType   = "kubernetes:helm.sh/v3:Release"
	NodePoolType  = "kubernetes:karpenter.sh/v1:NodePool"
	NodeClassType = "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"
)

// IsKubernetes reports whether the resource is applied to the cluster (as opposed to AWS).
func (r Resource) IsKubernetes() bool { return strings.HasPrefix(r.Type, "kubernetes:") }

// IsRelease reports whether the resource is a Helm release.
func (r Resource) IsRelease() bool { return r.Type == ReleaseType }

// String returns the input at a dotted path ("values.settings.clusterName"), or "".
func (r Resource) String(path string) string {
	s, _ := Lookup(r.Inputs, path).(string)
	return s
}

// Lookup walks nested maps along a dotted path; it returns nil when any step is missing.
func Lookup(v any, path string) any {
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// Get returns the resource with the given logical name.
func (r *Render) Get(name string) (Resource, bool) {
	for _, res := range r.Resources {
		if res.Name == name {
			return res, true
		}
	}
	return Resource{}, false
}

// OfType returns the resources of one type token, in registration order.
func (r *Render) OfType(typ string) []Resource {
	var out []Resource
	for _, res := range r.Resources {
		if res.Type == typ {
			out = append(out, res)
		}
	}
	return out
}

// Release returns the Helm release whose chart reference ends in "/"+chart (or equals chart).
func (r *Render) Release(chart string) (Resource, bool) {
	for _, res := range r.OfType(ReleaseType) {
		ref := res.String("chart")
		if ref == chart || strings.HasSuffix(ref, "/"+chart) {
			return res, true
		}
	}
	return Resource{}, false
}

// RenderError is a render that exited non-zero.
type RenderError struct {
	ExitCode int
	Stderr   string
}

func (e *RenderError) Error() string {
	return fmt.Sprintf("render exited %d: %s", e.ExitCode, strings.TrimSpace(e.Stderr))
}

// RunRender runs the provider binary's render command on an args file.
func RunRender(bin, argsFile string) (*Render, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, "render", "--args", argsFile)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return nil, &RenderError{ExitCode: exit.ExitCode(), Stderr: stderr.String()}
		}
		return nil, fmt.Errorf("run %s: %w", bin, err)
	}
	return ParseRender(stdout.Bytes())
}

// ParseRender decodes render output and checks the invariants the harness relies on.
func ParseRender(b []byte) (*Render, error) {
	// Plain float64 numbers, as Helm and the Kubernetes JSON decoders produce them.
	var r Render
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("decode render output: %w", err)
	}
	seen := map[string]bool{}
	for _, res := range r.Resources {
		if res.Name == "" || res.Type == "" {
			return nil, fmt.Errorf("render: resource without type or name: %+v", res)
		}
		if seen[res.Name] {
			return nil, fmt.Errorf("render: duplicate resource name %q", res.Name)
		}
		seen[res.Name] = true
	}
	for _, res := range r.Resources {
		for _, d := range res.DependsOn {
			if !seen[d] {
				return nil, fmt.Errorf("render: %s depends on unknown resource %q", res.Name, d)
			}
		}
	}
	return &r, nil
}

// RepoRoot finds the repository root (the directory holding provider/ and tests/) from the
// working directory, so tests and the demo work from tests/ or from the root.
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
