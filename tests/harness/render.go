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

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Render is what `pulumi-resource-karpenter render --args FILE` prints.
type Render struct {
	Component struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"component"`
	Resources []Resource     `json:"resources"`
	Outputs   map[string]any `json:"outputs"`
	// Invokes are the provider functions the component called (tests/conformance checks them).
	Invokes []Invoke `json:"invokes,omitempty"`
}

// Invoke is one provider function the component called: token, arguments as sent, and the
// result fields it reads ("a|b": a, falling back to b where the provider lacks a).
type Invoke struct {
	Token string         `json:"token"`
	Args  map[string]any `json:"args"`
	Reads []string       `json:"reads"`
}

// Resource is one child resource the component would register.
type Resource struct {
	Type      string         `json:"type"`
	Name      string         `json:"name"`
	Parent    string         `json:"parent,omitempty"`
	DependsOn []string       `json:"dependsOn,omitempty"`
	Inputs    map[string]any `json:"inputs"`
	// Aliases are earlier type tokens of the same resource (e.g. the v1beta1 kind of a v1
	// NodePool), so an upgrade updates it in place. Informational for the harness.
	Aliases []string `json:"aliases,omitempty"`
	// ReadID is set on an existing object the component reads ("<namespace>/<name>" for
	// namespaced kubernetes objects): nothing creates it, and destroy leaves it alone.
	ReadID string `json:"readId,omitempty"`
	// RetainOnDelete marks a resource `pulumi destroy` leaves in place.
	RetainOnDelete bool `json:"retainOnDelete,omitempty"`
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

// IsRead reports whether the resource is an existing object the component only reads.
func (r Resource) IsRead() bool { return r.ReadID != "" }

// IsPatch reports whether the resource is a pulumi-kubernetes Patch resource
// (kubernetes:<apiVersion>:<Kind>Patch): a server-side apply to an existing object.
func (r Resource) IsPatch() bool {
	_, kind, ok := r.kubernetesKind()
	return ok && !r.IsRelease() && strings.HasSuffix(kind, "Patch")
}

// IsCustomResource reports whether the resource is one of Karpenter's provisioning custom
// resources (NodePool, EC2NodeClass, Provisioner, AWSNodeTemplate, in any API version), or EKS
// Auto Mode's NodeClass (eks.amazonaws.com; the group's other kinds are not provisioning ones).
func (r Resource) IsCustomResource() bool {
	apiVersion, kind, ok := r.kubernetesKind()
	if !ok || r.IsRelease() || r.IsRead() {
		return false
	}
	group, _, _ := strings.Cut(apiVersion, "/")
	return group == "karpenter.sh" || group == "karpenter.k8s.aws" || (group == "eks.amazonaws.com" && kind == "NodeClass")
}

// GroupVersionKind is the Kubernetes kind of a kubernetes:<apiVersion>:<Kind> type token
// (empty for other types).
func (r Resource) GroupVersionKind() schema.GroupVersionKind {
	apiVersion, kind, _ := r.kubernetesKind()
	return schema.FromAPIVersionAndKind(apiVersion, kind)
}

// kubernetesKind splits a kubernetes:<apiVersion>:<Kind> type token.
func (r Resource) kubernetesKind() (apiVersion, kind string, ok bool) {
	return splitKubernetesType(r.Type)
}

// The core API group is "core" in Pulumi type tokens (kubernetes:core/v1:ConfigMap) and
// empty in apiVersion ("v1"); the returned apiVersion is the Kubernetes one.
func splitKubernetesType(typ string) (apiVersion, kind string, ok bool) {
	parts := strings.Split(typ, ":")
	if len(parts) != 3 || parts[0] != "kubernetes" || parts[1] == "" || parts[2] == "" {
		return "", "", false
	}
	return strings.TrimPrefix(parts[1], "core/"), parts[2], true
}

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

// checkAliases checks that a kubernetes resource's aliases are earlier API versions of the
// same kind (what the component uses them for); anything else is unexpected.
func checkAliases(res Resource) error {
	if len(res.Aliases) == 0 {
		return nil
	}
	apiVersion, kind, ok := res.kubernetesKind()
	if !ok {
		return fmt.Errorf("render: %s (%s) has aliases %v; the harness only knows type aliases of kubernetes resources", res.Name, res.Type, res.Aliases)
	}
	group, _, _ := strings.Cut(apiVersion, "/")
	for _, a := range res.Aliases {
		av, ak, ok := splitKubernetesType(a)
		ag, _, _ := strings.Cut(av, "/")
		if !ok || ak != kind || ag != group || av == apiVersion {
			return fmt.Errorf("render: %s (%s) has alias %q; want another API version of the same group and kind", res.Name, res.Type, a)
		}
	}
	return nil
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
	// Plain float64 numbers, as Helm and the Kubernetes JSON decoders produce them. Unknown
	// fields are an error: a new resource option in the render must be handled here, not
	// silently dropped.
	var r Render
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
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
		if err := checkAliases(res); err != nil {
			return nil, err
		}
		if res.IsRead() && (!res.IsKubernetes() || res.IsRelease() || res.IsPatch()) {
			return nil, fmt.Errorf("render: %s reads %q, but the harness can only read plain kubernetes objects, not %s", res.Name, res.ReadID, res.Type)
		}
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
