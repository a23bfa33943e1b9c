package scheduling

import (
	"reflect"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/hostport"
	"github.com/nodeplan/nodeplan/internal/resources"
	"github.com/nodeplan/nodeplan/nodetemplate"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
	"github.com/nodeplan/nodeplan/typeindex"
	"github.com/nodeplan/nodeplan/volume"
)

// newNode is a node opened in this plan. Its requirements narrow and its instance-type
// options shrink as pods join; every option always fits every pod on it.
type newNode struct {
	name string
	pool *poolState
	// static marks a node a static NodePool keeps whatever the pods: planned even when empty,
	// never repacked away.
	static  bool
	reqs    requirements.Requirements
	options []*nodetemplate.Option
	// maxRoom is the element-wise maximum room over options: a quick necessary test. minRoom
	// is the minimum (nil when unknown), a quick sufficient one: a pod whose requests fit it
	// fits every option's room. Both follow options (setOptionRooms) and are never written.
	maxRoom  resources.Vector
	minRoom  resources.Vector
	used     resources.Vector
	reserved resources.Vector // capacity held against the pool's limits
	ports    []hostport.Port
	attach   *volume.AttachCounter
	pods     []*podInfo
	notes    []string
	index    int // position in the solver's free-room index
	// price is the cheapest price the node can launch at now; byPrice holds its options by
	// the price of their cheapest offering under reqs (prices alongside), cheapest first.
	price   float64
	byPrice []*nodetemplate.Option
	// version counts the changes to the node (pods joining, options settled): a pod that failed
	// to join one version fails again on it.
	version int
	// binPriced marks a repacked bin whose price was set when it was filled (it has no
	// byPrice order until it replaces the greedy nodes).
	binPriced  bool
	byPriceVal []float64
	// ownsOptions says options is the node's own array, not one shared with the pool or other
	// nodes; spareOptions is a second own array (or nil) the next narrowing may fill.
	ownsOptions  bool
	spareOptions []*nodetemplate.Option
	// priceOrderCache is the solver's, shared: nodes opened alike have the same order.
	priceOrderCache map[string]nodetemplate.PriceOrder
	ownsPriceOrder  bool
	// unbounded lifts the growth rule (growth.go): under StrategyKarpenter a node may grow
	// into any option that fits.
	unbounded bool
	// daemonCounted marks a node whose DaemonSet pods a topology group counts: repacking
	// would change how many such pods a domain holds, so the node is not repacked.
	daemonCounted bool
}

// candidate is a node state a pod would produce on joining a node: narrowed requirements and
// the options left.
type candidate struct {
	reqs    requirements.Requirements
	options []*nodetemplate.Option
	notes   []string
	// alt is the pod's own requirement alternative the candidate satisfies.
	alt requirements.Requirements
}

// nodeRequirements returns the requirement sets a pod could add to base: each alternative of
// the pod (with the preference in force) crossed with each alternative of its volumes,
// dropping combinations that contradict base. The first return is false when none is left.
func (s *solver) nodeRequirements(p *podInfo, base requirements.Requirements, pool *poolState, explain bool) ([]requirements.Requirements, string) {
	// The result stays in s.alts (and the pod alternative behind each in s.altOrigin) until the
	// next call, which reuses the arrays.
	out := s.alts[:0]
	s.altOrigin = s.altOrigin[:0]
	defer func() { s.alts = out }()
	why := ""
	for _, alt := range p.effective() {
		if !pool.Admits(base, alt) {
			if explain && why == "" {
				if err := pool.WhyNot(base, alt); err != nil {
					why = err.Error()
				}
			}
			continue
		}
		merged := base
		if len(alt) > 0 {
			merged = base.Copy()
			merged.AddAll(alt)
		}
		if len(p.volumes.Alternatives) == 0 {
			out = append(out, merged)
			s.altOrigin = append(s.altOrigin, alt)
			continue
		}
		for _, v := range p.volumes.Alternatives {
			if merged.Conflict(v) != "" {
				if explain && why == "" {
					why = "volume " + merged.Intersects(v).Error()
				}
				continue
			}
			m := merged.Copy()
			m.AddAll(v)
			out = append(out, m)
			s.altOrigin = append(s.altOrigin, alt)
		}
	}
	return out, why
}

