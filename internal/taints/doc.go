// Package taints says which taint of a node keeps a pod off: kube-scheduler's
// TaintToleration rule, with PreferNoSchedule taints passed over where a pod may ignore them.
//
//	if t, bad := taints.FirstUntolerated(pod.Spec.Tolerations, node.Spec.Taints, false); bad {
//		fmt.Printf("taint %s=%s:%s not tolerated\n", t.Key, t.Value, t.Effect)
//	}
//
// It also holds the taint lists the solver trims: a starting node's ephemeral taints
// (Starting), a NodePool's startup taints (Without).
package taints
