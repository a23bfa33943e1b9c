// Package nodepool holds the NodePool API as nodeplan reads it: what a karpenter.sh/v1
// NodePool says about the nodes it may launch (requirements, labels, taints, limits, weight,
// expiry) and how they may be disrupted (consolidation policy, budgets), with the instance
// types its node class offers. It sits below scheduling and disruption, which both read it.
//
//	np := &nodepool.NodePool{
//		Name:       "default",
//		Limits:     corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1000")},
//		Disruption: nodepool.Disruption{ConsolidationPolicy: nodepool.ConsolidationWhenEmptyOrUnderutilized},
//	}
package nodepool
