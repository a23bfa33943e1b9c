package disruption

import (
	"sync"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/scheduling"
)

// simulator holds the scheduling Cluster every simulation of one decision runs on: prepared
// once from the running cluster, with the pending pods (and those of nodes already being
// disrupted) to place, and committed to after each command, so later commands see earlier
// ones.
type simulator struct {
	cluster *scheduling.Cluster
	// pending counts the cluster's pending pods: the first entries of every plan's Placements.
	pending int
	// replacements are the new nodes of earlier commands: they count for spread and affinity
	// but take no pods, so every command stands on its own (a replacement may fail to launch).
	replacements []string
	// workers are clones of cluster for parallel simulations, kept until a command is applied.
	workers []*scheduling.Cluster
	// consolidated remembers what consolidating each set found on the cluster as it is, until
	// a command is applied: multi-node consolidation grows sets from single nodes that
	// single-node consolidation simulates again otherwise.
	consolidated consolidations
}

// consolidation is what consolidate found for a set: the outcome and why it is not a valid
// consolidation ("" when it is).
type consolidation struct {
	o   *outcome
	why string
}

// consolidations memoises consolidate per set (its nodes' names in order); parallel
// simulations share it.
type consolidations struct {
	mu   sync.Mutex
	sets map[string]consolidation
	// onInput are the sets found on the decision's input, before its first command (for a
	// Memo); set once the cluster changed.
	onInput map[string]consolidation
	changed bool
}

func (c *consolidations) get(key string) (consolidation, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.sets[key]
	return v, ok
}

func (c *consolidations) put(key string, v consolidation) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sets == nil {
		c.sets = map[string]consolidation{}
	}
	c.sets[key] = v
}

// forget drops every result: the cluster they were found on changed.
func (c *consolidations) forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.changed {
		c.onInput, c.changed = c.sets, true
	}
	c.sets = nil
}

// foundOnInput returns the results found on the decision's input, before its first command.
func (c *consolidations) foundOnInput() map[string]consolidation {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.changed {
		return c.onInput
	}
	return c.sets
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
// The conversions of the nodes' views prev holds (a Memo's last cluster) are reused.
func newSimulator(base scheduling.Input, nodes []*nodeState, pending []*corev1.Pod, prev *scheduling.Cluster, memo *Memo) (*simulator, error) {
	pods := append([]*corev1.Pod(nil), pending...)
	for _, n := range nodes {
		if n.in.Disrupting {
			n.removed = true
			// It runs until it is gone: no replacement takes its name (its hostname).
			base.ReservedNodeNames = append(base.ReservedNodeNames, n.name)
			for _, p := range n.pods {
				if reschedulable(p) {
					pods = append(pods, memo.pendingCopy(p))
				}
			}
			continue
		}
		base.ExistingNodes = append(base.ExistingNodes, n.view)
	}
	sortPods(pods)
	base.Pods = pods
	cluster, err := scheduling.PrepareReusing(base, prev)
	if err != nil {
		return nil, err
	}
	return &simulator{cluster: cluster, pending: len(pods)}, nil
}

// workerClusters returns n clusters equal to the simulator's, one for each extra worker of
// parallel simulations: a Cluster is not safe for concurrent use. They are clones, which share
// the cluster's precomputation, made on the calling goroutine before the workers start
// (cloning reads the cluster, which the first worker then uses), and kept until a command is
// applied.
func (s *simulator) workerClusters(n int) []*scheduling.Cluster {
	for len(s.workers) < n {
		s.workers = append(s.workers, s.cluster.Clone())
	}
	return s.workers[:n]
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
