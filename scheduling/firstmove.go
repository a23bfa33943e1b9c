package scheduling

import (
	"container/heap"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/internal/resources"
	"github.com/nodeplan/nodeplan/topology"
)

// Most of consolidation's what-ifs in a cluster that keeps changing end at their first
// displaced pod: the other ready nodes are full, and the pod lands on a node still starting,
// which Options.StopOnUninitialized stops at. firstMoves answers that case for a what-if that
// only removes nodes without setting a solve up for it: solvers set up once per Cluster state
// for the pending pods alone show where they land and where the first displaced pod would.
//
// It is exact when, besides the change removing nodes and nothing else:
//   - no rule of topology exists (no pending or displaced pod declares a term, no running pod
//     has required anti-affinity), so every pod is placed by its room, labels, taints, ports
//     and volumes alone, and a plain pod's queue key is its own;
//   - no pending pod queued before the first displaced pod lands, as the state is, on a node
//     the change removes: each then lands where it does in the state (the removed nodes it
//     passed did not take it), or on no existing node;
//   - the displaced pods are plain (no host port, no claim), so their queue keys are their
//     own; the first one's name is not given twice; the dimensions cover them all (else the
//     solve prepares the cluster anew);
//   - the solve is the default strategy's, untraced.
//
// Then the solve, existing nodes first or interleaved alike, reaches the first displaced pod
// in queue order with the remaining nodes as the state has them, less the room of the pending
// pods queued before it, and tries it on them in rank order first: the node firstMoves finds.
// When that node is still starting, the solve stops there with the same error; otherwise the
// what-if is simulated as usual.
type firstMoves struct {
	base   *base
	policy PreferencePolicy
	// s is a solver of the state as it is, nil when the state does not allow the shortcut
	// (a rule of topology); pending are its pods in queue order, and landed[i] the index of
	// the existing node pending[i] lands on when they are placed in that order, -1 for none.
	s       *solver
	pending []*podInfo
	landed  []int
	// keys holds the pending pods' keys: a displaced pod of the same name is refused.
	keys map[string]bool
	// Scratch of one what-if: what leaves with the removed nodes, those nodes by index, the
	// room the pending pods before the first displaced pod take, by node index, and that pod
	// as the solve would take it.
	leaving   []*leavingPods
	queue     displacedQueue
	seen      map[string]bool
	removed   []bool
	removedAt []int
	taken     map[int]resources.Vector
	used      resources.Vector
	first     podInfo
}

// firstMovesFor returns the Cluster's firstMoves for its base b and policy, made when missing.
func (c *Cluster) firstMovesFor(b *base, policy PreferencePolicy) *firstMoves {
	if c.moves == nil || c.moves.base != b || c.moves.policy != policy {
		c.moves = newFirstMoves(c, b, policy)
	}
	return c.moves
}

func newFirstMoves(c *Cluster, b *base, policy PreferencePolicy) *firstMoves {
	fm := &firstMoves{base: b, policy: policy}
	in := c.in
	in.Options = Options{PreferencePolicy: policy, SkipLowerBound: true}
	st := start{base: b, delta: &nodeDelta{}, ranked: true, fresh: len(in.Pods), keeps: true}
	s, pods, _, err := newSolver(in, c.prep, st)
	if err != nil {
		return fm
	}
	if s.karpenter != nil || s.topology.HasGroups() {
		return fm
	}
	fm.s, fm.pending, fm.landed = s, pods, make([]int, len(pods))
	// Where the pending pods land, placed in order on a second solver: the first keeps the
	// state as it is.
	var placing *solver
	var placed []*podInfo
	for i, p := range pods {
		fm.landed[i] = -1
		if placing == nil && s.firstExisting(p, false, nil) == nil {
			continue // nothing placed yet: the first solver's state is the placing one's
		}
		if placing == nil {
			if placing, placed, _, err = newSolver(in, c.prep, st); err != nil {
				return &firstMoves{base: b, policy: policy}
			}
		}
		if n := placing.firstExisting(placed[i], false, nil); n != nil {
			placing.commitExisting(n, placed[i])
			fm.landed[i] = n.index
		}
	}
	fm.keys = make(map[string]bool, len(in.Pods))
	for _, p := range in.Pods {
		if p != nil {
			fm.keys[podKey(p)] = true
		}
	}
	fm.taken, fm.seen = map[int]resources.Vector{}, map[string]bool{}
	fm.removed = make([]bool, len(b.rank))
	fm.used = make(resources.Vector, s.dims.Len())
	return fm
}

