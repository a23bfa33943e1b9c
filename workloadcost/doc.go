// Package workloadcost splits nodes' prices among the workloads of their pods: each node's
// price in proportion to its pods' share of its allocatable cpu plus their share of its
// memory, summed per controller (a ReplicaSet's pods count as their Deployment's). Plans
// report it for their new nodes (Summary.CostByWorkload), consolidation for the cluster before
// and after its commands.
//
//	costs := workloadcost.Split([]workloadcost.Node{{
//		Price:       0.192,
//		Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("8Gi")},
//		Pods:        pods,
//	}})
//	for _, c := range costs {
//		fmt.Printf("%s/%s %s: $%.4f/h\n", c.Namespace, c.Kind, c.Name, c.HourlyCost)
//	}
package workloadcost
