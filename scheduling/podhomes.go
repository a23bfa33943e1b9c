package scheduling

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// podHomes maps each pod running on a node of a Cluster's input (by namespace/name) to that
// node's name. Changes name the pods they evict or remove, and a replay's changes name a few
// of thousands every few seconds: reading every node's pods to find them cost more than the
// rest of the change. The map is made once, on first use, and Apply brings it up to date from
// the nodes it changed. A Cluster's clones do not share it: it changes with the Cluster.
type podHomes struct {
	node map[podName]string
}

// podName is a pod's namespace ("default" for none) and name: a key made without building
// a string per pod.
type podName struct{ namespace, name string }

func nameOf(p *corev1.Pod) podName {
	if p.Namespace == "" {
		return podName{corev1.NamespaceDefault, p.Name}
	}
	return podName{p.Namespace, p.Name}
}

// newPodHomes indexes the pods of in's nodes; nil when a pod runs twice (on two nodes, or
// twice on one), which only the full scan reports in full.
func newPodHomes(in Input) *podHomes {
	h := &podHomes{node: make(map[podName]string, len(in.ExistingNodes)*8)}
	for _, en := range in.ExistingNodes {
		if !h.add(en) {
			return nil
		}
	}
	return h
}

// add indexes the pods of en; false when one of them is indexed already.
func (h *podHomes) add(en *ExistingNode) bool {
	if en == nil || en.Node == nil {
		return true
	}
	return h.addPods(en.Node.Name, en.Pods)
}

// addPods indexes pods on node; false when one of them is indexed already.
func (h *podHomes) addPods(node string, pods []*corev1.Pod) bool {
	for _, p := range pods {
		if p == nil {
			continue
		}
		k := nameOf(p)
		if _, twice := h.node[k]; twice {
			return false
		}
		h.node[k] = node
	}
	return true
}

// drop forgets the pods of en.
func (h *podHomes) drop(en *ExistingNode) {
	if en == nil || en.Node == nil {
		return
	}
	for _, p := range en.Pods {
		if p == nil {
			continue
		}
		if k := nameOf(p); h.node[k] == en.Node.Name {
			delete(h.node, k)
		}
	}
}

// after brings the index of a state's pods to the next state's, given the nodes that
// changed between them: the nodes that are gone take their pods away, then those that came
// bring theirs, so a pod moving between two changed nodes keeps the index. nil when a pod
// would run twice.
// A node that only gained pods (Apply appends a plan's to a node's) keeps the entries of those
// it had, which stay where they are: only the new ones are added.
func (h *podHomes) after(ch nodeChanges) *podHomes {
	if h == nil || !ch.ok {
		return nil
	}
	// had[i] is how many pods came[i] had before when it only gained some, else 0; before
	// holds the gone nodes whose pods go, by name.
	var had []int
	var before map[string]*ExistingNode
	if len(ch.gone) > 0 && len(ch.came) > 0 {
		had, before = make([]int, len(ch.came)), make(map[string]*ExistingNode, len(ch.gone))
		for _, b := range ch.gone {
			if b != nil && b.Node != nil {
				before[b.Node.Name] = b
			}
		}
		for i, a := range ch.came {
			if a == nil || a.Node == nil {
				continue
			}
			if b := before[a.Node.Name]; b != nil && b.Node == a.Node && len(a.Pods) >= len(b.Pods) && slices.Equal(a.Pods[:len(b.Pods)], b.Pods) {
				had[i] = len(b.Pods)
				delete(before, a.Node.Name) // its pods stay: not dropped
			}
		}
	}
	for _, b := range ch.gone {
		if before == nil || b == nil || b.Node == nil || before[b.Node.Name] == b {
			h.drop(b)
		}
	}
	for i, a := range ch.came {
		if a == nil || a.Node == nil {
			continue
		}
		pods := a.Pods
		if had != nil {
			pods = pods[had[i]:]
		}
		if !h.addPods(a.Node.Name, pods) {
			return nil
		}
	}
	return h
}

// podHosts is ix.hostsOf(keys) for the Cluster's nodes (ix their index), read off its
// podHomes, made when missing.
func (c *Cluster) podHosts(ix *nodeIndex, keys map[string]bool) map[string][]int {
	if !c.homesTried {
		c.homes, c.homesTried = newPodHomes(c.in), true
	}
	if c.homes == nil {
		return ix.hostsOf(keys) // a pod runs twice: the scan lists every node
	}
	return c.homes.hostsOf(ix, keys)
}

// hostsOf is nodeIndex.hostsOf(keys) read off the index: a pod runs on one node at most.
func (h *podHomes) hostsOf(ix *nodeIndex, keys map[string]bool) map[string][]int {
	hosts := make(map[string][]int, len(keys))
	for k := range keys {
		namespace, name, _ := strings.Cut(k, "/")
		node, ok := h.node[podName{namespace, name}]
		if !ok {
			continue
		}
		if i, ok := ix.index[node]; ok {
			hosts[k] = []int{i}
		}
	}
	return hosts
}
