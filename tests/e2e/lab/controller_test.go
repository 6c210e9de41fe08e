//go:build e2e

package lab

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// TestContainerResourceIsTheKubelets: the controller's resourceFieldRef environment is what the
// kubelet gives: a request the chart's values leave unset (terraform-aws-modules' example sets no
// controller.resources) is 0, an unset limit the node's allocatable amount, each divided and
// rounded up.
func TestContainerResourceIsTheKubelets(t *testing.T) {
	allocatable := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3920m"), corev1.ResourceMemory: resource.MustParse("15Gi")}
	set := &corev1.Container{Resources: corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")},
		Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")},
	}}
	unset := &corev1.Container{}
	for _, c := range []struct {
		container *corev1.Container
		ref, div  string
		want      string
	}{
		{set, "requests.cpu", "1m", "1000"},
		{set, "limits.memory", "", "1073741824"},
		{set, "limits.memory", "1Mi", "1024"},
		{unset, "requests.cpu", "1m", "0"},
		{unset, "limits.memory", "", "16106127360"},
		{unset, "limits.cpu", "", "4"}, // 3920m rounded up
	} {
		ref := &corev1.ResourceFieldSelector{Resource: c.ref}
		if c.div != "" {
			ref.Divisor = resource.MustParse(c.div)
		}
		got, err := containerResource(c.container, ref, allocatable)
		if err != nil || got != c.want {
			t.Errorf("%s / %q: %q (%v), want %q", c.ref, c.div, got, err, c.want)
		}
	}
}
