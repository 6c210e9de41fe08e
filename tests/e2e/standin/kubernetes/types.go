package main

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

const releaseType = "kubernetes:helm.sh/v3:Release"

// typeInfo is what a kubernetes:<group/version>:<Kind> type token stands for.
type typeInfo struct {
	Token string
	// Release is a Helm release (kubernetes:helm.sh/v3:Release); the other fields are empty.
	Release bool
	// Patch is a <Kind>Patch resource; GVK is then the patched kind.
	Patch bool
	GVK   schema.GroupVersionKind
}

// APIVersion is the Kubernetes apiVersion ("v1" for the core group, whose Pulumi token is core/v1).
func (t typeInfo) APIVersion() string { return t.GVK.GroupVersion().String() }

func parseType(token string) (typeInfo, error) {
	if token == releaseType {
		return typeInfo{Token: token, Release: true}, nil
	}
	parts := strings.Split(token, ":")
	if len(parts) != 3 || parts[0] != "kubernetes" || parts[1] == "" || parts[2] == "" {
		return typeInfo{}, fmt.Errorf("%s: not a kubernetes:<group/version>:<Kind> type token", token)
	}
	gv, err := schema.ParseGroupVersion(strings.TrimPrefix(parts[1], "core/"))
	if err != nil || gv.Version == "" {
		return typeInfo{}, fmt.Errorf("%s: bad group/version %q", token, parts[1])
	}
	t := typeInfo{Token: token, GVK: gv.WithKind(parts[2])}
	if k, ok := strings.CutSuffix(parts[2], "Patch"); ok && k != "" {
		t.Patch, t.GVK.Kind = true, k
	}
	return t, nil
}

// builtinGroups are API groups served by kube-apiserver itself. Their kinds may have
// per-kind replacement rules in pulumi-kubernetes (diff.go) the stand-in has not ported.
func builtinGroup(group string) bool {
	switch group {
	case "", "apps", "batch", "policy", "autoscaling":
		return true
	}
	return strings.HasSuffix(group, ".k8s.io")
}

// supported says whether the stand-in creates, updates and deletes resources of this type:
// Helm releases, any Patch resource (replaced only on a name or namespace change), custom
// resources (no per-kind rules in pulumi-kubernetes) and core/v1 ConfigMap (whose rule is
// ported). Anything else fails Check rather than being handled half-way. Read (ReadResource)
// works for any kind the API server serves.
func (t typeInfo) supported() error {
	switch {
	case t.Release, t.Patch, !builtinGroup(t.GVK.Group):
		return nil
	case t.GVK.Group == "" && t.GVK.Version == "v1" && t.GVK.Kind == "ConfigMap":
		return nil
	}
	return fmt.Errorf("%s is not implemented by the %s (it implements Helm releases, "+
		"custom resources, core/v1 ConfigMap and <Kind>Patch resources)", t.Token, StandIn)
}
