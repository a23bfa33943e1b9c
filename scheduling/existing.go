package scheduling

import (
	"fmt"
	"slices"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/nodeplan/nodeplan/hostport"
	"github.com/nodeplan/nodeplan/internal/resources"
	"github.com/nodeplan/nodeplan/internal/taints"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
	"github.com/nodeplan/nodeplan/volume"
)

// existingNode is a cluster node as the solver tracks it: free room, ports and labels. What a
// solve changes is its own; what the conversion fixed (nodeFacts) is shared by every solve's
// copy of the node, so that copying the cluster's nodes for a solve copies little.
type existingNode struct {
	*nodeFacts
	// taints are the node's, less the startup taints of its NodePool while it starts.
	taints []corev1.Taint
	used   resources.Vector
	// usedShared is set while used is still the prepared conversion's, which no solve may
	// write: ownUsed copies it first.
	usedShared bool
	ports      []hostport.Port
	placed     []*podInfo
	index      int // position in the solver's free-room index
	// shared is set on a Cluster base's node, which solves share and never write:
	// solver.ownExisting copies it first.
	shared bool
}

// nodeFacts is what converting a node fixed, which no solve writes.
type nodeFacts struct {
	name        string
	node        *corev1.Node
	nodePool    string
	initialized bool
	labels      map[string]string
	reqs        requirements.Requirements
	capacity    resources.Vector
	allocatable resources.Vector
	attachLimit map[string]int
	// daemonSets names (namespace/name) the DaemonSets with a pod bound to the node.
	daemonSets map[string]bool
	// volumePods are the node's running pods with volumes (the only ones the volume index
	// reads), antiAffinityPods those with required pod anti-affinity (the only ones
	// topology reads before it knows whether any rule exists), so that a solve does not walk
	// every pod of the cluster for them.
	volumePods, antiAffinityPods []*corev1.Pod
	// leaving memoises, per preference policy (Respect, Ignore), what firstMoves reads of the
	// pods that leave with the node; worked out when first asked, by whichever solve asks.
	leaving [2]atomic.Pointer[leavingPods]
	// covered memoises whether the conversion's dimensions cover every resource the node's
	// pods that move with it ask for (coveredYes, coveredNo; 0 until first asked).
	covered atomic.Int32
}

const (
	coveredYes = 1
	coveredNo  = 2
)

// movingCovered reports whether dims, the dimensions the node was converted with, cover every
// resource its pods that move with it (of pods, its pods) ask for: worked out once per
// conversion, by whichever solve asks first.
func (f *nodeFacts) movingCovered(dims *resources.Dims, pods []*corev1.Pod) bool {
	switch f.covered.Load() {
	case coveredYes:
		return true
	case coveredNo:
		return false
	}
	ok := true
	for _, p := range pods {
		if p != nil && movesWithNode(p) && !dims.CoversPod(p) {
			ok = false
			break
		}
	}
	if ok {
		f.covered.Store(coveredYes)
	} else {
		f.covered.Store(coveredNo)
	}
	return ok
}

// ownUsed returns the node's used room to write, a copy of its own from the first write on.
func (n *existingNode) ownUsed() resources.Vector {
	if n.usedShared {
		n.used, n.usedShared = n.used.Clone(), false
	}
	return n.used
}

// freeInto writes the room left on the node into dst and returns it.
func (n *existingNode) freeInto(dst resources.Vector) resources.Vector {
	copy(dst, n.allocatable)
	dst.Sub(n.used)
	return dst
}

