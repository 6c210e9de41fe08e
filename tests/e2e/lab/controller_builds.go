package lab

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/pulumi-karpenter/pulumi-karpenter/tests/internal/repo"
)

// Which Karpenter controllers are built here, where they are, and which one a pod gets.

// The controllers tests/toolpins builds: KarpenterVersion (toolpins/karpenter-1.15: provider v1.15.2 on
// core v1.15.0 — the proxy refuses core v1.15.1's zip, which 1.15.2 requires; provider v1.15.0 and
// v1.15.1 have the same Go code, and v1.15.2 differs only in its generated DRA device tables) and
// KarpenterPreviousVersion, what TestKarpenterUpgrade starts from (toolpins/karpenter-1.14: provider
// v1.14.1 on core v1.14.1, whose pre-release pseudo-version the provider names is refused).
const (
	KarpenterVersion         = "v1.15.2"
	KarpenterPreviousVersion = "v1.14.1"
)

// karpenterControllerPath is the cached controller of a version; KARPENTER_CONTROLLER overrides
// the KarpenterVersion one.
func karpenterControllerPath(version string) string {
	if p := os.Getenv("KARPENTER_CONTROLLER"); p != "" && version == KarpenterVersion {
		return p
	}
	return filepath.Join(repo.CacheDir(), "bin", "karpenter-"+version, "controller")
}

// controllerInCache: the controller of that version is in the cache, else an error saying how to
// build it.
func controllerInCache(version string) error {
	if _, err := os.Stat(karpenterControllerPath(version)); err != nil {
		return fmt.Errorf("the Karpenter controller %s is missing (run `make e2e-deps`; `make demo` builds only %s): %w",
			version, KarpenterVersion, err)
	}
	return nil
}

// builtController: a controller of that version (the pod's image tag) is built here.
func builtController(tag string) bool {
	return "v"+tag == KarpenterVersion || "v"+tag == KarpenterPreviousVersion
}

// imageTag is the tag of the pod's controller image (repository:tag[@digest]).
func imageTag(p *corev1.Pod) string {
	for _, c := range p.Spec.Containers {
		if c.Name == controllerContainer {
			image, _, _ := strings.Cut(c.Image, "@")
			if i := strings.LastIndex(image, ":"); i > strings.LastIndex(image, "/") {
				return image[i+1:]
			}
		}
	}
	return ""
}
