package scheduling_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/scheduling"
)

// A NodePool offering two instance types plans three web pods, a large batch pod and a pod
// asking for more cpu than any type has.
func ExampleSolve() {
	instanceType := func(name, cpu, memory string, spot, onDemand float64) *instancetype.InstanceType {
		return &instancetype.InstanceType{
			Name:   name,
			Labels: map[string]string{"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux"},
			Capacity: corev1.ResourceList{
				corev1.ResourceCPU:    resource.MustParse(cpu),
				corev1.ResourceMemory: resource.MustParse(memory),
				corev1.ResourcePods:   resource.MustParse("29"),
			},
			Offerings: []instancetype.Offering{
				{Zone: "us-west-2a", CapacityType: "spot", Price: spot, Available: true},
				{Zone: "us-west-2a", CapacityType: "on-demand", Price: onDemand, Available: true},
			},
		}
	}
	pod := func(name, cpu, memory string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{
				Name: "main",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU:    resource.MustParse(cpu),
					corev1.ResourceMemory: resource.MustParse(memory),
				}},
			}}},
		}
	}

	plan, err := scheduling.Solve(scheduling.Input{
		Pods: []*corev1.Pod{
			pod("web-0", "500m", "1Gi"), pod("web-1", "500m", "1Gi"), pod("web-2", "500m", "1Gi"),
			pod("batch-0", "3", "6Gi"),
			pod("huge-0", "64", "8Gi"),
		},
		NodePools: []*scheduling.NodePool{{
			Name: "default",
			InstanceTypes: []*instancetype.InstanceType{
				instanceType("m5.large", "2", "8Gi", 0.035, 0.096),
				instanceType("m5.xlarge", "4", "16Gi", 0.070, 0.192),
			},
		}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, nc := range plan.NodeClaims {
		fmt.Printf("%s: %s %s %s $%.3f/h %v\n", nc.Name, nc.InstanceType, nc.Zone, nc.CapacityType, nc.Price, nc.Pods)
	}
	for _, u := range plan.Unschedulable {
		fmt.Printf("%s: %s: %s\n", u.Pod, u.Constraint, u.Reason)
	}
	fmt.Printf("%d of %d pods placed, $%.3f/h (lower bound $%.3f/h)\n", plan.Summary.Placed, plan.Summary.Pods, plan.Summary.HourlyCost, plan.Summary.LowerBound)
	// Output:
	// default-1: m5.xlarge us-west-2a spot $0.070/h [shop/batch-0 shop/web-0 shop/web-1]
	// default-2: m5.large us-west-2a spot $0.035/h [shop/web-2]
	// shop/huge-0: Resources: nodepool default: no instance type has 64 cpu allocatable (largest: 4)
	// 4 of 5 pods placed, $0.105/h (lower bound $0.079/h)
}