// newExistingNodes converts the cluster's nodes for one solve, in the order solves try them,
// and returns them in the input's order too. The Cluster's own nodes were converted once by
// prepare (prep.existing, never modified) and a solve works on cheap copies; nodes a change
// altered are converted anew. With a base of the Cluster the input was changed from, the
// names are known to be unique. (A solve from the base takes its nodes from it instead: see
// existingFromBase.)
func newExistingNodes(in []*ExistingNode, dims *resources.Dims, prep *prepared, b *base) (sorted, inputOrder []*existingNode, err error) {
	buf := make([]existingNode, len(in))
	out := make([]*existingNode, 0, len(in))
	var seen map[string]bool
	if b == nil {
		seen = make(map[string]bool, len(in))
	}
	for i, en := range in {
		if en == nil || en.Node == nil {
			return nil, nil, fmt.Errorf("existingNodes[%d]: node is nil", i)
		}
		name := en.Node.Name
		if name == "" {
			return nil, nil, fmt.Errorf("existingNodes[%d]: node has no name", i)
		}
		if b == nil {
			// A base has checked the Cluster's names, which a change only removes.
			if seen[name] {
				return nil, nil, fmt.Errorf("existing node %q is given twice", name)
			}
			seen[name] = true
		}
		tmpl, ok := prep.existing[en]
		if !ok {
			if tmpl, err = newExistingNode(en, dims, prep.pods, prep.nodes); err != nil {
				return nil, nil, err
			}
		}
		n := &buf[i]
		*n = *tmpl
		n.usedShared = true // most nodes take no pod: copied on the first write
		n.ports = slices.Clip(tmpl.ports)
		out = append(out, n)
	}
	sorted = slices.Clone(out)
	slices.SortStableFunc(sorted, compareExisting)
	return sorted, out, nil
}

// runningRequests memoises what each running pod uses (its requests plus one pod): a
// prepared cluster's pod memo, or a map of one's own.
type runningRequests interface {
	get(*corev1.Pod) (resources.Vector, bool)
	put(*corev1.Pod, resources.Vector)
}

// requestsMap is a runningRequests of one's own.
type requestsMap map[*corev1.Pod]resources.Vector

func (m requestsMap) get(pod *corev1.Pod) (resources.Vector, bool) {
	v, ok := m[pod]
	return v, ok
}

func (m requestsMap) put(pod *corev1.Pod, v resources.Vector) { m[pod] = v }

// newExistingNode converts one node. requests memoises what each running pod uses, statics
// what the node's object alone converts to (nil for none).
func newExistingNode(en *ExistingNode, dims *resources.Dims, requests runningRequests, statics *nodeMemo) (*existingNode, error) {
	st := statics.of(en.Node, dims)
	if st.err != nil {
		return nil, st.err
	}
	n := &existingNode{
		nodeFacts: &nodeFacts{
			name:        en.Node.Name,
			node:        en.Node,
			nodePool:    en.NodePool,
			initialized: en.Initialized,
			labels:      st.labels,
			reqs:        st.reqs,
			capacity:    st.capacity,
			allocatable: st.allocatable,
			attachLimit: en.VolumeAttachLimits,
		},
		taints: taints.Starting(en.Node.Spec.Taints, en.Initialized),
		used:   make(resources.Vector, dims.Len()),
	}
	if n.nodePool == "" {
		n.nodePool = st.labels[requirements.LabelNodePool]
	}
	for _, pod := range en.Pods {
		if pod == nil || isTerminal(pod) {
			continue
		}
		v, known := requests.get(pod)
		if !known {
			var err error
			if v, err = resources.PodRequests(pod, dims); err != nil {
				// A running pod's negative request is kept as it is: the pod runs.
				v = dims.Vector(resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{}))
				v[resources.Pods] = 1000
			}
			requests.put(pod, v)
		}
		n.used.Add(v)
		n.ports = append(n.ports, hostport.OfPod(pod)...)
		if len(pod.Spec.Volumes) > 0 {
			n.volumePods = append(n.volumePods, pod)
		}
		if pod.DeletionTimestamp == nil && topology.HasRequiredAntiAffinity(pod) {
			n.antiAffinityPods = append(n.antiAffinityPods, pod)
		}
		for _, ref := range pod.OwnerReferences {
			if ref.Kind == "DaemonSet" {
				if n.daemonSets == nil {
					n.daemonSets = map[string]bool{}
				}
				n.daemonSets[pod.Namespace+"/"+ref.Name] = true
			}
		}
	}
	if en.Node.Spec.Unschedulable {
		// A cordoned node takes no new pods; model it as full.
		n.allocatable = make(resources.Vector, dims.Len())
	}
	return n, nil
}

func isTerminal(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed
}

// existingAttach returns the claims the pods of an existing node attach, worked out from the
// volume index when first asked for.
func (s *solver) existingAttach(n *existingNode) *volume.AttachCounter {
	if s.attached == nil {
		s.attached = make([]*volume.AttachCounter, len(s.byIndex)) // most solves never ask
	}
	if s.attached[n.index] == nil {
		s.attached[n.index] = s.volumes.AttachedOn(n.name)
	}
	return s.attached[n.index]
}