// leavingPods is what firstMoves reads of the pods that leave with a node (movesWithNode).
type leavingPods struct {
	// usable is set when every one is plain, as far as it converts (no topology term, host
	// port or claim: its queue key is its own), the dimensions cover them all and no name
	// comes twice.
	usable bool
	// queued are the conversions of those that convert, in queue order.
	queued []*podInfo
	// keys are all their names.
	keys []string
}

// leavingOf returns what firstMoves reads of the pods that leave with node i of the base
// (input position), memoised on the node's conversion.
func (c *Cluster) leavingOf(b *base, i int, policy PreferencePolicy) *leavingPods {
	slot := 0
	if policy == PreferencesIgnore {
		slot = 1
	}
	facts := b.nodes[b.rank[i]].nodeFacts
	if l := facts.leaving[slot].Load(); l != nil {
		return l
	}
	var pods []*corev1.Pod
	for _, p := range b.inputNodes[i].Pods {
		if p != nil && movesWithNode(p) {
			pods = append(pods, p)
		}
	}
	l := &leavingPods{usable: c.prep.dims.CoversPods(pods), keys: make([]string, len(pods))}
	for k, conv := range c.prep.pods.convert(pods, c.prep.dims, policy) {
		p := conv.info
		l.keys[k] = p.key
		if topology.DeclaresTerms(pods[k]) || slices.Contains(l.keys[:k], p.key) {
			l.usable = false
		}
		if conv.err != nil {
			continue // not queued
		}
		if len(p.hostPorts) > 0 || p.plainOrderKey == "" || claimsVolumes(pods[k]) {
			l.usable = false
		}
		l.queued = append(l.queued, p)
	}
	slices.SortFunc(l.queued, comparePlain)
	facts.leaving[slot].Store(l)
	return l
}

// comparePlain is the queue's order of two plain pods.
func comparePlain(a, b *podInfo) int { return compareQueued(a, b, a.plainOrderKey, b.plainOrderKey) }

// claimsVolumes reports whether the pod has a persistentVolumeClaim or generic ephemeral
// volume, the only ones the volume index reads.
func claimsVolumes(pod *corev1.Pod) bool {
	for i := range pod.Spec.Volumes {
		if v := &pod.Spec.Volumes[i]; v.PersistentVolumeClaim != nil || v.Ephemeral != nil {
			return true
		}
	}
	return false
}

// firstMoveStop returns the error Simulate(change, opts) would return when a displaced pod
// lands on a node still starting in the solve's first round, and the state allows telling
// so without a solve (see firstMoves); nil otherwise.
//
// The solve's first round tries every pod of the queue, in order, on the existing nodes first:
// that is what firstMoveStop follows, on the state as it is, less the removed nodes, with the
// room the pods placed so far take (taken). A pending pod lands where it does in the state
// while nothing before it changed; a displaced pod that fits no existing node waits or goes
// to a new node, which changes no existing node for the plain pods that follow.
func (c *Cluster) firstMoveStop(change Change, opts Options) *UninitializedError {
	if !opts.StopOnUninitialized || len(opts.Trace) > 0 || (opts.Strategy != "" && opts.Strategy != StrategyCheapest) || len(change.RemoveNodes) == 0 ||
		len(change.Cordon)+len(change.Evict)+len(change.AddPods)+len(change.RemovePods)+len(change.Initialize)+len(change.Requirements) > 0 {
		return nil
	}
	policy := opts.PreferencePolicy
	switch policy {
	case "":
		policy = PreferencesRespect
	case PreferencesRespect, PreferencesIgnore:
	default:
		return nil // the solve names the error
	}
	b := c.base()
	if b == nil {
		return nil
	}
	fm := c.firstMovesFor(b, policy)
	if fm.s == nil {
		return nil
	}
	defer fm.reset()
	for _, name := range change.RemoveNodes {
		i, ok := b.index[name]
		if !ok {
			return nil // the solve names the unknown node
		}
		if fm.removed[b.rank[i]] {
			continue
		}
		fm.removed[b.rank[i]] = true
		fm.removedAt = append(fm.removedAt, b.rank[i])
		l := c.leavingOf(b, i, policy)
		if !l.usable {
			return nil
		}
		fm.leaving = append(fm.leaving, l)
	}
	if len(fm.leaving) > 1 {
		for _, l := range fm.leaving {
			for _, k := range l.keys {
				if fm.seen[k] {
					return nil // a name given twice: the solve refuses the second in input order
				}
				fm.seen[k] = true
			}
		}
	}
	fm.queue.start(fm.leaving)
	changed := false // whether the pods so far left the nodes otherwise than the pending pods' landings
	pi := 0
	for d := fm.queue.next(); d != nil; d = fm.queue.next() {
		if fm.keys[d.key] {
			continue // a pending pod's name: the solve refuses it
		}
		for ; pi < len(fm.pending) && compareQueued(fm.pending[pi], d, fm.pending[pi].orderKey, d.plainOrderKey) < 0; pi++ {
			p, at := fm.pending[pi], fm.landed[pi]
			if changed || (at >= 0 && fm.removed[at]) {
				if p.memoClass == "" {
					return nil // only a plain pod's landing reads room alone
				}
				changed = true
				at = -1
				if n := fm.firstFit(p); n != nil {
					at = n.index
				}
			}
			fm.take(at, p.requests)
		}
		// The pod as the solve has it when its turn comes: plain, its preferences all in force.
		p := &fm.first
		*p = *d
		p.memoClass, p.orderKey = p.plainClass, p.plainOrderKey
		n := fm.firstFit(p)
		switch {
		case n == nil:
			continue // it waits, or goes to a new node
		case !n.initialized:
			return &UninitializedError{Pod: p.key, Node: n.name}
		}
		fm.take(n.index, p.requests)
		changed = true
	}
	return nil
}