// fitOptions returns the options of from that can carry used+add under reqs, or nil. When
// reqsChanged is false the requirement test is skipped (the options already satisfy reqs).
// A narrowed list is written into dst when it has room (dst must not share from's array),
// else into a new array; an unchanged list is from itself. low, when set, is the element-wise
// minimum room over from (newNode.minRoom).
func (s *solver) fitOptions(dst, from []*nodetemplate.Option, low resources.Vector, reqs requirements.Requirements, reqsChanged bool, used resources.Vector, p *podInfo, pool *poolState, reserved resources.Vector, attach *volume.AttachCounter) []*nodetemplate.Option {
	// The requirement test is compiled once for all options (see typeIndex).
	var f typeindex.Filter
	if reqsChanged {
		f = pool.TypeIndex.Compile(reqs, &pool.filters)
	}
	// resources.FitsSum(used, p.requests, room) with the sums made once, on the resources
	// the pod asks for; volume and limit tests only when the pod or pool has them.
	var dimsBuf [8]int
	var needBuf [8]int64
	dims, need := dimsBuf[:0], needBuf[:0]
	for i, x := range p.requests {
		if x != 0 {
			dims, need = append(dims, i), append(need, used[i]+x)
		}
	}
	checkAttach, checkLimits := len(p.volumes.Claims) > 0, pool.limits.Set()
	if low != nil && !reqsChanged && !checkAttach && !checkLimits && fitsAt(dims, need, low) {
		return from // the smallest room of each resource holds the pod: every option keeps
	}
	keep := func(t *nodetemplate.Option) bool {
		if !fitsAt(dims, need, t.Room) {
			return false
		}
		if checkAttach && !attach.Fits(p.volumes.Claims, t.InstanceType.VolumeAttachLimits) {
			return false
		}
		if reqsChanged && !f.Allows(&t.Type) {
			return false
		}
		return !checkLimits || pool.limits.FitsWith(t.Capacity, reserved)
	}
	// Each option is judged once; the verdicts wait in a scratch buffer while the result's
	// size is not known.
	if cap(s.keptScratch) < len(from) {
		s.keptScratch = make([]bool, len(from))
	}
	kept := s.keptScratch[:len(from)]
	n := 0
	roomOnly := !checkAttach && !reqsChanged && !checkLimits // the usual case, without a call per option
	for i, t := range from {
		kept[i] = (roomOnly && fitsAt(dims, need, t.Room)) || (!roomOnly && keep(t))
		if kept[i] {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	if n == len(from) {
		return from
	}
	out := dst[:0]
	if cap(out) < n {
		out = make([]*nodetemplate.Option, 0, n)
	}
	// The narrowed list's most and least room are found while its options are at hand, for
	// the commit that usually follows (setOptionRooms).
	if len(s.fitRooms) != 2*len(used) {
		s.fitRooms = make(resources.Vector, 2*len(used))
	}
	hi, lo := s.fitRooms[:len(used)], s.fitRooms[len(used):]
	for i, t := range from {
		if !kept[i] {
			continue
		}
		room := t.Room[:len(hi)]
		if len(out) == 0 {
			copy(hi, room)
			copy(lo, room)
		}
		out = append(out, t)
		for _, d := range pool.VaryingDims { // in the others every option's room is the first's
			x := room[d]
			hi[d], lo[d] = max(hi[d], x), min(lo[d], x)
		}
	}
	s.fitRoomsOf = out
	return out
}

// fitsAt reports whether need[k] fits room[dims[k]] for every k.
func fitsAt(dims []int, need []int64, room resources.Vector) bool {
	for k, d := range dims {
		if need[k] > room[d] {
			return false
		}
	}
	return true
}

// setOptionRooms sets maxRoom and minRoom, in one new array, after options changed.
func (n *newNode) setOptionRooms(dims *resources.Dims) {
	rooms := make(resources.Vector, 2*dims.Len())
	hi, lo := rooms[:dims.Len():dims.Len()], rooms[dims.Len():]
	n.maxRoom, n.minRoom = hi, nil
	if len(n.options) == 0 {
		return
	}
	copy(lo, n.options[0].Room)
	for _, t := range n.options {
		for i, x := range t.Room[:len(hi)] {
			hi[i], lo[i] = max(hi[i], x), min(lo[i], x)
		}
	}
	n.minRoom = lo
}

// tryNewNode checks whether pod p can join node n; on success it returns the state to commit.
func (s *solver) tryNewNode(n *newNode, p *podInfo, explain bool) (candidate, rejection) {
	return s.try(target{node: n}, p, explain)
}

// sameRequirements reports whether two sets hold the same requirement values (pointer
// equality per key, which is what narrowing without change leaves).
func sameRequirements(a, b requirements.Requirements) bool {
	// Mostly a node's own set, handed back when a pod narrows nothing: every call of a day's
	// replay (1.26 million) compared a set with itself.
	if reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer() {
		return true
	}
	for k, r := range a {
		if b[k] != r {
			return false
		}
	}
	return true
}

// cheaperCandidate reports whether narrowing a node to a is better than to b: a cheaper
// offering stays allowed, or as cheap a one with more options left.
func cheaperCandidate(a, b candidate) bool {
	ca, _ := nodetemplate.Cheapest(a.options, a.reqs)
	cb, _ := nodetemplate.Cheapest(b.options, b.reqs)
	if ca.Offering.Price != cb.Offering.Price {
		return ca.Offering.Price < cb.Offering.Price
	}
	return len(a.options) > len(b.options)
}

// commitNewNode applies a successful tryNewNode.
func (s *solver) commitNewNode(n *newNode, p *podInfo, c candidate) {
	n.version++
	reqsChanged := !sameRequirements(c.reqs, n.reqs) || len(c.reqs) != len(n.reqs)
	optionsChanged := len(c.options) != len(n.options)
	n.reqs = c.reqs
	p.placedAlt = c.alt
	if len(c.options) != len(n.options) {
		// c.options is the node's spare array or a fresh one; the replaced array becomes the
		// spare when the node owned it (never when it is shared with the pool or a cache).
		spare := n.spareOptions
		if sameArray(spare, c.options) {
			spare = nil // the spare became the options
		}
		if n.ownsOptions {
			spare = n.options[:0]
		}
		n.spareOptions = spare
		n.ownsOptions = true
		n.options = c.options
		if len(s.fitRoomsOf) == len(n.options) && sameArray(s.fitRoomsOf, n.options) {
			// fitOptions last narrowed into this array: its rooms are the node's.
			rooms := slices.Clone(s.fitRooms)
			n.maxRoom, n.minRoom = rooms[:len(rooms)/2:len(rooms)/2], rooms[len(rooms)/2:]
		} else {
			n.setOptionRooms(s.dims)
		}
		if n.pool.limits.Set() { // else Move does nothing
			n.pool.limits.Move(n.reserved, nodetemplate.MaxCapacity(n.options, s.dims))
		}
	}
	if reqsChanged || optionsChanged {
		n.orderByPrice(reqsChanged)
	}
	n.notes = appendUnique(n.notes, c.notes...)
	n.used.Add(p.requests)
	n.ports = append(n.ports, p.hostPorts...)
	n.attach.Add(p.volumes.Claims)
	n.pods = append(n.pods, p)
	s.updateFree(n)
	s.topology.Record(&p.topo, topology.Joining{Name: n.name, Pool: n.pool.Index}, n.reqs, n.index)
	s.portTaken.Note(p.hostPorts, n.index)
	s.pins.Record(p.volumes.Claims, n.name)
}

// openNewNode tries to start a node of pool for pod p.
func (s *solver) openNewNode(pool *poolState, p *podInfo, explain bool) (*newNode, rejection) {
	n := s.emptyNode(pool)
	best, r := s.try(target{node: n, fresh: true}, p, explain)
	if r.failed() {
		return nil, r
	}
	reqs, options, daemons := s.settleDaemons(pool, best.reqs, best.options)
	s.claimNodeName(pool, n.name)
	n.index = len(s.nodes) // place appends the node next
	n.reqs = reqs
	n.options = options
	n.setOptionRooms(s.dims)
	if pool.limits.Set() { // else Move does nothing
		pool.limits.Move(n.reserved, nodetemplate.MaxCapacity(n.options, s.dims))
	}
	pool.limits.TakeNode()
	n.notes = best.notes
	n.orderByPrice(true)
	p.placedAlt = best.alt
	n.used.Add(p.requests)
	n.ports = append(n.ports, p.hostPorts...)
	n.attach.Add(p.volumes.Claims)
	n.pods = append(n.pods, p)
	s.recordDaemons(n, daemons)
	s.topology.Record(&p.topo, topology.Joining{Name: n.name, Pool: n.pool.Index}, n.reqs, n.index)
	s.portTaken.Note(p.hostPorts, n.index)
	s.pins.Record(p.volumes.Claims, n.name)
	return n, ok
}

func worse(a, b rejection) rejection {
	if !a.failed() || b.stage >= a.stage {
		return b
	}
	return a
}

func appendUnique(list []string, items ...string) []string {
	for _, it := range items {
		found := false
		for _, x := range list {
			if x == it {
				found = true
				break
			}
		}
		if !found {
			list = append(list, it)
		}
	}
	return list
}

// sameArray reports whether two slices share a backing array start.
func sameArray(a, b []*nodetemplate.Option) bool {
	if cap(a) == 0 || cap(b) == 0 {
		return false
	}
	return &a[:1][0] == &b[:1][0]
}

// settleLimits commits every planned node of a NodePool with limits to the offering it will
// launch with, so that it holds only that type's capacity against the limits rather than the
// largest capacity it could still grow into (Karpenter's rule while a NodeClaim is in flight,
// which would leave pods refused for limits the launched nodes do not reach). It reports
// whether any hold shrank.
func (s *solver) settleLimits() bool {
	settled := false
	for _, n := range s.nodes {
		if !n.pool.limits.Set() || len(n.pods) == 0 || len(n.options) < 2 {
			continue
		}
		c, found := nodetemplate.Cheapest(n.options, n.reqs)
		if !found {
			continue
		}
		held := nodetemplate.MaxCapacity(n.options, s.dims)
		n.version++
		n.options = []*nodetemplate.Option{c.Option}
		n.ownsOptions, n.spareOptions = true, nil
		n.setOptionRooms(s.dims)
		capacity := nodetemplate.MaxCapacity(n.options, s.dims)
		n.pool.limits.Move(n.reserved, capacity)
		n.orderByPrice(false)
		s.updateFree(n)
		for i := range held {
			if held[i] != capacity[i] {
				settled = true
			}
		}
	}
	return settled
}

// emptyNode is a node of pool with no pod yet, under the next free name: every type the
// NodePool allows is still an option.
func (s *solver) emptyNode(pool *poolState) *newNode {
	name := s.nextNodeName(pool)
	reqs := pool.Reqs.Copy()
	reqs.Add(requirements.New(requirements.LabelHostname, corev1.NodeSelectorOpIn, name))
	return &newNode{
		name:     name,
		pool:     pool,
		reqs:     reqs,
		options:  pool.Types,
		maxRoom:  s.poolRoom(pool),
		used:     make(resources.Vector, s.dims.Len()),
		reserved: make(resources.Vector, s.dims.Len()+1),
		ports:    append([]hostport.Port(nil), pool.DaemonPorts...),
		attach:   volume.NewAttachCounter(),

		priceOrderCache: s.priceOrderCache,
		unbounded:       s.karpenter != nil,
	}
}

// poolRoom is nodetemplate.MaxRoom over every type of the pool, worked out once per pool.
func (s *solver) poolRoom(pool *poolState) resources.Vector {
	room, ok := s.poolRooms[pool]
	if !ok {
		room = nodetemplate.MaxRoom(pool.Types, s.dims)
		s.poolRooms[pool] = room
	}
	return room
}

// openStaticNodes plans the nodes static NodePools lack: replicas less their existing nodes,
// within limits.nodes. They are opened empty, before any pod is placed, so pods fill them
// first; each launches the cheapest offering its pods leave it.
func (s *solver) openStaticNodes() {
	for _, pool := range s.pools {
		if pool.NodePool.Replicas == nil {
			continue
		}
		have := int64(0)
		for _, n := range s.existing {
			if n.nodePool == pool.NodePool.Name {
				have++
			}
		}
		for missing := *pool.NodePool.Replicas - have; missing > 0 && len(pool.Types) > 0; missing-- {
			if !pool.limits.NodeLeft() {
				break
			}
			n := s.emptyNode(pool)
			n.static = true
			var daemons []*topology.Daemon
			n.reqs, n.options, daemons = s.settleDaemons(pool, n.reqs, n.options)
			n.setOptionRooms(s.dims)
			s.claimNodeName(pool, n.name)
			pool.limits.TakeNode()
			n.index = len(s.nodes)
			s.recordDaemons(n, daemons)
			n.orderByPrice(true)
			s.addFree(n)
			s.nodes = append(s.nodes, n)
		}
	}
}

// settleDaemons settles the counted DaemonSets on a node of pool about to open
// (topology.State.SettleDaemons), returning its narrowed requirements and options and the
// daemons to record once the node has its index.
func (s *solver) settleDaemons(pool *poolState, reqs requirements.Requirements, options []*nodetemplate.Option) (requirements.Requirements, []*nodetemplate.Option, []*topology.Daemon) {
	if len(options) == 0 {
		return reqs, options, nil
	}
	s.offer.Options = options
	reqs, running := s.topology.SettleDaemons(pool.Index, reqs, &s.offer)
	options = s.offer.Options
	s.offer.Options = nil
	return reqs, options, running
}

// recordDaemons counts the pods of the daemons settleDaemons found running on new node n.
func (s *solver) recordDaemons(n *newNode, running []*topology.Daemon) {
	if s.topology.RecordDaemons(running, n.reqs, n.name, n.index) {
		n.daemonCounted = true
	}
}
