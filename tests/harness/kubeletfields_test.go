package harness

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	kubeletconfigv1beta1 "k8s.io/kubelet/config/v1beta1"
)

// The provider rejects free-form kubelet settings that are not upstream KubeletConfiguration
// fields (what Karpenter 1.15.1's controller would reject). Its list must be the upstream
// type's, read here from k8s.io/kubelet itself.
func TestProviderKubeletSettingsAreUpstreams(t *testing.T) {
	src, err := os.ReadFile("../../provider/catalog/kubelet.go")
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)var UpstreamKubeletSettings = strings.Fields\\(`(.*?)`\\)").FindSubmatch(src)
	if block == nil {
		t.Fatal("provider/catalog/kubelet.go: UpstreamKubeletSettings not found")
	}
	provider := strings.Fields(string(block[1]))

	var upstream []string
	ty := reflect.TypeFor[kubeletconfigv1beta1.KubeletConfiguration]()
	for i := range ty.NumField() {
		name, _, _ := strings.Cut(ty.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			upstream = append(upstream, name)
		}
	}
	slices.Sort(provider)
	slices.Sort(upstream)
	if !slices.Equal(provider, upstream) {
		t.Errorf("provider/catalog/kubelet.go UpstreamKubeletSettings differs from k8s.io/kubelet's KubeletConfiguration:\nonly in the provider: %v\nonly upstream: %v",
			without(provider, upstream), without(upstream, provider))
	}
}

func without(a, b []string) []string {
	var out []string
	for _, s := range a {
		if !slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}
