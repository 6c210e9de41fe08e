package harness

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/render/format"
)

// Render is what `pulumi-resource-karpenter render --args FILE` prints (package format), with
// what the harness asks of it: a resource by name or type, the order to create and delete them.
type Render struct {
	format.Rendered
}

// Invoke is one provider function the component called: token, arguments as sent, and the
// result fields it reads ("a|b": a, falling back to b where the provider lacks a).
type Invoke = format.Invoke

// Resource is one child resource the component would register; package format tells which
// kind of object it is (IsKubernetes, IsRelease, IsRead, IsPatch, IsCustomResource) and reads
// its inputs by path (String).
type Resource = format.Resource

// Type tokens the harness treats specially.
const (
	ReleaseType   = format.ReleaseType
	NodePoolType  = "kubernetes:karpenter.sh/v1:NodePool"
	NodeClassType = "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"
)

// Lookup walks nested maps along a dotted path; it returns nil when any step is missing.
func Lookup(v any, path string) any { return format.Lookup(v, path) }

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
	apiVersion, kind, ok := res.KubernetesKind()
	if !ok {
		return fmt.Errorf("render: %s (%s) has aliases %v; the harness only knows type aliases of kubernetes resources", res.Name, res.Type, res.Aliases)
	}
	group, _, _ := strings.Cut(apiVersion, "/")
	for _, a := range res.Aliases {
		av, ak, ok := format.SplitKubernetesType(a)
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
