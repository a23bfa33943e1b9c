package scheduling

import (
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/internal/freeindex"
	"github.com/nodeplan/nodeplan/internal/resources"
)

// base is what every Simulate on one state of a Cluster shares about its existing nodes: it
// is worked out on the first Simulate after Prepare or Apply, then only read (clones share
// it), so that a what-if touching a few nodes does not rebuild it from the whole cluster.
type base struct {
	nodeIndex
	// rank is each input node's position in the order solves try existing nodes
	// (initialized first, then by name). Names are unique, so that order is a property of the
	// nodes, not of the input's order: a change that keeps every node's readiness keeps it.
	rank []int
	// used holds the names new nodes may not take: every node's and the reserved ones (a
	// node a change removes stays reserved, so a change never frees a name).
	used map[string]bool
	// firstFree is, per NodePool name, the lowest number n from 1 whose name <nodepool>-<n>
	// is not in used: every lower one is taken.
	firstFree map[string]int
	// nodes are the Cluster's nodes as a solve starts with them, in rank order, each at its
	// rank in free: shared by every solve (copied before one writes), never written.
	nodes []*existingNode
	free  *freeindex.Index
	// listing are the positions, in input order, of the nodes running pods with volumes or
	// required pod anti-affinity, which a solve lists before placing anything: a change only
	// takes pods away, so no other node lists any.
	listing []int
	// What the next state's base may take from this one (see newBaseFrom): the dimensions
	// of the rooms, each input node's conversion, the positions by rank, and the reserved
	// names counted in used.
	dims      *resources.Dims
	tmpls     []*existingNode
	positions []int
	reserved  []string
}

// nodeIndex is what a change reads of its Cluster's nodes: their names, by position.
type nodeIndex struct {
	// index maps each node's name to its position in the input's ExistingNodes.
	index map[string]int
	// inputNodes are the Cluster's ExistingNodes.
	inputNodes []*ExistingNode
}

// newNodeIndex indexes in's nodes; nil when one is nil, unnamed or named twice (changes then
// look nodes up the slow way, and solves report the problem).
func newNodeIndex(in Input) *nodeIndex {
	ix := &nodeIndex{index: make(map[string]int, len(in.ExistingNodes)), inputNodes: in.ExistingNodes}
	for i, en := range in.ExistingNodes {
		if en == nil || en.Node == nil || en.Node.Name == "" {
			return nil
		}
		if _, twice := ix.index[en.Node.Name]; twice {
			return nil
		}
		ix.index[en.Node.Name] = i
	}
	return ix
}

// hostsOf maps each of keys (namespace/name) that runs on a node of the Cluster to the
// positions of the nodes listing it. It reads every node's pods, matching names before
// namespaces, and builds no key per pod. A Cluster asks its index of pods instead (see
// podHomes), which Apply keeps from step to step; this is the oracle it is tested against, and
// what serves when a pod runs twice.
func (b *nodeIndex) hostsOf(keys map[string]bool) map[string][]int {
	hosts := make(map[string][]int, len(keys))
	if len(keys) == 0 {
		return hosts
	}
	byName := make(map[string][]string, len(keys)) // name → the keys of that name
	var sought nameFilter
	for k := range keys {
		if slash := strings.IndexByte(k, '/'); slash >= 0 {
			byName[k[slash+1:]] = append(byName[k[slash+1:]], k)
			sought.add(k[slash+1:])
		}
	}
	for i, en := range b.inputNodes {
		for _, p := range en.Pods {
			if p == nil || !sought.may(p.Name) {
				continue
			}
			for _, k := range byName[p.Name] {
				if !sameNamespace(k, p) {
					continue
				}
				if at := hosts[k]; len(at) == 0 || at[len(at)-1] != i {
					hosts[k] = append(at, i)
				}
			}
		}
	}
	return hosts
}

