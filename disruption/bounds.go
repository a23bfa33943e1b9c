package disruption

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduling"
)

// A bound rules a candidate out without a simulation only when no simulation could
// consolidate it. It relaxes the problem, never tightens it: it counts requests alone (the
// scheduler also counts limits that stand for requests, and checks every other
// constraint), looks at cpu, memory and pods only, ignores pending pods and DaemonSet
// overhead, and prices new capacity at the cheapest available offering a NodePool's
// requirements allow. So its room is at least the scheduler's, and its price at most any
// replacement's.

// vec is cpu (milli), memory (bytes) and pod count: the dimensions bounds look at.
type vec [3]int64

func (v vec) fits(in vec) bool  { return v[0] <= in[0] && v[1] <= in[1] && v[2] <= in[2] }
func (v vec) add(o vec) vec     { return vec{v[0] + o[0], v[1] + o[1], v[2] + o[2]} }
func (v vec) sub(o vec) vec     { return vec{v[0] - o[0], v[1] - o[1], v[2] - o[2]} }
func (v vec) times(n int64) vec { return vec{v[0] * n, v[1] * n, v[2] * n} }

// needKind is one kind of a node's movable pods: their requests (podVec), and how many of
// the pods ask that.
type needKind struct {
	v     vec
	count int64
}

// addNeed counts one more pod asking v among kinds, which it keeps sorted by request.
func addNeed(kinds []needKind, v vec) []needKind {
	i, found := slices.BinarySearchFunc(kinds, v, func(k needKind, v vec) int { return compareVecs(k.v, v) })
	if found {
		kinds[i].count++
		return kinds
	}
	return slices.Insert(kinds, i, needKind{v: v, count: 1})
}

func compareVecs(a, b vec) int {
	for k := range a {
		if c := cmp.Compare(a[k], b[k]); c != 0 {
			return c
		}
	}
	return 0
}

func vecOf(l corev1.ResourceList) vec {
	return vec{l.Cpu().MilliValue(), l.Memory().Value(), l.Pods().Value()}
}

// podVec is what a pod asks of a node it moves to: its requests (none below zero) and one
// pod.
func podVec(p *corev1.Pod) vec {
	_, need := podVecs(p)
	return need
}

// podVecs is what a running pod takes from its node by its requests, as they are, and its
// podVec, the requests read once.
func podVecs(p *corev1.Pod) (used, need vec) {
	v := requests(p)
	return vec{v[0], v[1], 1}, vec{max(v[0], 0), max(v[1], 0), 1}
}

// requests is the pod's cpu and memory requests as kube-scheduler counts them: summed over
// its containers when it has nothing else (no init containers, overhead or pod-level
// resources), else from resourcehelper.PodRequests.
func requests(p *corev1.Pod) vec {
	spec := &p.Spec
	if len(spec.InitContainers) > 0 || spec.Overhead != nil || spec.Resources != nil {
		return vecOf(resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{}))
	}
	var v vec
	for i := range spec.Containers {
		r := spec.Containers[i].Resources.Requests
		if q, ok := r[corev1.ResourceCPU]; ok {
			v[0] += q.MilliValue()
		}
		if q, ok := r[corev1.ResourceMemory]; ok {
			v[1] += q.Value()
		}
	}
	return v
}

// roomIndex holds the room left on every node that may take pods (not cordoned, not leaving;
// nodes still starting too, though a move onto one fails, so that the simulation says so),
// and its Pareto frontier: a pod fits on some node only if it fits on a node
// of the frontier.
type roomIndex struct {
	all      []roomNode // by cpu room, most first
	frontier []roomNode
	// gone, when set, are nodes of all that the index leaves out (see without).
	gone map[*nodeState]bool
	// fitting memoises roomFitting; the indexes without some nodes share it.
	fitting *roomSums
}

// roomSums holds, by packing, the total room of the nodes of an index's all that pods of
// that packing can use (see packing.usable). Bounds run on several workers at once, hence
// the lock.
type roomSums struct {
	mu sync.Mutex
	by map[packing]vec
}

