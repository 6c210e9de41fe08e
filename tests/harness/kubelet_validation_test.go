package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func nodeClass(spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass",
		"metadata": map[string]any{"name": "c"}, "spec": spec,
	}}
}

// TestKubeletProblems: with the schemaless spec.kubelet of Karpenter 1.15 the API server keeps
// any key, so the harness checks what Karpenter's controller would reject. Valid settings
// (typed and free-form, on AL2023) pass; a misspelt key, a wrong type, a bad eviction signal,
// a soft threshold without a grace period, an inverted image GC pair, and settings an AMI
// family would drop are each reported.
func TestKubeletProblems(t *testing.T) {
	al2023 := []any{map[string]any{"alias": "al2023@latest"}}
	bottlerocket := []any{map[string]any{"alias": "bottlerocket@latest"}}
	valid := map[string]any{
		"maxPods": int64(110), "podsPerCore": int64(4), "clusterDNS": []any{"10.100.0.10"},
		"systemReserved": map[string]any{"cpu": "100m", "memory": "100Mi", "ephemeral-storage": "1Gi"},
		"kubeReserved":   map[string]any{"cpu": "200m"},
		"evictionHard":   map[string]any{"memory.available": "5%", "nodefs.available": "10%"},
		"evictionSoft":   map[string]any{"memory.available": "500Mi"}, "evictionSoftGracePeriod": map[string]any{"memory.available": "1m0s"},
		"evictionMaxPodGracePeriod": int64(60), "imageGCHighThresholdPercent": int64(85), "imageGCLowThresholdPercent": int64(80),
		"cpuCFSQuota": true, "containerLogMaxSize": "50Mi", "shutdownGracePeriod": "30s",
	}
	if p := KubeletProblems(nodeClass(map[string]any{"amiSelectorTerms": al2023, "kubelet": valid})); len(p) != 0 {
		t.Errorf("valid AL2023 kubelet: %v", p)
	}
	if p := KubeletProblems(nodeClass(map[string]any{"amiSelectorTerms": bottlerocket})); len(p) != 0 {
		t.Errorf("no kubelet: %v", p)
	}
	for _, tc := range []struct {
		name   string
		spec   map[string]any
		expect string
	}{
		{"misspelt", map[string]any{"amiSelectorTerms": al2023, "kubelet": map[string]any{"containerLogMaxSzie": "50Mi"}}, `unknown field "containerLogMaxSzie"`},
		{"wrong type", map[string]any{"amiSelectorTerms": al2023, "kubelet": map[string]any{"shutdownGracePeriod": int64(30)}}, "shutdownGracePeriod"},
		{"signal", map[string]any{"amiSelectorTerms": al2023, "kubelet": map[string]any{"evictionHard": map[string]any{"memory.free": "5%"}}}, `"memory.free" isn't a valid eviction signal`},
		{"soft without grace", map[string]any{"amiSelectorTerms": al2023, "kubelet": map[string]any{"evictionSoft": map[string]any{"memory.available": "1Gi"}}}, "has no matching evictionSoftGracePeriod"},
		{"image GC", map[string]any{"amiSelectorTerms": al2023, "kubelet": map[string]any{"imageGCHighThresholdPercent": int64(50), "imageGCLowThresholdPercent": int64(60)}}, "must be greater than"},
		{"dropped by bottlerocket", map[string]any{"amiSelectorTerms": bottlerocket, "kubelet": map[string]any{"maxPods": int64(20), "podsPerCore": int64(2), "containerLogMaxSize": "50Mi"}},
			"not applied by the Bottlerocket AMI family that would be silently dropped: containerLogMaxSize, podsPerCore"},
		{"dropped by AL2 (amiFamily)", map[string]any{"amiFamily": "AL2", "amiSelectorTerms": []any{map[string]any{"id": "ami-0123456789abcdef0"}}, "kubelet": map[string]any{"clusterDNS": []any{"10.0.0.10", "10.0.0.11"}}},
			"the AL2 AMI family takes one entry, 2 were set"},
	} {
		p := KubeletProblems(nodeClass(tc.spec))
		if !strings.Contains(strings.Join(p, "\n"), tc.expect) {
			t.Errorf("%s: problems %q, want one containing %q", tc.name, p, tc.expect)
		}
	}
	// Custom AMIs own their user data: Karpenter ignores kubelet settings there.
	if p := KubeletProblems(nodeClass(map[string]any{"amiFamily": "Custom", "kubelet": map[string]any{"containerLogMaxSize": "50Mi"}})); len(p) != 0 {
		t.Errorf("Custom: %v", p)
	}
}

// TestDownloadedDir: `go mod download -json` of a module whose go directive is newer than the
// toolchain (karpenter-provider-aws 1.15.1 wants go 1.26.10) reports an error and no Dir but
// has extracted the zip; only that error is tolerated, and only when the directory exists.
func TestDownloadedDir(t *testing.T) {
	cache := t.TempDir()
	mod := filepath.Join(cache, "github.com", "aws", "karpenter-provider-aws@v1.15.1")
	if err := os.MkdirAll(mod, 0o755); err != nil {
		t.Fatal(err)
	}
	zip := func(v string) string {
		return filepath.Join(cache, "cache", "download", "github.com", "aws", "karpenter-provider-aws", "@v", v+".zip")
	}
	goVersion := func(v string) []byte {
		return []byte(`{"Path": "github.com/aws/karpenter-provider-aws", "Version": "` + v + `",
			"Error": "github.com/aws/karpenter-provider-aws@` + v + ` requires go \u003e= 1.26.10 (running go 1.26.8; GOTOOLCHAIN=local)",
			"Zip": "` + zip(v) + `", "Sum": "h1:6eH///KgWKDwD2R6wHRnKGN8Vu8OHueaXjNdx64TnuY="}`)
	}
	if dir, err := downloadedDir(goVersion("v1.15.1")); err != nil || dir != mod {
		t.Errorf("go-version error with the zip extracted: %q, %v; want %q", dir, err, mod)
	}
	if dir, err := downloadedDir(goVersion("v1.15.2")); err == nil {
		t.Errorf("go-version error without an extracted directory: %q, want an error", dir)
	}
	if dir, err := downloadedDir([]byte(`{"Dir": "/m/x@v1", "Zip": "/m/cache/download/x/@v/v1.zip"}`)); err != nil || dir != "/m/x@v1" {
		t.Errorf("plain download: %q, %v", dir, err)
	}
	refused := []byte(`{"Path": "github.com/aws/karpenter-provider-aws", "Version": "v1.99.0",
		"Error": "github.com/aws/karpenter-provider-aws@v1.99.0: reading https://proxy.golang.org/...: 403 Forbidden"}`)
	if _, err := downloadedDir(refused); err == nil || !strings.Contains(err.Error(), "403 Forbidden") {
		t.Errorf("refused module: %v, want the 403", err)
	}
	if _, err := downloadedDir([]byte("not json")); err == nil {
		t.Error("garbage output must be an error")
	}
}
