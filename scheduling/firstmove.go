package scheduling

import (
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/internal/resources"
)

// A consolidation what-if under Options.StopOnUninitialized mostly ends in the solve's first
// round: the ready nodes are nearly full, and a displaced pod lands on a node still starting.
// firstMoves answers such a what-if, one that only removes nodes, without setting a solve up
// for it: it follows the first round's placements on existing nodes, on solvers of the
// Cluster state set up once for its pending pods.
//
// The first round tries every pod of the queue, in order, on the existing nodes before any new
// node (existing nodes first or interleaved alike), so firstMoves is exact when nothing else
// reaches the existing nodes in that round:
//   - no rule of topology exists (no pending or displaced pod declares a term, no running pod
//     has required anti-affinity): new nodes' pods change no existing node's verdict, and a
//     plain pod's queue key is its own;
//   - the displaced pods are plain (no host port, no claim), so a node's room, labels and
//     taints alone decide where they go; no name is given twice; the dimensions cover them
//     (else the solve prepares the cluster anew);
//   - a pending pod lands where it does in the state while nothing before it changed; after a
//     change, only a plain one is placed again (room alone decides);
//   - the solve is the default strategy's, untraced.
//
// A displaced pod that fits no existing node waits, or goes to a new node; one that fits a
// ready node takes its room; the first that lands on a node still starting ends the solve
// with the UninitializedError firstMoveStop returns. When none does, the what-if is simulated
// as usual.
type firstMoves struct {
	base   *base
	policy PreferencePolicy
	// s is a solver of the state as it is, nil when the state does not allow the shortcut
	// (a rule of topology); pending are its pods in queue order, and landed[i] the index of
	// the existing node pending[i] lands on when they are placed in that order, -1 for none.
	s       *solver
	pending []*podInfo
	landed  []int
	// pendingSizes are the pending pods' cpu and memory requests, side by side in queue order:
	// a walk merges the pending pods before each displaced pod, and most compare on these
	// alone (see comesBefore).
	pendingSizes [][2]int64
	// keys holds the pending pods' keys: a displaced pod of the same name is refused. A
	// displaced pod's key is looked up there only when pendingHashes has both bits of its
	// hash (keyHash): a few keys in a hundred at most, with hundreds of pods pending.
	keys          map[string]bool
	pendingHashes hashFilter
	// Scratch of one what-if: what leaves with the removed nodes, in queue order, their keys'
	// hashes and by name (to find a name given twice), those nodes by index, the room the
	// pods placed so far take, by node index, and the displaced pod being placed as the solve
	// has it.
	leaving   []*leavingPods
	queue     displacedQueue
	hashes    []uint64
	seen      map[string]bool
	removed   []bool
	removedAt []int
	// displacedOn marks, by node index, the nodes a displaced pod took room on so far
	// (displacedAt lists them, for reset): the pending pods that landed elsewhere keep their
	// landings (see walk).
	displacedOn []bool
	displacedAt []int
	// taken holds, by node index, the room the pods placed so far take (nil for none), takenAt
	// the nodes it holds room on (for reset), and spareRoom the vectors reset cleared, for the
	// next what-ifs.
	taken     []resources.Vector
	takenAt   []int
	spareRoom []resources.Vector
	used      resources.Vector
	// classes holds, by plain pod class, what the walks found of how such a pod fits the state
	// as it is (see classFit).
	classes map[string]*classFit
	// walkFrom holds, by class, where the last pod of the class the walk placed landed (or
	// len(rank) for nowhere): room only shrinks during a walk, so the next pod of the class
	// takes no node before it.
	walkFrom []classFrom
	// What the walk found: the stop, or the displaced pods that fit no existing node.
	stopped *UninitializedError
	waiting []*podInfo
	// walked is the last change's removed nodes the walk could tell about, and walkedStop
	// its stop: a consolidation asks FirstRound, then Simulate of the same change, which
	// walks again only to find the same stop.
	walked     []string
	walkedStop *UninitializedError
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
	fm.pendingSizes = make([][2]int64, len(pods))
	plain := true
	for i, p := range pods {
		fm.pendingSizes[i] = queueSize(p)
		plain = plain && p.memoClass != ""
	}
	fm.taken, fm.seen, fm.classes = make([]resources.Vector, len(b.rank)), map[string]bool{}, map[string]*classFit{}
	fm.removed = make([]bool, len(b.rank))
	fm.displacedOn = make([]bool, len(b.rank))
	fm.used = make(resources.Vector, s.dims.Len())
	if plain {
		fm.landPlain()
	} else if !fm.land(c, in, st) {
		return &firstMoves{base: b, policy: policy}
	}
	// Every pending pod's name, the converted ones' as their conversion has it.
	named := make([]string, len(in.Pods))
	for _, p := range pods {
		named[p.index] = p.key
	}
	fm.keys = make(map[string]bool, len(in.Pods))
	for i, p := range in.Pods {
		if p != nil {
			k := named[i]
			if k == "" {
				k = podKey(p)
			}
			fm.keys[k] = true
			fm.pendingHashes.add(keyHash(k))
		}
	}
	return fm
}