// roomFitting is the total room of the nodes of all (the gone ones too) that pods of p can
// use.
func (ix *roomIndex) roomFitting(p packing) vec {
	ix.fitting.mu.Lock()
	defer ix.fitting.mu.Unlock()
	if sum, ok := ix.fitting.by[p]; ok {
		return sum
	}
	var sum vec
	for _, r := range ix.all {
		if r.room[0] < p.smallest[0] {
			break
		}
		sum = sum.add(p.usable(r.room))
	}
	ix.fitting.by[p] = sum
	return sum
}

type roomNode struct {
	n    *nodeState
	room vec
}

// newRoomIndex indexes the room of the nodes that may take pods. It reads the nodes' rooms as
// the input gives them, so it serves consolidation, which runs before any command is
// committed.
func newRoomIndex(nodes []*nodeState) *roomIndex {
	ix := &roomIndex{all: make([]roomNode, 0, len(nodes)), fitting: &roomSums{by: map[packing]vec{}}}
	for _, n := range nodes {
		if !n.removed && !n.in.Node.Spec.Unschedulable {
			ix.all = append(ix.all, roomNode{n: n, room: n.room})
			n.indexed = true
		}
	}
	// Names are unique: the order is total.
	slices.SortFunc(ix.all, func(a, b roomNode) int {
		for k := range a.room {
			if c := cmp.Compare(b.room[k], a.room[k]); c != 0 {
				return c
			}
		}
		return strings.Compare(a.n.name, b.n.name)
	})
	ix.frontier = paretoFrontier(ix.all, nil)
	return ix
}

// without returns the index of the nodes that stay when leaving go.
func (ix *roomIndex) without(leaving []*nodeState) *roomIndex {
	if len(leaving) == 0 {
		return ix
	}
	gone := make(map[*nodeState]bool, len(leaving)+len(ix.gone))
	for n := range ix.gone {
		gone[n] = true
	}
	for _, n := range leaving {
		gone[n] = true
	}
	// The nodes that stay are read off all, skipping gone: a decision asks for the index
	// without each set it tries, and all holds every node of the cluster.
	return &roomIndex{all: ix.all, gone: gone, frontier: paretoFrontier(ix.all, gone), fitting: ix.fitting}
}

// paretoFrontier returns the rooms no other room holds, from rooms sorted most first, but for
// the nodes gone.
func paretoFrontier(all []roomNode, gone map[*nodeState]bool) []roomNode {
	var frontier []roomNode
	for _, r := range all {
		if gone[r.n] {
			continue
		}
		dominated := false
		for _, f := range frontier {
			if r.room.fits(f.room) {
				dominated = true
				break
			}
		}
		if !dominated {
			frontier = append(frontier, r)
		}
	}
	return frontier
}

// fitsElsewhere reports whether v fits in the room of some node other than except.
func (ix *roomIndex) fitsElsewhere(v vec, except *nodeState) bool {
	onlyExcept := false
	for _, f := range ix.frontier {
		if v.fits(f.room) {
			if f.n != except {
				return true
			}
			onlyExcept = true
		}
	}
	if !onlyExcept {
		return false
	}
	for _, r := range ix.all {
		if r.room[0] < v[0] {
			break
		}
		if r.n != except && !ix.gone[r.n] && v.fits(r.room) {
			return true
		}
	}
	return false
}

// offerIndex lists, cheapest first, the room of every instance type some NodePool may launch
// (but those with no more room than a cheaper one) and the cheapest available offering its
// requirements allow, and the lowest prices per milli-cpu and per byte of memory among them.
type offerIndex struct {
	types           []typePrice
	perCPU, perByte float64
	// most is the most room of any type in each dimension.
	most vec
}

type typePrice struct {
	room  vec
	price float64
}

