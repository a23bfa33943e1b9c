package limits

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/internal/resources"
)

func cpu(dims *resources.Dims, n string) resources.Vector {
	return dims.Vector(corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(n)})
}

func TestLeft(t *testing.T) {
	dims := resources.NewDims()
	tests := []struct {
		name   string
		limits corev1.ResourceList
		// run changes the account and reports what the test checks.
		run  func(l *Left) bool
		want bool
	}{
		{"no limits allow any node", nil, func(l *Left) bool { return l.Fits(cpu(dims, "1000")) && l.NodeLeft() && !l.Set() }, true},
		{"a node over the cpu left does not fit", corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")}, func(l *Left) bool { return l.Fits(cpu(dims, "8")) }, false},
		{"a node's own hold counts as available to it", corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8")}, func(l *Left) bool {
			held := make(resources.Vector, dims.Len()+1)
			l.Move(held, cpu(dims, "6"))
			return !l.Fits(cpu(dims, "4")) && l.FitsWith(cpu(dims, "8"), held)
		}, true},
		{"the nodes limit counts nodes", corev1.ResourceList{"nodes": resource.MustParse("1")}, func(l *Left) bool {
			l.TakeNode()
			return l.NodeLeft()
		}, false},
		{"a released node makes room again", corev1.ResourceList{"nodes": resource.MustParse("1"), corev1.ResourceCPU: resource.MustParse("4")}, func(l *Left) bool {
			trial := l.Clone()
			trial.Take(cpu(dims, "4"))
			trial.Take(cpu(dims, "2"))
			overdrawn := !trial.Within()
			trial.Release(cpu(dims, "4"))
			return overdrawn && trial.Within() && l.Fits(cpu(dims, "4")) // l untouched by its clone
		}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, err := New(tc.limits, dims)
			if err != nil {
				t.Fatal(err)
			}
			if got := tc.run(&l); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestNewRejectsALimitTooLarge(t *testing.T) {
	_, err := New(corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1E+30")}, resources.NewDims())
	if err == nil || !strings.Contains(err.Error(), "limits.cpu") {
		t.Fatalf("error %v, want one naming limits.cpu", err)
	}
}