// landPlain works out where the pending pods land when every one is plain: in queue order,
// each on the first node that takes it with the room the ones before took, as a walk places
// a plain pod (room alone decides; see walk).
func (fm *firstMoves) landPlain() {
	for i, p := range fm.pending {
		fm.landed[i] = -1
		if n := fm.firstFit(p); n != nil {
			fm.landed[i] = n.index
		}
		fm.take(fm.landed[i], p.requests)
	}
	fm.reset()
}

// land works out where the pending pods land, placed in order on a second solver (the first
// keeps the state as it is), which is done with once they are placed: its arrays serve the
// next solve. False when the second solver cannot be made.
func (fm *firstMoves) land(c *Cluster, in Input, st start) bool {
	var placing *solver
	var placed []*podInfo
	for i, p := range fm.pending {
		fm.landed[i] = -1
		if placing == nil && fm.s.firstExisting(p, false) == nil {
			continue // nothing placed yet: the first solver's state is the placing one's
		}
		if placing == nil {
			once := st
			once.keeps = false
			var err error
			if placing, placed, _, err = newSolver(in, c.prep, once); err != nil {
				return false
			}
			defer c.prep.recycle(placing.spares)
		}
		if n := placing.firstExisting(placed[i], false); n != nil {
			placing.commitExisting(n, placed[i])
			fm.landed[i] = n.index
		}
	}
	return true
}

// FirstRound is how the solve of a what-if that only removes nodes places the displaced pods
// on existing nodes in its first round, before any is left to new nodes (see
// Cluster.FirstRound).
type FirstRound struct {
	// Stopped is set when a displaced pod lands on a node still starting: the error Simulate
	// returns under Options.StopOnUninitialized, where the solve ends.
	Stopped *UninitializedError
	// Waiting are the displaced pods that fit no existing node at their turn, in queue order
	// (none when Stopped). When Final, they are exactly the pods the solve plans onto new nodes
	// or leaves unschedulable: nothing in the cluster can be relaxed (no preference, no
	// PreferNoSchedule taint), and the existing nodes only fill up, so a pod none of them takes
	// at its turn takes none later.
	Waiting []*corev1.Pod
	Final   bool
}

// FirstRound tells how Simulate(change, opts) places the displaced pods on existing nodes in
// its first round, without the solve, for a change that only removes nodes under
// Options.StopOnUninitialized; ok is false when it cannot tell (see firstMoves for when it
// can: no rule of topology, plain displaced pods, the default strategy, untraced). It is for
// callers that only need that much of a what-if: consolidation, whose candidate cannot go
// when its pods would move to a node still starting, or when those that need a new node
// need one no cheaper than the candidate.
func (c *Cluster) FirstRound(change Change, opts Options) (round FirstRound, ok bool) {
	fm, ok := c.firstRound(change, opts, true)
	if !ok {
		return FirstRound{}, false
	}
	defer fm.reset()
	round = FirstRound{Stopped: fm.stopped, Final: fm.stopped == nil && !fm.s.softTaints}
	if fm.stopped != nil {
		return round, true
	}
	round.Waiting = make([]*corev1.Pod, len(fm.waiting))
	for i, p := range fm.waiting {
		round.Waiting[i] = p.pod
		round.Final = round.Final && len(p.preferences) == 0
	}
	return round, true
}