func newOfferIndex(pools []*scheduling.NodePool, poolReqs map[string]requirements.Requirements) *offerIndex {
	ix := &offerIndex{perCPU: math.Inf(1), perByte: math.Inf(1)}
	for _, np := range pools {
		reqs := poolReqs[np.Name]
		for _, it := range np.InstanceTypes {
			if it == nil || !allows(reqs, it.Labels, requirements.LabelInstanceType, it.Name) {
				continue
			}
			price := math.Inf(1)
			for _, o := range it.Offerings {
				if o.Available && allows(reqs, nil, requirements.LabelTopologyZone, o.Zone) && allows(reqs, nil, requirements.LabelCapacityType, o.CapacityType) {
					price = math.Min(price, o.Price)
				}
			}
			if math.IsInf(price, 1) {
				continue
			}
			room := vecOf(it.Allocatable())
			ix.types = append(ix.types, typePrice{room: room, price: price})
			for k := range ix.most {
				ix.most[k] = max(ix.most[k], room[k])
			}
			if room[0] > 0 {
				ix.perCPU = math.Min(ix.perCPU, price/float64(room[0]))
			}
			if room[1] > 0 {
				ix.perByte = math.Min(ix.perByte, price/float64(room[1]))
			}
		}
	}
	sort.SliceStable(ix.types, func(i, j int) bool { return ix.types[i].price < ix.types[j].price })
	// A type with no more room than a cheaper one is never the cheapest holding anything:
	// cheapestHolding reads the others only (a catalog's few hundred types are a few dozen).
	frontier := ix.types[:0:0]
	for _, t := range ix.types {
		if !slices.ContainsFunc(frontier, func(f typePrice) bool { return t.room.fits(f.room) }) {
			frontier = append(frontier, t)
		}
	}
	ix.types = frontier
	return ix
}

// allows reports whether reqs allow key=value and every label of the type they name; keys a
// type does not define are not held against it.
func allows(reqs requirements.Requirements, labels map[string]string, key, value string) bool {
	if r, ok := reqs.Get(key); ok && !r.Has(value) {
		return false
	}
	for k, v := range labels {
		if r, ok := reqs.Get(requirements.NormalizeKey(k)); ok && !r.Has(v) {
			return false
		}
	}
	return true
}

// cheapestHolding is the price of the cheapest type with room for need; +Inf when none has.
func (ix *offerIndex) cheapestHolding(need vec) float64 {
	for _, t := range ix.types {
		if need.fits(t.room) {
			return t.price
		}
	}
	return math.Inf(1)
}

// need is what pods that fit on no staying node ask of new nodes: in total, and the largest
// pod's requests.
type need struct{ total, largest vec }

func (n need) add(o need) need {
	return need{total: n.total.add(o.total), largest: vec{max(n.largest[0], o.largest[0]), max(n.largest[1], o.largest[1]), max(n.largest[2], o.largest[2])}}
}

// homeless sums the movable pods of n that fit on no node of rooms but except.
func homeless(n *nodeState, rooms *roomIndex, except *nodeState) need {
	var out need
	for _, k := range n.kinds {
		if !rooms.fitsElsewhere(k.v, except) {
			out = out.add(need{total: k.v.times(k.count), largest: k.v})
		}
	}
	return out
}

// crowded is what of the movable pods of set the nodes of rooms (but set's own) cannot take,
// however the pods are packed: in each dimension, the pods' total less the room of every node
// that the pods can use (see packing: none of a node without room for the smallest of them,
// and of cpu and memory no more than the other's room allows at the pods' highest ratio).
// homeless counts the pods that fit on no node; crowded also counts pods that each fit
// somewhere but are too many for the room there, as when the nodes left with room are few,
// their room is in small pieces, or it is cpu with no memory beside it. It costs a lookup per
// distinct packing and decision (roomFitting), and then the set's and the gone nodes' own
// rooms, not a scan of every node per set.
func crowded(set []*nodeState, rooms *roomIndex) vec {
	p, total, found := packingOf(set)
	if !found {
		return vec{}
	}
	free := rooms.roomFitting(p)
	// The nodes the index leaves out, and set's own, are counted there: take them off.
	for n := range rooms.gone {
		if n.indexed {
			free = free.sub(p.usable(n.room))
		}
	}
	for _, c := range set {
		if c.indexed && !rooms.gone[c] {
			free = free.sub(p.usable(c.room))
		}
	}
	var left vec
	for d := range left {
		left[d] = max(0, total[d]-free[d])
	}
	return left
}

