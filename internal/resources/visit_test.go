package resources

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestVisitPodSpec(t *testing.T) {
	one := resource.MustParse("1")
	list := func(name corev1.ResourceName) corev1.ResourceList { return corev1.ResourceList{name: one} }
	spec := &corev1.PodSpec{
		InitContainers: []corev1.Container{{Resources: corev1.ResourceRequirements{Requests: list("init-req"), Limits: list("init-lim")}}},
		Containers: []corev1.Container{
			{Resources: corev1.ResourceRequirements{Requests: list("a-req")}},
			{Resources: corev1.ResourceRequirements{Limits: list("b-lim")}},
		},
		Overhead:  list("overhead"),
		Resources: &corev1.ResourceRequirements{Requests: list("pod-req"), Limits: list("pod-lim")},
	}
	var got []corev1.ResourceName
	VisitPodSpec(spec, func(l corev1.ResourceList) {
		for name := range l {
			got = append(got, name)
		}
	})
	// Pod-level limits are not visited.
	want := []corev1.ResourceName{"init-req", "init-lim", "a-req", "b-lim", "overhead", "pod-req"}
	if !slices.Equal(got, want) {
		t.Errorf("visited %v, want %v", got, want)
	}
}

func TestNamesAll(t *testing.T) {
	one := resource.MustParse("1")
	dims := NewDims(corev1.ResourceList{"a.io/x": one, "b.io/y": one})
	cases := []struct {
		name  string
		named []bool
		want  bool
	}{
		{"every dimension named", []bool{true, true, true, true, true, true}, true},
		{"fixed dimensions need not be named", []bool{false, false, false, false, true, true}, true},
		{"an extended dimension not named", []bool{true, true, true, true, true, false}, false},
	}
	for _, c := range cases {
		if got := dims.NamesAll(c.named); got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}