// firstMoveStop returns the error Simulate(change, opts) would return when a displaced pod
// lands on a node still starting in the solve's first round, and the state allows telling
// so without a solve (see firstMoves); nil otherwise.
func (c *Cluster) firstMoveStop(change Change, opts Options) *UninitializedError {
	fm, ok := c.firstRound(change, opts, false)
	if !ok {
		return nil
	}
	defer fm.reset()
	return fm.stopped
}

// firstRound follows the solve's first round on existing nodes for change (see firstMoves),
// and returns the Cluster's firstMoves holding what it found (stopped, and the waiting pods
// when asked), or false when it cannot tell. The caller resets it when done.
//
// The first round tries every pod of the queue, in order, on the existing nodes first: that
// is what it follows, on the state as it is, less the removed nodes, with the room the pods
// placed so far take (taken). A pending pod lands where it does in the state while nothing
// before it changed; a displaced pod that fits no existing node waits or goes to a new node,
// which changes no existing node for the plain pods that follow.
func (c *Cluster) firstRound(change Change, opts Options, waiting bool) (*firstMoves, bool) {
	if !opts.StopOnUninitialized || len(change.RemoveNodes) == 0 ||
		len(change.Cordon)+len(change.Evict)+len(change.AddPods)+len(change.RemovePods)+len(change.Initialize)+len(change.Requirements) > 0 {
		return nil, false
	}
	fm := c.firstMovesOf(opts)
	if fm == nil {
		return nil, false
	}
	if !waiting && fm.walked != nil && slices.Equal(fm.walked, change.RemoveNodes) {
		fm.stopped = fm.walkedStop
		return fm, true
	}
	if !fm.walk(c, change, waiting) {
		fm.reset()
		fm.walked, fm.walkedStop = nil, nil
		return nil, false
	}
	fm.walked, fm.walkedStop = append(fm.walked[:0], change.RemoveNodes...), fm.stopped
	return fm, true
}