// nameFilter tells most names apart from a few sought ones without hashing them: it holds
// the length (modulo 64) and last byte of each sought name, so a name it rules out is none
// of them.
type nameFilter [64][4]uint64

func (f *nameFilter) add(name string) {
	row, c := filterSlot(name)
	f[row][c>>6] |= 1 << (c & 63)
}

// may reports whether name may be a sought one.
func (f *nameFilter) may(name string) bool {
	row, c := filterSlot(name)
	return f[row][c>>6]&(1<<(c&63)) != 0
}

func filterSlot(name string) (row int, last byte) {
	if name == "" {
		return 0, 0
	}
	return len(name) & 63, name[len(name)-1]
}

// sameNamespace reports whether key (namespace/name, the name being pod's) names pod's
// namespace, as podKey writes it.
func sameNamespace(key string, pod *corev1.Pod) bool {
	ns := pod.Namespace
	if ns == "" {
		ns = corev1.NamespaceDefault
	}
	return len(key) == len(ns)+1+len(pod.Name) && key[:len(ns)] == ns
}

// nodeDelta is how a change's input differs from its Cluster's in the existing nodes, by
// position in the Cluster's ExistingNodes: those removed and those replaced by a changed copy.
type nodeDelta struct {
	removed  []int
	replaced []replacedNode
}

type replacedNode struct {
	at   int
	with *ExistingNode
}

// nodeMark is what a change does to a node of its Cluster, by the node's position in the
// Cluster's ExistingNodes: a base marks the change's nodes once, where the change's name sets
// would hash every node's name.
type nodeMark uint8

const (
	markRemoved nodeMark = 1 << iota
	markCordoned
	markReady
	// markLoses is a node running a pod that leaves (evicted or removed).
	markLoses
)

// marks returns the change's marks, hosts being where the pods that leave their nodes run (see
// hostsOf); the change names only nodes of the Cluster.
func (b *nodeIndex) marks(change Change, hosts map[string][]int) []nodeMark {
	marks := make([]nodeMark, len(b.inputNodes))
	for _, set := range []struct {
		names []string
		mark  nodeMark
	}{{change.RemoveNodes, markRemoved}, {change.Cordon, markCordoned}, {change.Initialize, markReady}} {
		for _, name := range set.names {
			marks[b.index[name]] |= set.mark
		}
	}
	for _, at := range hosts {
		for _, i := range at {
			marks[i] |= markLoses
		}
	}
	return marks
}

// start is what a solve may start from besides its input: the base of the Cluster the input
// was changed from and how the change altered its nodes (delta), and whether the change kept
// every node's readiness (ranked), so that the base's node order holds. The zero start works
// everything out from the input.
type start struct {
	base   *base
	delta  *nodeDelta
	ranked bool
	// fresh is the input position of the first pod the change displaces or adds.
	fresh int
	// keeps is set for a solver kept past its call (see firstMoves): it takes no spare
	// arrays, which it would hold on to.
	keeps bool
}

// fromBase reports whether the solve takes its existing nodes from the base.
func (st start) fromBase() bool { return st.base != nil && st.delta != nil && st.ranked }

// nodeNames returns the index of the Cluster's nodes a change reads: its base's when built,
// else one of its own, which costs a map of names where the base copies every node (a replay
// applies a change to most states it never simulates on). nil when a node is nil, unnamed or
// named twice.
func (c *Cluster) nodeNames() *nodeIndex {
	if c.baseBuilt {
		if c.shared == nil {
			return nil
		}
		return &c.shared.nodeIndex
	}
	if !c.namesBuilt {
		c.names, c.namesBuilt = newNodeIndex(c.in), true
	}
	return c.names
}

// base returns the Cluster's base, nil when its input has a node the solver rejects (nil,
// unnamed or given twice): solves then report the problem the slow way.
func (c *Cluster) base() *base {
	if c.baseBuilt {
		return c.shared
	}
	ix := c.nodeNames() // the names a change may already have indexed
	c.baseBuilt = true
	if c.shared = newBaseFrom(c.last, ix, c.in, c.prep); c.shared == nil {
		c.shared = newBase(ix, c.in, c.prep)
	}
	c.last = nil
	return c.shared
}

