package scheduling

import (
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/internal/resources"
	"github.com/nodeplan/nodeplan/requirements"
)

// nodeStatics is what converting a node reads of its object alone, under the prepared
// dimensions: its labels (keys normalized, the hostname label set), their requirements, and
// its capacity and allocatable, or why its quantities are unusable. A node whose pods change
// keeps its object, so its next conversion takes these from the memo.
type nodeStatics struct {
	labels                map[string]string
	reqs                  requirements.Requirements
	capacity, allocatable resources.Vector
	err                   error
}

// nodeMemo holds the statics of the node objects a Cluster converted, shared, as podMemo is,
// by its clones and the Clusters prepared from it with the same dimensions; hence the lock.
// Statics, once stored, are only read.
type nodeMemo struct {
	mu      sync.Mutex
	statics map[*corev1.Node]*nodeStatics
}

func newNodeMemo() *nodeMemo { return &nodeMemo{statics: map[*corev1.Node]*nodeStatics{}} }

// keeping returns the memo for a cluster prepared from in, continuing prev's while it holds
// at most twice as many nodes as in has (and some); past that, only in's nodes' statics.
func (prev *nodeMemo) keeping(in Input) *nodeMemo {
	prev.mu.Lock()
	defer prev.mu.Unlock()
	if len(prev.statics) <= 2*len(in.ExistingNodes)+64 {
		return prev
	}
	next := newNodeMemo()
	for _, en := range in.ExistingNodes {
		if en == nil || en.Node == nil {
			continue
		}
		if s, ok := prev.statics[en.Node]; ok {
			next.statics[en.Node] = s
		}
	}
	return next
}

// of returns node's statics under dims, from the memo when it holds them (m may be nil).
func (m *nodeMemo) of(node *corev1.Node, dims *resources.Dims) *nodeStatics {
	if m == nil {
		return newNodeStatics(node, dims)
	}
	m.mu.Lock()
	s := m.statics[node]
	m.mu.Unlock()
	if s != nil {
		return s
	}
	s = newNodeStatics(node, dims)
	m.mu.Lock()
	m.statics[node] = s
	m.mu.Unlock()
	return s
}

func newNodeStatics(node *corev1.Node, dims *resources.Dims) *nodeStatics {
	name := node.Name
	labels := make(map[string]string, len(node.Labels)+1)
	for k, v := range node.Labels {
		labels[requirements.NormalizeKey(k)] = v
	}
	if _, ok := labels[requirements.LabelHostname]; !ok {
		labels[requirements.LabelHostname] = name
	}
	for _, part := range []struct {
		field string
		list  corev1.ResourceList
	}{{"status.capacity", node.Status.Capacity}, {"status.allocatable", node.Status.Allocatable}} {
		if res, err := resources.CheckList(part.list); err != nil {
			return &nodeStatics{err: fmt.Errorf("existing node %q: %s.%s: %w", name, part.field, res, err)}
		}
	}
	alloc := node.Status.Allocatable
	if len(alloc) == 0 {
		alloc = node.Status.Capacity
	}
	capacity := node.Status.Capacity
	if len(capacity) == 0 {
		capacity = alloc
	}
	return &nodeStatics{labels: labels, reqs: requirements.FromLabels(labels), capacity: dims.Vector(capacity), allocatable: dims.Vector(alloc)}
}