// lower is a lower bound on what new nodes with room for n cost: the cheapest node holding
// all of it when one node must, else the most of the cheapest price per cpu and per memory
// times the total, and the cheapest node holding the largest pod. +Inf when no type can.
func (ix *offerIndex) lower(n need, oneNode bool) float64 {
	if n.total == (vec{}) {
		return 0
	}
	if oneNode {
		return ix.cheapestHolding(n.total)
	}
	bound := ix.cheapestHolding(n.largest)
	if n.total[0] > 0 {
		bound = math.Max(bound, float64(n.total[0])*ix.perCPU)
	}
	if n.total[1] > 0 {
		bound = math.Max(bound, float64(n.total[1])*ix.perByte)
	}
	if math.IsNaN(bound) {
		return math.Inf(1)
	}
	return bound
}

// setBound says why removing set cannot be a consolidation that costs less than limit in new
// nodes ("" when a simulation is needed). extra is what other leaving nodes' pods already need
// of new nodes; oneNode is set when a single node is removed, whose pods that fit on no other
// node must then all go to one new node (a node is replaced by one node at most).
func (d *decider) setBound(set []*nodeState, rooms *roomIndex, extra need, oneNode bool, limit float64) string {
	n, lower := d.newNodesLower(set, rooms, extra, oneNode)
	return boundReason(n, lower, limit)
}

// boundReason says why new nodes for n, which cost at least lower, cannot cost less than
// limit ("" when they might).
func boundReason(n need, lower, limit float64) string {
	if n.total == (vec{}) {
		return ""
	}
	// Most single-node candidates end here, every decision: the reason is built in one
	// buffer rather than by fmt.
	const lead = "no cheaper way to run its pods (a bound, without simulation): "
	const room = " of their requests find no room on the other nodes, and "
	b := make([]byte, 0, 256)
	switch {
	case math.IsInf(lower, 1):
		b = append(appendVec(append(b, lead...), n.total), room...)
		b = append(b, "no instance type of the NodePools has room for it"...)
	case lower >= limit-priceEpsilon:
		b = append(appendVec(append(b, lead...), n.total), room...)
		b = strconv.AppendFloat(append(b, "new capacity for it costs at least $"...), lower, 'f', 4, 64)
		b = strconv.AppendFloat(append(b, "/h, not less than $"...), limit, 'f', 4, 64)
		b = append(b, "/h"...)
	default:
		return ""
	}
	return string(b)
}

// firstRound rules on removing set, for a decision that only needs its commands, from the
// scheduler's first round without a solve (scheduling.Cluster.FirstRound): the outcome fails
// when a pod of set would move to a node still starting; or, when the first round is final,
// when the pods no staying node takes need new nodes that cannot make a consolidation: for a
// single node, one new node no cheaper than it (a node is replaced by one node at most); for
// several, as many new nodes as the set has at least (several nodes are only consolidated
// into fewer). Such a set is not one whose pods fit on fewer new nodes at no lower price
// (prefixSearch's "too short"): its pods fit on no fewer, or some fit nowhere. Under
// karpenterMultiNode several nodes go into one new node at most, as one node does, and the
// search reads no "too short" of a failure. told is false
// when the first round cannot tell, or does not rule the removal out: it is then simulated.
func (d *decider) firstRound(cluster *scheduling.Cluster, set []*nodeState) (o *outcome, told bool) {
	change := d.sim.change(set, nil)
	round, ok := cluster.FirstRound(change, scheduling.Options{SkipLowerBound: true, StopOnUninitialized: true})
	if !ok {
		return nil, false
	}
	o = &outcome{cands: set, change: change} // no moves, no pods left: it stops before
	if round.Stopped != nil {
		o.uninit = round.Stopped.Error()
		return o, true
	}
	if !round.Final {
		return nil, false
	}
	var n need
	for _, p := range round.Waiting {
		v := needOf(set, p)
		n = n.add(need{total: v, largest: v})
	}
	switch {
	case len(set) == 1:
		o.bounded = boundReason(n, d.offers.lower(n, true), set[0].price)
	case d.karpenterMultiNode:
		// One new node at most, which must hold them all and cost less than the set.
		if o.bounded = d.offers.countReason(n, 2); o.bounded == "" {
			o.bounded = boundReason(n, d.offers.lower(n, true), priceOf(set))
		}
	default:
		o.bounded = d.offers.countReason(n, len(set))
	}
	if o.bounded == "" {
		return nil, false
	}
	return o, true
}

