package disruption

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/scheduling"
)

// simulator holds the scheduling Cluster every simulation of one decision runs on: prepared
// once from the running cluster, with the pending pods (and those of nodes already being
// disrupted) to place, and committed to after each command, so later commands see earlier
// ones.
type simulator struct {
	// base is the input the cluster was prepared from; workers prepare their own copies of it
	// while nothing is committed.
	base    scheduling.Input
	cluster *scheduling.Cluster
	// pending counts the cluster's pending pods: the first entries of every plan's Placements.
	pending int
	// replacements are the new nodes of earlier commands: they count for spread and affinity
	// but take no pods, so every command stands on its own (a replacement may fail to launch).
	replacements []string
	// committed is set once a command was applied: base no longer describes the cluster.
	committed bool
	// workers are clusters prepared from base for parallel simulations, kept for reuse.
	workers []*scheduling.Cluster
}

// view is the node as the scheduler is shown it, built once: its pods (a pod listed on a
// node runs there, whatever its spec.nodeName says) and facts. A node not managed by a
// NodePool is taken as initialized.
func view(n *nodeState) *scheduling.ExistingNode {
	pods := n.in.Pods
	copied := false
	for i, p := range pods {
		if p.Spec.NodeName == n.name {
			continue
		}
		if !copied {
			pods = append([]*corev1.Pod(nil), pods...)
			copied = true
		}
		pods[i] = boundCopy(p, n.name)
	}
	return &scheduling.ExistingNode{
		Node:               n.in.Node,
		Pods:               pods,
		NodePool:           n.poolName,
		Initialized:        n.in.Initialized || n.poolName == "",
		VolumeAttachLimits: n.in.VolumeAttachLimits,
	}
}

// newSimulator prepares the cluster: every node but those already being disrupted, whose
// pods are pending like the input's pending pods (Karpenter simulates them the same way).
func newSimulator(base scheduling.Input, nodes []*nodeState, pending []*corev1.Pod) (*simulator, error) {
	pods := append([]*corev1.Pod(nil), pending...)
	for _, n := range nodes {
		if n.in.Disrupting {
			n.removed = true
			for _, p := range n.pods {
				if reschedulable(p) {
					pods = append(pods, pendingCopy(p))
				}
			}
			continue
		}
		base.ExistingNodes = append(base.ExistingNodes, n.view)
	}
	sortPods(pods)
	base.Pods = pods
	cluster, err := scheduling.Prepare(base)
	if err != nil {
		return nil, err
	}
	return &simulator{base: base, cluster: cluster, pending: len(pods)}, nil
}

// worker returns the i-th extra cluster equal to the simulator's, for parallel simulations
// while nothing is committed: a Cluster is not safe for concurrent use, so each worker has its
// own, prepared from the same input. Workers must call it with distinct i; the slice is sized
// before they start.
func (s *simulator) worker(i int) (*scheduling.Cluster, error) {
	if s.committed {
		return nil, fmt.Errorf("internal: a worker cluster is used after a command was committed")
	}
	if s.workers[i] == nil {
		c, err := scheduling.Prepare(s.base)
		if err != nil {
			return nil, err
		}
		s.workers[i] = c
	}
	return s.workers[i], nil
}

// change is the what-if of removing the candidates while the nodes to avoid (and earlier
// replacements) take no pods.
func (s *simulator) change(cands []*nodeState, avoid []string) scheduling.Change {
	ch := scheduling.Change{RemoveNodes: make([]string, len(cands))}
	for i, c := range cands {
		ch.RemoveNodes[i] = c.name
	}
	if len(avoid)+len(s.replacements) > 0 {
		ch.Cordon = append(append(make([]string, 0, len(avoid)+len(s.replacements)), avoid...), s.replacements...)
	}
	return ch
}

func boundCopy(p *corev1.Pod, node string) *corev1.Pod {
	cp := *p
	cp.Spec.NodeName = node
	return &cp
}

func pendingCopy(p *corev1.Pod) *corev1.Pod {
	if p.Spec.NodeName == "" {
		return p
	}
	cp := *p
	cp.Spec.NodeName = ""
	return &cp
}