// firstFit is the first node, in rank order, that takes p on the state as it is, less the
// removed nodes and the room taken.
func (fm *firstMoves) firstFit(p *podInfo) *existingNode {
	return fm.s.firstExisting(p, false, func(i int) bool {
		if fm.removed[i] {
			return true
		}
		taken, ok := fm.taken[i]
		if !ok {
			return false
		}
		n := fm.s.byIndex[i]
		copy(fm.used, n.used)
		fm.used.Add(taken)
		return !resources.FitsSum(fm.used, p.requests, n.allocatable)
	})
}

// take adds requests to the room taken on node at (none when at < 0).
func (fm *firstMoves) take(at int, requests resources.Vector) {
	switch {
	case at < 0:
	case fm.taken[at] == nil:
		fm.taken[at] = requests.Clone()
	default:
		fm.taken[at].Add(requests)
	}
}

// reset clears one what-if's scratch.
func (fm *firstMoves) reset() {
	clear(fm.taken)
	clear(fm.seen)
	clear(fm.leaving)
	fm.leaving = fm.leaving[:0]
	for _, i := range fm.removedAt {
		fm.removed[i] = false
	}
	fm.removedAt = fm.removedAt[:0]
	fm.first = podInfo{}
}

// displacedQueue merges the removed nodes' displaced pods into queue order, one at a time:
// the walk usually ends after a few of them.
type displacedQueue struct {
	lists [][]*podInfo // each in queue order; a heap of their heads when there are several
}

func (q *displacedQueue) start(leaving []*leavingPods) {
	clear(q.lists)
	q.lists = q.lists[:0]
	for _, l := range leaving {
		if len(l.queued) > 0 {
			q.lists = append(q.lists, l.queued)
		}
	}
	if len(q.lists) > 1 {
		heap.Init(q)
	}
}

// next returns the next pod in queue order, nil when none is left.
func (q *displacedQueue) next() *podInfo {
	switch len(q.lists) {
	case 0:
		return nil
	case 1:
		p := q.lists[0][0]
		if q.lists[0] = q.lists[0][1:]; len(q.lists[0]) == 0 {
			q.lists = q.lists[:0]
		}
		return p
	}
	p := q.lists[0][0]
	if q.lists[0] = q.lists[0][1:]; len(q.lists[0]) == 0 {
		heap.Pop(q)
	} else {
		heap.Fix(q, 0)
	}
	return p
}

func (q *displacedQueue) Len() int           { return len(q.lists) }
func (q *displacedQueue) Less(i, j int) bool { return comparePlain(q.lists[i][0], q.lists[j][0]) < 0 }
func (q *displacedQueue) Swap(i, j int)      { q.lists[i], q.lists[j] = q.lists[j], q.lists[i] }
func (q *displacedQueue) Push(x any)         { q.lists = append(q.lists, x.([]*podInfo)) }
func (q *displacedQueue) Pop() any {
	last := q.lists[len(q.lists)-1]
	q.lists = q.lists[:len(q.lists)-1]
	return last
}
