package workloadcost_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/workloadcost"
)

// A node at $0.192/h runs a StatefulSet pod asking for half of it and two Deployment pods
// asking for a quarter each: the StatefulSet pays half the price, the Deployment the rest.
func ExampleSplit() {
	pods := []*corev1.Pod{
		tb.Pod("db-0").CPU("1").Memory("4Gi").OwnedBy("StatefulSet", "db", true).Obj(),
		tb.Pod("web-1").CPU("500m").Memory("2Gi").OwnedBy("Deployment", "web", true).Obj(),
		tb.Pod("web-2").CPU("500m").Memory("2Gi").OwnedBy("Deployment", "web", true).Obj(),
	}
	costs := workloadcost.Split([]workloadcost.Node{{
		Price:       0.192,
		Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("8Gi")},
		Pods:        pods,
	}})
	for _, c := range costs {
		fmt.Printf("%s/%s %s: %d pods, $%.4f/h\n", c.Namespace, c.Kind, c.Name, c.Pods, c.HourlyCost)
	}
	// Output:
	// default/Deployment web: 2 pods, $0.0960/h
	// default/StatefulSet db: 1 pods, $0.0960/h
}