// firstMovesOf returns the Cluster's firstMoves for a solve with opts, nil when the first
// round cannot be followed (tracing, another strategy, a rule of topology).
func (c *Cluster) firstMovesOf(opts Options) *firstMoves {
	if len(opts.Trace) > 0 || (opts.Strategy != "" && opts.Strategy != StrategyCheapest) {
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
	if fm := c.firstMovesFor(b, policy); fm.s != nil {
		return fm
	}
	return nil
}

// walk is firstRound's walk over the queue; false when it cannot tell.
func (fm *firstMoves) walk(c *Cluster, change Change, waiting bool) bool {
	b := fm.base
	clashes := false // whether a displaced pod has a pending pod's name
	for _, name := range change.RemoveNodes {
		i, ok := b.index[name]
		if !ok {
			return false // the solve names the unknown node
		}
		if fm.removed[b.rank[i]] {
			continue
		}
		fm.removed[b.rank[i]] = true
		fm.removedAt = append(fm.removedAt, b.rank[i])
		l := c.leavingOf(b, i, fm.policy)
		if !l.usable {
			return false
		}
		fm.leaving = append(fm.leaving, l)
		clashes = clashes || fm.clashes(l)
	}
	if len(fm.leaving) > 1 && fm.givenTwice() {
		return false // a name given twice: the solve refuses the second in input order
	}
	fm.queue.start(fm.leaving)
	changed := false // whether the pods so far left the nodes otherwise than the pending pods' landings
	// moved is set once a pending pod lands elsewhere than in the state. Until then, a plain
	// pending pod lands where it does in the state unless a displaced pod took room there or
	// its node left: every node has no more room at its turn than in the state (the pending
	// pods before it took the same, displaced pods more), so the nodes before its landing
	// still refuse it, and one it fits nowhere in the state it fits nowhere now.
	moved := false
	pi := 0
	for l, k := fm.queue.next(); l != nil; l, k = fm.queue.next() {
		// d is the pod as the solve has it when its turn comes (see leavingPods.queued).
		d := l.queued[k]
		if clashes && fm.keys[d.key] {
			continue // a pending pod's name: the solve refuses it
		}
		size, requests := l.sizes[k], l.requests[k]
		for ; pi < len(fm.pending) && fm.comesBefore(pi, d, size); pi++ {
			p, at := fm.pending[pi], fm.landed[pi]
			switch {
			case !changed && (at < 0 || !fm.removed[at]):
			case p.memoClass == "":
				return false // only a plain pod's landing reads room alone
			case !moved && (at < 0 || !fm.removed[at] && !fm.displacedOn[at]):
			default:
				changed = true
				was := at
				at = -1
				if n := fm.firstFit(p); n != nil {
					at = n.index
				}
				moved = moved || at != was
			}
			fm.take(at, p.requests)
		}
		n := fm.firstFitOf(l.classes[k], requests, d)
		switch {
		case n == nil:
			if waiting {
				fm.waiting = append(fm.waiting, d)
			}
			continue // it waits, or goes to a new node
		case !n.initialized:
			fm.stopped = &UninitializedError{Pod: d.key, Node: n.name}
			return true
		}
		fm.take(n.index, requests)
		if !fm.displacedOn[n.index] {
			fm.displacedOn[n.index] = true
			fm.displacedAt = append(fm.displacedAt, n.index)
		}
		changed = true
	}
	return true
}

// comesBefore reports whether pending pod i comes before displaced pod d (of queueSize size)
// in queue order (compareQueued), reading the pending pod's size from pendingSizes and its
// keys only on a tie.
func (fm *firstMoves) comesBefore(i int, d *podInfo, size [2]int64) bool {
	if c := compareSizes(fm.pendingSizes[i], size); c != 0 {
		return c < 0
	}
	p := fm.pending[i]
	return compareTied(p, d, p.orderKey, d.plainOrderKey) < 0
}

// clashes reports whether a pod of l has a pending pod's name.
func (fm *firstMoves) clashes(l *leavingPods) bool {
	if len(fm.keys) == 0 {
		return false
	}
	for i, h := range l.hashes {
		if fm.pendingHashes.has(h) && fm.keys[l.keys[i]] {
			return true
		}
	}
	return false
}

// givenTwice reports whether two of the leaving pods have the same name. Their names' hashes
// are sorted first: only when two are equal are the names compared.
func (fm *firstMoves) givenTwice() bool {
	fm.hashes = fm.hashes[:0]
	for _, l := range fm.leaving {
		fm.hashes = append(fm.hashes, l.hashes...)
	}
	slices.Sort(fm.hashes)
	for i := 1; i < len(fm.hashes); i++ {
		if fm.hashes[i] == fm.hashes[i-1] {
			return fm.namesGivenTwice()
		}
	}
	return false
}

func (fm *firstMoves) namesGivenTwice() bool {
	defer clear(fm.seen)
	for _, l := range fm.leaving {
		for _, k := range l.keys {
			if fm.seen[k] {
				return true
			}
			fm.seen[k] = true
		}
	}
	return false
}

// firstFit is the first node, in rank order, that takes p on the state as it is, less the
// removed nodes and the room taken.
func (fm *firstMoves) firstFit(p *podInfo) *existingNode {
	return fm.firstFitOf(p.memoClass, p.requests, p)
}

// firstFitOf is firstFit of p, whose memoClass and requests are class and requests: the
// walk reads them side by side, and p itself only when its class is new or a node was not
// asked about it yet.
func (fm *firstMoves) firstFitOf(class string, requests resources.Vector, p *podInfo) *existingNode {
	if class == "" { // never so: firstFit places plain pods alone
		return fm.firstFitFrom(0, requests, p, nil)
	}
	at := classSlot(fm.walkFrom, -1, class)
	if at < 0 {
		fit := fm.classes[class]
		if fit == nil {
			fit = &classFit{from: len(fm.removed), takes: make([]int8, len(fm.removed))}
			if n := fm.s.firstExisting(p, false); n != nil {
				fit.from = n.index
			}
			fm.classes[class] = fit
		}
		at = len(fm.walkFrom)
		fm.walkFrom = append(fm.walkFrom, classFrom{class: class, from: fit.from, fit: fit})
	}
	n := fm.firstFitFrom(fm.walkFrom[at].from, requests, p, fm.walkFrom[at].fit)
	fm.walkFrom[at].from = len(fm.removed)
	if n != nil {
		fm.walkFrom[at].from = n.index
	}
	return n
}

// classFit is what the walks found of how a plain pod class fits the state as it is. from is
// the position of the first node that takes such a pod (len(rank) for none): a what-if only
// removes nodes and takes room, so no node before it takes the pod in any what-if, and the
// search starts there. takes holds, by node index, whether the node takes such a pod on the
// state as it is (1), refuses it (-1) or was not asked yet (0): a plain pod's fit reads the
// node and its class alone (requests, requirements, preferences, tolerations), so the
// solver's checks run once per node and class, and a what-if adds only the room it took.
type classFit struct {
	from  int
	takes []int8
}

// classFrom is where the search for a pod of class starts during a walk, and the class's fit.
type classFrom struct {
	class string
	from  int
	fit   *classFit
}

// classSlot is the index of class's entry among from, -1 when it has none; last, the entry
// used last (or -1), is looked at first: a queue keeps a class's pods together, mostly.
func classSlot(from []classFrom, last int, class string) int {
	if last >= 0 && from[last].class == class {
		return last
	}
	return slices.IndexFunc(from, func(f classFrom) bool { return f.class == class })
}

// firstFitFrom is firstFit over the nodes from position from on; fit, the class's when p has
// one, answers for the nodes the class asked before.
func (fm *firstMoves) firstFitFrom(from int, requests resources.Vector, p *podInfo, fit *classFit) *existingNode {
	var found *existingNode
	fm.s.existingFree.EachFrom(from, requests, func(i int) bool {
		if fm.removed[i] {
			return false
		}
		n := fm.s.byIndex[i]
		if taken := fm.taken[i]; taken != nil {
			copy(fm.used, n.used)
			fm.used.Add(taken)
			if !resources.FitsSum(fm.used, requests, n.allocatable) {
				return false
			}
		}
		if fit == nil {
			if fm.s.tryExisting(n, p, false).failed() {
				return false
			}
		} else {
			if fit.takes[i] == 0 {
				fit.takes[i] = 1
				if fm.s.tryExisting(n, p, false).failed() {
					fit.takes[i] = -1
				}
			}
			if fit.takes[i] < 0 {
				return false
			}
		}
		found = n
		return true
	})
	return found
}

// take adds requests to the room taken on node at (none when at < 0).
func (fm *firstMoves) take(at int, requests resources.Vector) {
	switch {
	case at < 0:
	case fm.taken[at] == nil:
		var v resources.Vector
		if last := len(fm.spareRoom) - 1; last >= 0 && len(fm.spareRoom[last]) == len(requests) {
			v, fm.spareRoom = fm.spareRoom[last], fm.spareRoom[:last]
			copy(v, requests)
		} else {
			v = requests.Clone()
		}
		fm.taken[at] = v
		fm.takenAt = append(fm.takenAt, at)
	default:
		fm.taken[at].Add(requests)
	}
}

// reset clears one what-if's scratch.
func (fm *firstMoves) reset() {
	for _, at := range fm.takenAt {
		fm.spareRoom = append(fm.spareRoom, fm.taken[at])
		fm.taken[at] = nil
	}
	fm.takenAt = fm.takenAt[:0]
	clear(fm.leaving)
	fm.leaving = fm.leaving[:0]
	for _, i := range fm.removedAt {
		fm.removed[i] = false
	}
	fm.removedAt = fm.removedAt[:0]
	for _, i := range fm.displacedAt {
		fm.displacedOn[i] = false
	}
	fm.displacedAt = fm.displacedAt[:0]
	fm.stopped = nil
	clear(fm.waiting)
	fm.waiting = fm.waiting[:0]
	fm.walkFrom = fm.walkFrom[:0]
}
