// Package format is what `pulumi-resource-karpenter render --args FILE` prints, declared once:
// the provider's render (provider/render) writes it, and the tests that read a render (the
// real-API-server harness, the conformance checks, the engine benchmarks in tests/) decode it.
// It imports only the standard library, so that any of them can import it without the
// provider's dependencies.
//
// Besides the JSON shape, it holds what readers ask of a child: an input by its dotted path,
// which kind of Kubernetes object it is.
package format

import "strings"

// Rendered is what `render` prints: every child the component registers, in registration
// order, with its type token, parent, dependencies and inputs, the component's outputs, and the
// provider functions it called. Values are JSON's: numbers are float64, secrets print as
// "[secret]", values unknown at a preview as "[unknown]".
type Rendered struct {
	Component Component      `json:"component"`
	Resources []Resource     `json:"resources"`
	Outputs   map[string]any `json:"outputs"`
	// Invokes are the provider functions the component called (tests/conformance checks them).
	Invokes []Invoke `json:"invokes"`
}

// Component is the component a render constructed: its type token and name.
type Component struct {
	Type string `json:"type"`
	Name string `json:"name"`
}

// Resource is one child the component registers (or reads).
type Resource struct {
	Type string `json:"type"`
	Name string `json:"name"`
	// Parent is the name of the child's parent: the component's, or another component's.
	Parent string `json:"parent"`
	// DependsOn are the names of the resources the child waits for, sorted ([] for none).
	DependsOn []string       `json:"dependsOn"`
	Inputs    map[string]any `json:"inputs"`
	// Aliases are earlier type tokens of the same resource (e.g. the v1beta1 kind of a v1
	// NodePool): an upgrade that changes the type updates it in place instead of replacing it.
	Aliases []string `json:"aliases,omitempty"`
	// ReadID is set for an existing object the component reads and does not create
	// ("<namespace>/<name>" for namespaced kubernetes objects): destroy leaves it alone.
	ReadID string `json:"readId,omitempty"`
	// ImportID is set for an existing object the component takes over (adopt): `up` imports it
	// by this id, then updates it in place; IgnoreChanges are the properties it keeps as they
	// are (a policy's description, which IAM cannot change).
	ImportID      string   `json:"importId,omitempty"`
	IgnoreChanges []string `json:"ignoreChanges,omitempty"`
	// RetainOnDelete marks a resource `pulumi destroy` leaves in place.
	RetainOnDelete bool `json:"retainOnDelete,omitempty"`
}

// Invoke is one provider function the component called during a render: its token, the
// arguments as sent to the provider, and the result fields the component reads from the
// answer, so that a test can check every argument and field against the providers' published
// declarations (tests/conformance).
type Invoke struct {
	Token string         `json:"token"`
	Args  map[string]any `json:"args"`
	// Reads are the result fields the component decodes, by their provider names, in the
	// order its result struct declares them. "a|b" reads a, falling back to b when the
	// provider does not answer a (a field of another provider major).
	Reads []string `json:"reads"`
}

// ReleaseType is the type token of a Helm release.
const ReleaseType = "kubernetes:helm.sh/v3:Release"

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

// IsKubernetes reports whether the resource is applied to the cluster (as opposed to AWS).
func (r Resource) IsKubernetes() bool { return strings.HasPrefix(r.Type, "kubernetes:") }

// IsRelease reports whether the resource is a Helm release.
func (r Resource) IsRelease() bool { return r.Type == ReleaseType }

// IsRead reports whether the resource is an existing object the component only reads.
func (r Resource) IsRead() bool { return r.ReadID != "" }

// IsPatch reports whether the resource is a pulumi-kubernetes Patch resource
// (kubernetes:<apiVersion>:<Kind>Patch): a server-side apply to an existing object.
func (r Resource) IsPatch() bool {
	_, kind, ok := r.KubernetesKind()
	return ok && !r.IsRelease() && strings.HasSuffix(kind, "Patch")
}

// IsCustomResource reports whether the resource is one of Karpenter's provisioning custom
// resources (NodePool, EC2NodeClass, Provisioner, AWSNodeTemplate, in any API version), or EKS
// Auto Mode's NodeClass (eks.amazonaws.com; the group's other kinds are not provisioning ones).
func (r Resource) IsCustomResource() bool {
	apiVersion, kind, ok := r.KubernetesKind()
	if !ok || r.IsRelease() || r.IsRead() {
		return false
	}
	group, _, _ := strings.Cut(apiVersion, "/")
	return group == "karpenter.sh" || group == "karpenter.k8s.aws" || (group == "eks.amazonaws.com" && kind == "NodeClass")
}

// KubernetesKind splits the resource's kubernetes:<apiVersion>:<Kind> type token (SplitKubernetesType).
func (r Resource) KubernetesKind() (apiVersion, kind string, ok bool) {
	return SplitKubernetesType(r.Type)
}

// SplitKubernetesType splits a kubernetes:<apiVersion>:<Kind> type token; ok is false for
// another type. The core API group is "core" in Pulumi type tokens (kubernetes:core/v1:ConfigMap)
// and empty in apiVersion ("v1"); the returned apiVersion is the Kubernetes one.
func SplitKubernetesType(typ string) (apiVersion, kind string, ok bool) {
	parts := strings.Split(typ, ":")
	if len(parts) != 3 || parts[0] != "kubernetes" || parts[1] == "" || parts[2] == "" {
		return "", "", false
	}
	return strings.TrimPrefix(parts[1], "core/"), parts[2], true
}
