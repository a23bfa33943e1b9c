package resources

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestCovers(t *testing.T) {
	gpu := corev1.ResourceName("nvidia.com/gpu")
	dims := NewDims(corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")})
	withGPU := NewDims(corev1.ResourceList{gpu: resource.MustParse("1")})
	gpuPod := &corev1.Pod{Spec: corev1.PodSpec{InitContainers: []corev1.Container{{Resources: corev1.ResourceRequirements{
		Limits: corev1.ResourceList{gpu: resource.MustParse("1")}}}}}}
	cases := []struct {
		name string
		got  bool
		want bool
	}{
		{"well-known resources are always dimensions", dims.Covers(corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")}), true},
		{"a NodePool's nodes limit needs no dimension", dims.Covers(corev1.ResourceList{"nodes": resource.MustParse("3")}), true},
		{"an extended resource not seen", dims.Covers(corev1.ResourceList{gpu: resource.MustParse("1")}), false},
		{"an init container's limit counts", dims.CoversPods([]*corev1.Pod{nil, gpuPod}), false},
		{"covered once the resource is a dimension", withGPU.CoversPods([]*corev1.Pod{gpuPod}), true},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
}
