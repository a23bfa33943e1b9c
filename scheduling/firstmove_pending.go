package scheduling

import corev1 "k8s.io/api/core/v1"

// Landing is a pending pod a solve places on an existing node, and that node's name.
type Landing struct {
	Pod  *corev1.Pod
	Node string
}

// PendingOnExisting tells, without a solve, which of the Cluster's pending pods Simulate with
// no change places on existing nodes, and where, in queue order. The solve's first round
// tries every pod on the existing nodes before any new node, and the Cluster keeps where each
// pending pod lands in it (see firstMoves); those are all when nothing can come back to an
// existing node afterwards: no pod that found none has a preference to relax, and no node a
// PreferNoSchedule taint. ok is false otherwise, and when the first round cannot be followed
// (a rule of topology, another strategy, tracing).
//
// Karpenter's disruption asks it first: a node the pending pods are planned onto is
// nominated for them, and not disrupted.
func (c *Cluster) PendingOnExisting(opts Options) (landings []Landing, ok bool) {
	fm := c.firstMovesOf(opts)
	if fm == nil || fm.s.softTaints {
		return nil, false
	}
	for i, p := range fm.pending {
		at := fm.landed[i]
		if at < 0 {
			if len(p.preferences) > 0 {
				return nil, false
			}
			continue
		}
		landings = append(landings, Landing{Pod: p.pod, Node: fm.s.byIndex[at].name})
	}
	return landings, true
}
