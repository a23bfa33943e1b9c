package scheduling

import (
	"math"
	"sort"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/bound"
	"github.com/nodeplan/nodeplan/internal/parallel"
	"github.com/nodeplan/nodeplan/internal/resources"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/typeindex"
	"github.com/nodeplan/nodeplan/volume"
)

// improve lowers the greedy plan's cost while keeping every constraint. First-fit-decreasing
// fills nodes in size order, so cpu-heavy pods share nodes with each other and memory-heavy
// ones end up together on costlier types. For new nodes whose pods carry no cross-pod rule
// (no topology term or group match, host port or volume), improve repacks each set of nodes
// with the same NodePool and requirements: bin types are taken from the fluid LP's solution for
// what is left, each bin is filled with the pods that best balance its remaining room, and each
// bin finally launches as the cheapest type that holds it. The repacking replaces the greedy
// nodes only when it is strictly cheaper and the NodePool's limits still hold.
func (s *solver) improve() {
	groups := map[string][]*newNode{}
	for _, n := range s.nodes {
		if len(n.pods) == 0 || !movable(n) {
			continue
		}
		key := strconv.Itoa(n.pool.index) + "|" + withoutHostname(n.reqs).String()
		groups[key] = append(groups[key], n)
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	// Repacking reads the solver and touches nothing of it, so every group and strategy is
	// packed at once, on every core; the results are then taken in key order, as limits
	// require, so the plan does not depend on the number of cores.
	packed := make([][]*newNode, len(keys)*len(binStrategies))
	parallel.Each(len(packed), func(i int) {
		packed[i] = s.repack(groups[keys[i/len(binStrategies)]], binStrategies[i%len(binStrategies)])
	})
	// Each replaced node's place (and name) goes to a bin, in plan order; the group's last
	// node also makes way for bins beyond the old count, under names not used yet. Names are
	// given once, when a node opens, so explanations written while planning name the nodes of
	// the plan; fewer bins than nodes leave gaps in the numbering.
	replacements := map[*newNode][]*newNode{}
	for gi, k := range keys {
		old := groups[k]
		var bins []*newNode
		for si := range binStrategies {
			if b := packed[gi*len(binStrategies)+si]; b != nil && (bins == nil || s.cheaper(b, bins)) {
				bins = b
			}
		}
		if bins == nil || !s.cheaper(bins, old) || !s.limitsAllow(old, bins) {
			continue
		}
		pool := old[0].pool
		for _, n := range old {
			pool.reserve(n.reserved, make(resources.Vector, s.dims.Len()))
			pool.releaseNode()
		}
		for i, b := range bins {
			pool.reserve(b.reserved, maxCapacity(b.options, s.dims))
			pool.reserveNode()
			if i < len(old) {
				b.name = old[i].name
			} else {
				b.name = s.nextNodeName(pool)
				s.claimNodeName(pool, b.name)
			}
			b.reqs[requirements.LabelHostname] = requirements.New(requirements.LabelHostname, corev1.NodeSelectorOpIn, b.name)
		}
		for i, n := range old {
			switch {
			case i == len(old)-1 && i < len(bins):
				replacements[n] = bins[i:]
			case i < len(bins):
				replacements[n] = bins[i : i+1]
			default:
				replacements[n] = nil
			}
		}
	}
	if len(replacements) == 0 {
		return
	}
	nodes := make([]*newNode, 0, len(s.nodes))
	for _, n := range s.nodes {
		if bins, replaced := replacements[n]; replaced {
			nodes = append(nodes, bins...)
		} else {
			nodes = append(nodes, n)
		}
	}
	s.nodes = nodes
}

// movable reports whether a node's pods can be moved between nodes of the same NodePool and
// requirements without any other pod noticing.
func movable(n *newNode) bool {
	if n.static || n.daemonCounted || len(n.pool.minValues) > 0 {
		return false
	}
	for _, p := range n.pods {
		if len(p.terms) > 0 || len(p.matched) > 0 || len(p.hostPorts) > 0 || len(p.volumes.Claims) > 0 {
			return false
		}
	}
	return true
}

func withoutHostname(reqs requirements.Requirements) requirements.Requirements {
	out := make(requirements.Requirements, len(reqs))
	for k, r := range reqs {
		if k != requirements.LabelHostname {
			out[k] = r
		}
	}
	return out
}

// podClass is a set of pods with the same requests, taken largest first.
type podClass struct {
	key      string
	requests resources.Vector
	pods     []*podInfo
	next     int
}

// repack packs the pods of nodes (one NodePool, one requirement set) afresh; nil when it
// cannot.
func (s *solver) repack(nodes []*newNode, strategy binStrategy) []*newNode {
	pool := nodes[0].pool
	reqs := withoutHostname(nodes[0].reqs)
	// Repacks run at once: each works in buffers of its own.
	ws := &repackWorkspace{}
	var types []*typeOption
	f := pool.typeIndex.Compile(reqs, &ws.filters)
	for _, t := range pool.types {
		if f.Allows(&t.Type) {
			types = append(types, t)
		}
	}
	if len(types) == 0 {
		return nil
	}
	prices := make([]float64, len(types))
	for i, t := range types {
		prices[i] = t.Offerings[f.CheapestOffering(&t.Type)].Price
	}
	classes := map[string]*podClass{}
	remaining := make(resources.Vector, s.dims.Len())
	count := 0
	for _, n := range nodes {
		for _, p := range n.pods {
			k := p.requestsKey
			c := classes[k]
			if c == nil {
				c = &podClass{key: k, requests: p.requests}
				classes[k] = c
			}
			c.pods = append(c.pods, p)
			remaining.Add(p.requests)
			count++
		}
	}
	ordered := make([]*podClass, 0, len(classes))
	for _, c := range classes {
		sort.Slice(c.pods, func(i, j int) bool {
			if a, b := c.pods[i].orderKey, c.pods[j].orderKey; a != b {
				return a < b
			}
			return c.pods[i].key < c.pods[j].key
		})
		ordered = append(ordered, c)
	}
	sort.Slice(ordered, func(i, j int) bool { return ordered[i].key < ordered[j].key })

	if len(ordered) > maxRepackClasses {
		return nil
	}
	var bins []*newNode
	for count > 0 {
		best := strategy(s, ws, types, prices, remaining, ordered)
		if best == nil {
			return nil
		}
		var binPods []*podInfo
		used := make(resources.Vector, s.dims.Len())
		for i, c := range ordered {
			for k := 0; k < best.taken[i]; k++ {
				p := c.pods[c.next]
				c.next++
				binPods = append(binPods, p)
				used.Add(p.requests)
				remaining.Sub(p.requests)
				count--
			}
		}
		binReqs := binRequirements(pool, reqs, binPods)
		options := fittingTypes(pool, types, used, binReqs, &ws.filters)
		cheapest, found := cheapestChoice(options, binReqs)
		if !found {
			return nil
		}
		b := &newNode{
			pool:     pool,
			reqs:     binReqs,
			options:  options,
			maxRoom:  maxRoom(options, s.dims),
			used:     used,
			reserved: make(resources.Vector, s.dims.Len()+1),
			ports:    append([]hostPort(nil), pool.daemonPorts...),
			attach:   volume.NewAttachCounter(),
			pods:     binPods,

			price:     cheapest.offering.Price,
			binPriced: true,
		}
		bins = append(bins, b)
	}
	return bins
}

// binStrategy fills the next bin from what is left, or returns nil.
type binStrategy func(s *solver, ws *repackWorkspace, types []*typeOption, prices []float64, remaining resources.Vector, classes []*podClass) *binFill

// repackWorkspace holds the buffers one repack reuses from bin to bin.
type repackWorkspace struct {
	filters typeindex.Scratch
	lp      bound.LP
	rooms   []resources.Vector // the types' rooms, for the LP
	// candidates, seen and potential are candidateBinTypes' buffers.
	candidates []*typeOption
	seen       []bool
	potential  []float64
}

// solveFluid solves the fluid LP over the types' rooms (see bound.LP.SolveFluid) in the
// workspace's buffers.
func (ws *repackWorkspace) solveFluid(types []*typeOption, prices []float64, demand resources.Vector) (bound.FluidSolution, bool) {
	ws.rooms = ws.rooms[:0]
	for _, t := range types {
		ws.rooms = append(ws.rooms, t.room)
	}
	return ws.lp.SolveFluid(ws.rooms, prices, demand)
}

// grow returns (*buf)[:n], reallocating when the buffer is too small.
func grow[T any](buf *[]T, n int) []T {
	if cap(*buf) < n {
		*buf = make([]T, n)
	}
	return (*buf)[:n]
}

// binStrategies are the ways repack fills bins; improve keeps the cheapest result. They fail
// on different catalogs: the LP's dual prices misjudge large balanced types when tiny
// burstable types sell cpu almost free, and the LP's own types alone miss mixes it does not
// buy.
var binStrategies = []binStrategy{mostEfficientBin, fluidTypeBin}

// mostEfficientBin tries the LP's types and the types worth most per dollar at its prices,
// and keeps the fill whose contents are worth most per dollar of the cheapest type holding
// them.
func mostEfficientBin(s *solver, ws *repackWorkspace, types []*typeOption, prices []float64, remaining resources.Vector, classes []*podClass) *binFill {
	fl, _ := ws.solveFluid(types, prices, remaining)
	var best *binFill
	for _, t := range candidateBinTypes(ws, types, prices, fl) {
		f := fillBin(classes, t, s.dims.Len())
		if len(f.pods) == 0 {
			continue
		}
		f.price = cheapestFitting(types, prices, f.used)
		f.efficiency = fl.Worth(f.used) / f.price
		if best == nil || f.efficiency > best.efficiency+1e-12 || (math.Abs(f.efficiency-best.efficiency) <= 1e-12 && len(f.pods) > len(best.pods)) {
			best = f
		}
	}
	return best
}

// fluidTypeBin fills a bin of the type the fluid LP buys most of for the demand left (among
// those that can hold some pod left), or else of the cheapest type that can.
func fluidTypeBin(s *solver, ws *repackWorkspace, types []*typeOption, prices []float64, remaining resources.Vector, classes []*podClass) *binFill {
	fl, ok := ws.solveFluid(types, prices, remaining)
	var pick *typeOption
	if ok {
		most := 0.0
		for j, x := range fl.Count {
			if x > 1e-9 && x > most+1e-9 && holdsAny(classes, types[j]) {
				pick, most = types[j], x
			}
		}
	}
	if pick == nil {
		cheapest := math.Inf(1)
		for j, t := range types {
			if prices[j] < cheapest && holdsAny(classes, t) {
				pick, cheapest = t, prices[j]
			}
		}
	}
	if pick == nil {
		return nil
	}
	return fillBin(classes, pick, s.dims.Len())
}

// maxRepackClasses bounds the distinct pod shapes repacking handles; beyond it the greedy
// packing is kept.
const maxRepackClasses = 512

// binCandidates is how many types, beyond the fluid LP's own, are tried for each bin.
const binCandidates = 6

// binFill is a trial filling of one bin.
type binFill struct {
	taken      []int // pods taken per class
	pods       []int // class index of each pod taken
	used       resources.Vector
	price      float64
	efficiency float64
}

// candidateBinTypes returns the types worth trying for the next bin: those the fluid LP buys
// for the demand left, and the ones whose room is worth most per dollar at the LP's prices
// (ties to the earlier type). types must be distinct. The result is in ws's buffer, valid
// until the next call.
func candidateBinTypes(ws *repackWorkspace, types []*typeOption, prices []float64, fl bound.FluidSolution) []*typeOption {
	out := ws.candidates[:0]
	seen := grow(&ws.seen, len(types))
	clear(seen)
	for j, x := range fl.Count {
		if x > 1e-9 {
			out = append(out, types[j])
			seen[j] = true
		}
	}
	ws.candidates = out
	if fl.Value == nil {
		return types
	}
	potential := grow(&ws.potential, len(types))
	sortable := true
	for j, t := range types {
		potential[j] = fl.Worth(t.room) / prices[j]
		sortable = sortable && !math.IsNaN(potential[j])
	}
	if !sortable {
		out = candidatesSorted(out, seen, types, potential)
		ws.candidates = out
		return out
	}
	// The binCandidates best unseen types, found by selection: the order a stable sort by
	// potential, highest first, gives, without sorting hundreds of types for each bin.
	for added := 0; added < binCandidates; added++ {
		best := -1
		for j := range types {
			if !seen[j] && (best < 0 || potential[j] > potential[best]) {
				best = j
			}
		}
		if best < 0 {
			break
		}
		out = append(out, types[best])
		seen[best] = true
	}
	ws.candidates = out
	return out
}

// candidatesSorted completes candidateBinTypes by a stable sort when some potential is NaN
// (a zero price), which no selection orders the way the sort does.
func candidatesSorted(out []*typeOption, seen []bool, types []*typeOption, potential []float64) []*typeOption {
	order := make([]int, len(types))
	for j := range types {
		order[j] = j
	}
	sort.SliceStable(order, func(a, b int) bool { return potential[order[a]] > potential[order[b]] })
	added := 0
	for _, j := range order {
		if added == binCandidates {
			break
		}
		if !seen[j] {
			out = append(out, types[j])
			seen[j] = true
			added++
		}
	}
	return out
}

// holdsAny reports whether an empty bin of type t can take some pod left in classes: whether
// fillBin(classes, t, …) would take any.
func holdsAny(classes []*podClass, t *typeOption) bool {
	for _, c := range classes {
		if c.next < len(c.pods) && roomHolds(c.requests, t.room) {
			return true
		}
	}
	return false
}

// roomHolds is resources.FitsSum with nothing used yet.
func roomHolds(requests, room resources.Vector) bool {
	for i, x := range requests {
		if x != 0 && x > room[i] {
			return false
		}
	}
	return true
}

// fillBin fills a bin of type t, without taking the pods, choosing each time the class whose
// pod best balances the room left.
func fillBin(classes []*podClass, t *typeOption, dims int) *binFill {
	f := &binFill{taken: make([]int, len(classes)), used: make(resources.Vector, dims)}
	for {
		best := -1
		bestScore := -1.0
		for i, c := range classes {
			if c.next+f.taken[i] >= len(c.pods) || !resources.FitsSum(f.used, c.requests, t.room) {
				continue
			}
			if score := balanceScore(c.requests, f.used, t.room); score > bestScore {
				best, bestScore = i, score
			}
		}
		if best < 0 {
			return f
		}
		f.taken[best]++
		f.pods = append(f.pods, best)
		f.used.Add(classes[best].requests)
	}
}

// cheapestFitting is the price of the cheapest type whose room holds used.
func cheapestFitting(types []*typeOption, prices []float64, used resources.Vector) float64 {
	best := math.Inf(1)
	for j, t := range types {
		if prices[j] < best && used.Fits(t.room) {
			best = prices[j]
		}
	}
	return best
}

// balanceScore is the dot product of a request with the free room, both normalised by the
// room: a classic vector-packing rule that pairs cpu-heavy with memory-heavy pods.
func balanceScore(requests, used, room resources.Vector) float64 {
	score := 0.0
	for i, r := range requests {
		if r == 0 || room[i] <= 0 {
			continue
		}
		capacity := float64(room[i])
		score += float64(r) / capacity * float64(room[i]-used[i]) / capacity
	}
	return score
}

// fittingTypes returns the types (of pool) whose room holds used and that can meet reqs.
func fittingTypes(pool *poolState, types []*typeOption, used resources.Vector, reqs requirements.Requirements, scratch *typeindex.Scratch) []*typeOption {
	var out []*typeOption
	f := pool.typeIndex.Compile(reqs, scratch)
	for _, t := range types {
		if used.Fits(t.room) && f.Allows(&t.Type) {
			out = append(out, t)
		}
	}
	return out
}

// vectorKey identifies a vector's content, as map key.
func vectorKey(v resources.Vector) string {
	var buf [64]byte
	b := buf[:0]
	for _, x := range v {
		b = strconv.AppendInt(b, x, 36)
		b = append(b, ',')
	}
	return string(b)
}

// cheaper reports whether the new bins cost strictly less than the old nodes, each node's
// fixed cost included.
func (s *solver) cheaper(bins, old []*newNode) bool {
	fixed := s.nodeCost * float64(len(bins)-len(old))
	return nodesCost(bins)+fixed+1e-9 < nodesCost(old)
}

// nodesCost is what the nodes launch at: the price each keeps up to date as pods join (or, for
// a repacked bin, was given when it was filled).
func nodesCost(nodes []*newNode) float64 {
	total := 0.0
	for _, n := range nodes {
		if len(n.byPrice) == 0 && !n.binPriced {
			return 1e18 // no option is left to launch
		}
		total += n.price
	}
	return total
}

// limitsAllow reports whether swapping old for bins keeps the NodePool within its limits.
func (s *solver) limitsAllow(old, bins []*newNode) bool {
	pool := old[0].pool
	if pool.remaining == nil {
		return true
	}
	left := pool.remaining.Clone()
	for _, n := range old {
		for i, r := range n.reserved {
			left[i] += r
		}
		left[len(left)-1]++
	}
	for _, b := range bins {
		for i, c := range maxCapacity(b.options, s.dims) {
			left[i] -= c
		}
		left[len(left)-1]--
	}
	for i, l := range left {
		if pool.limited[i] && l < 0 {
			return false
		}
	}
	return true
}

// binRequirements narrows the NodePool's requirements by what the bin's own pods need, so a
// bin does not inherit a zone or capacity type that only a pod now elsewhere asked for. Each
// pod contributes the alternative it was placed with, which the group's requirements already
// include, so the alternatives agree with each other and with the group's types.
func binRequirements(pool *poolState, group requirements.Requirements, pods []*podInfo) requirements.Requirements {
	out := pool.reqs.Copy()
	for _, p := range pods {
		out.AddAll(p.placedAlt)
	}
	return out
}