// needOf is podVec(p) for a movable pod of set, as classify found it. The scheduler sees a
// node's own pods bound to it (see view), so only the node p names is searched: a set of a
// hundred nodes holds thousands of pods.
func needOf(set []*nodeState, p *corev1.Pod) vec {
	for _, c := range set {
		if c.name != p.Spec.NodeName {
			continue
		}
		if i := slices.Index(c.movable, p); i >= 0 {
			return c.needs[i]
		}
	}
	return podVec(p)
}

// countReason says why new nodes for n cannot be fewer than want ("" when they might be): no
// instance type has more room in any dimension than the largest of each, so the total needs
// at least that many.
func (ix *offerIndex) countReason(n need, want int) string {
	least := int64(0)
	for k, most := range ix.most {
		if most > 0 {
			least = max(least, (n.total[k]+most-1)/most)
		}
	}
	if least < int64(want) {
		return ""
	}
	return fmt.Sprintf("no consolidation into fewer nodes (a bound, without simulation): %s of their requests fit on no other node, and no instance type of the NodePools has more than %s, so they need at least %d new nodes", describeVec(n.total), describeVec(ix.most), least)
}

// newNodesLower is what the pods of set that find no room on the nodes of rooms (but their
// own; see homeless and crowded), with extra, ask of new nodes at least, and a lower bound on
// what any new nodes holding them cost (0 when they ask nothing). oneNode is as for setBound.
func (d *decider) newNodesLower(set []*nodeState, rooms *roomIndex, extra need, oneNode bool) (need, float64) {
	var own need
	for _, c := range set {
		own = own.add(homeless(c, rooms, c))
	}
	crowd := crowded(set, rooms)
	for k := range own.total {
		own.total[k] = max(own.total[k], crowd[k])
	}
	n := extra.add(own)
	return n, d.offers.lower(n, oneNode)
}

// multiNodeBound says why removing set, several nodes whose pods may only move to the nodes
// that stay, cannot be a consolidation ("" when a simulation is needed). Under
// karpenterMultiNode, the pods that need a new node must all go to one.
func (d *decider) multiNodeBound(set []*nodeState) string {
	return d.setBound(set, d.roomIndex().without(set), need{}, len(set) == 1 || d.karpenterMultiNode, priceOf(set))
}

// growRooms is what grow's bounds start from when it adds nodes to set: the room of the nodes
// that stay, and what the pods of set that fit on none of them ask of new nodes.
func (d *decider) growRooms(set []*nodeState) (*roomIndex, need) {
	rooms := d.roomIndex().without(set)
	var extra need
	for _, c := range set {
		extra = extra.add(homeless(c, rooms, nil))
	}
	return rooms, extra
}

// growBound says why adding c to set cannot make a consolidation saving more than floor (the
// savings of set's own), given growRooms(set); "" when a simulation is needed. better takes
// a set saving within priceEpsilon of floor when it removes more nodes, so the limit leaves
// room for that and for float noise.
func (d *decider) growBound(set []*nodeState, c *nodeState, rooms *roomIndex, extra need, floor float64) string {
	price := priceOf(set) + c.price
	return d.setBound([]*nodeState{c}, rooms, extra, len(set) == 0, math.Min(price, price-floor+3*priceEpsilon))
}

// singleNodeBound says why no single-node consolidation of c can succeed, or "" when a
// simulation is needed.
func (d *decider) singleNodeBound(c *nodeState, rooms *roomIndex) string {
	return d.setBound([]*nodeState{c}, rooms, need{}, true, c.price)
}

func describeVec(v vec) string {
	return string(appendVec(make([]byte, 0, 48), v))
}

// appendVec appends describeVec(v) to b.
func appendVec(b []byte, v vec) []byte {
	b = append(strconv.AppendInt(b, v[0], 10), "m cpu, "...)
	b = append(strconv.AppendInt(b, v[1]>>20, 10), "Mi memory, "...)
	return append(strconv.AppendInt(b, v[2], 10), " pod(s)"...)
}