// lastBase is the most recent base of this Cluster's states, which the next state's base
// starts from.
func (c *Cluster) lastBase() *base {
	if c.baseBuilt && c.shared != nil {
		return c.shared
	}
	return c.last
}

// newBase works the base of in out from ix, the index of its nodes' names (nil when a node is
// nil, unnamed or named twice: then there is no base either).
func newBase(ix *nodeIndex, in Input, prep *prepared) *base {
	if ix == nil {
		return nil
	}
	b := &base{nodeIndex: *ix, dims: prep.dims, reserved: in.ReservedNodeNames}
	order := make([]*existingNode, len(in.ExistingNodes))
	for i, en := range in.ExistingNodes {
		tmpl, ok := prep.existing[en]
		if !ok {
			return nil
		}
		order[i] = tmpl
		if tmpl.listedFirst() {
			b.listing = append(b.listing, i)
		}
	}
	b.tmpls = order
	b.used, b.firstFree = namesTaken(in, prep)
	positions := make([]int, len(order))
	for i := range positions {
		positions[i] = i
	}
	slices.SortFunc(positions, func(i, j int) int { return compareExisting(order[i], order[j]) })
	b.positions = positions
	b.rank = make([]int, len(order))
	for r, i := range positions {
		b.rank[i] = r
	}
	slots := b.nodeSlots(len(order), prep.dims)
	room := make(resources.Vector, prep.dims.Len())
	for r, i := range positions {
		b.setShared(r, &slots[r], order[i], room)
	}
	return b
}

// nodeSlots readies the base's nodes and free index for n nodes, filled in rank order; the
// returned slots hold the nodes' copies, one allocation for them all.
func (b *base) nodeSlots(n int, dims *resources.Dims) []existingNode {
	b.nodes = make([]*existingNode, n)
	b.free = freeindex.New(dims.Len())
	b.free.Grow(n)
	return make([]existingNode, n)
}

// setShared makes slot the base's node at rank r: a copy of conversion tmpl, which solves
// share and never write (see solver.ownExisting), its room indexed (room is scratch).
func (b *base) setShared(r int, slot, tmpl *existingNode, room resources.Vector) {
	*slot = *tmpl
	slot.usedShared = true
	slot.ports = slices.Clip(slot.ports)
	slot.shared = true
	slot.index = b.free.Add(slot.freeInto(room))
	b.nodes[r] = slot
}

// listedFirst reports whether the node runs pods a solve lists before placing anything (see
// base.listing).
func (n *existingNode) listedFirst() bool {
	return len(n.volumePods)+len(n.antiAffinityPods) > 0
}

// namesTaken returns the names new nodes may not take (every node's and the reserved ones) and,
// per NodePool, the lowest free number of its names (see base).
func namesTaken(in Input, prep *prepared) (map[string]bool, map[string]int) {
	used := make(map[string]bool, len(in.ExistingNodes)+len(in.ReservedNodeNames))
	for _, en := range in.ExistingNodes {
		used[en.Node.Name] = true
	}
	for _, name := range in.ReservedNodeNames {
		used[name] = true
	}
	firstFree := make(map[string]int, len(prep.pools))
	for _, pool := range prep.pools {
		n := 1
		for used[pool.NodePool.Name+"-"+strconv.Itoa(n)] {
			n++
		}
		firstFree[pool.NodePool.Name] = n
	}
	return used, firstFree
}

// existingFromBase sets the solve's existing nodes up from the base: the base's own for the
// nodes the change left alone, fresh conversions for those it replaced, copies for nodes
// still starting (their NodePools and DaemonSets write to them), and none for those it
// removed. Every node keeps its base position in the free index, where the removed ones
// never fit. It returns, in the input's order, the nodes that may run pods with volumes or
// required pod anti-affinity (see base.listing).
func (s *solver) existingFromBase(b *base, delta *nodeDelta, prep *prepared) ([]*existingNode, error) {
	byIndex := append(s.spares.byIndex[:0], b.nodes...)
	s.existingFree = b.free.Clone()
	for _, i := range delta.removed {
		byIndex[b.rank[i]] = nil
		s.existingFree.Remove(b.rank[i])
	}
	for _, r := range delta.replaced {
		tmpl, ok := prep.existing[r.with]
		if !ok {
			var err error
			if tmpl, err = newExistingNode(r.with, s.dims, prep.pods, prep.nodes); err != nil {
				return nil, err
			}
		}
		n := *tmpl
		n.usedShared = true
		n.ports = slices.Clip(tmpl.ports)
		n.index = b.rank[r.at]
		byIndex[n.index] = &n
	}
	// Nodes still starting come last.
	for i := len(byIndex) - 1; i >= 0; i-- {
		n := byIndex[i]
		if n == nil {
			continue
		}
		if n.initialized {
			break
		}
		if n.shared {
			cp := *n
			cp.shared = false
			byIndex[i] = &cp
		}
	}
	s.byIndex = byIndex
	s.existing = s.spares.existing[:0]
	s.existingPos = slices.Grow(s.spares.pos[:0], len(byIndex))[:len(byIndex)]
	for i, n := range byIndex {
		s.existingPos[i] = -1
		if n != nil {
			s.existingPos[i] = int32(len(s.existing))
			s.existing = append(s.existing, n)
		}
	}
	s.spares.byIndex, s.spares.existing, s.spares.pos = byIndex, s.existing, s.existingPos
	var listed []*existingNode
	for _, i := range b.listing {
		if n := byIndex[b.rank[i]]; n != nil {
			listed = append(listed, n)
		}
	}
	return listed, nil
}

// indexOwnExisting records in the free index the room of the nodes the solve owns from the
// start (replaced or still starting), once the NodePools and DaemonSets took theirs.
func (s *solver) indexOwnExisting(b *base, delta *nodeDelta) {
	update := func(i int) {
		if n := s.byIndex[i]; n != nil && !n.shared {
			s.existingFree.Update(i, n.freeInto(s.existingRoom))
		}
	}
	for _, r := range delta.replaced {
		update(b.rank[r.at])
	}
	// The nodes still starting, last in rank order (see existingFromBase).
	for i := len(s.byIndex) - 1; i >= 0; i-- {
		if n := s.byIndex[i]; n != nil && n.initialized {
			break
		}
		update(i)
	}
}

// ownExisting returns n to write: n itself unless it is the base's, else a copy that takes
// its place in the solve.
func (s *solver) ownExisting(n *existingNode) *existingNode {
	if !n.shared {
		return n
	}
	cp := *n
	cp.shared = false
	s.byIndex[cp.index] = &cp
	s.existing[s.existingPos[cp.index]] = &cp
	return &cp
}

// compareExisting orders existing nodes as solves try them: initialized nodes first, then
// nodes still starting; by name within each group.
func compareExisting(a, b *existingNode) int {
	if a.initialized != b.initialized {
		if a.initialized {
			return -1
		}
		return 1
	}
	switch {
	case a.name < b.name:
		return -1
	case a.name > b.name:
		return 1
	}
	return 0
}

// nameSet is the set of node names taken, over a base set shared by every solve of a
// Cluster state: names added by one solve go to its own map.
type nameSet struct {
	shared map[string]bool
	own    map[string]bool
	// firstFree is the base's (see base.firstFree), nil without one.
	firstFree map[string]int
}

func (s *nameSet) has(name string) bool { return s.shared[name] || s.own[name] }

func (s *nameSet) add(name string) {
	if s.own == nil {
		s.own = map[string]bool{}
	}
	s.own[name] = true
}
