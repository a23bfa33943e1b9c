package scheduling

import (
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/binpack"
	"github.com/nodeplan/nodeplan/hostport"
	"github.com/nodeplan/nodeplan/internal/parallel"
	"github.com/nodeplan/nodeplan/internal/resources"
	"github.com/nodeplan/nodeplan/nodetemplate"
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
		key := strconv.Itoa(n.pool.Index) + "|" + withoutHostname(n.reqs).String()
		groups[key] = append(groups[key], n)
	}
	keys := make([]string, 0, len(groups))
	for k, g := range groups {
		if len(g) == 1 && !s.opts.repackAlways && s.repackCannotBeat(g[0], k) {
			if s.opts.repackSkips != nil {
				*s.opts.repackSkips++
			}
			continue
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	// Repacking reads the solver and touches nothing of it, so every group and strategy is
	// packed at once, on every core; the results are then taken in key order, as limits
	// require, so the plan does not depend on the number of cores.
	// A what-if's few new nodes repack quicker on the caller than on a core woken for them.
	pods := 0
	for _, n := range s.nodes {
		pods += len(n.pods)
	}
	perWorker := 1
	if pods < cheapPerWorker {
		perWorker = len(keys) * len(binStrategies)
	}
	packed := make([][]*newNode, len(keys)*len(binStrategies))
	parallel.EachMin(len(packed), perWorker, func(i int) {
		packed[i] = s.repack(groups[keys[i/len(binStrategies)]], keys[i/len(binStrategies)], i%len(binStrategies))
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
			pool.limits.Move(n.reserved, make(resources.Vector, s.dims.Len()))
			pool.limits.ReleaseNode()
		}
		for i, b := range bins {
			pool.limits.Move(b.reserved, nodetemplate.MaxCapacity(b.options, s.dims))
			pool.limits.TakeNode()
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
	if n.static || n.daemonCounted || len(n.pool.MinValues) > 0 {
		return false
	}
	for _, p := range n.pods {
		if p.topo.Constrained() || len(p.hostPorts) > 0 || len(p.volumes.Claims) > 0 {
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

// podClass is a set of pods with the same requests, taken largest first; next is the first
// not yet in a bin.
type podClass struct {
	key  string
	pods []*podInfo
	next int
}

// binStrategies are the ways repack fills bins; improve keeps the cheapest result.
var binStrategies = binpack.Strategies()

// maxRepackClasses bounds the distinct pod shapes repacking handles; beyond it the greedy
// packing is kept.
const maxRepackClasses = 512

// repack packs the pods of nodes (one NodePool, one requirement set: group names both)
// afresh with binStrategies[si]; nil when it cannot.
func (s *solver) repack(nodes []*newNode, group string, si int) []*newNode {
	strategy := binStrategies[si]
	pool := nodes[0].pool
	reqs := withoutHostname(nodes[0].reqs)
	// Repacks run at once: each works in buffers of its own.
	var filters typeindex.Scratch
	types := pool.GroupTypes(reqs, group, &filters)
	if len(types) == 0 {
		return nil
	}
	byKey := map[string]int{}
	var classes []podClass
	remaining := make(resources.Vector, s.dims.Len())
	count := 0
	// The classes' pods share one array: counted first, then placed.
	for _, n := range nodes {
		for _, p := range n.pods {
			i, ok := byKey[p.requestsKey]
			if !ok {
				i = len(classes)
				byKey[p.requestsKey] = i
				classes = append(classes, podClass{key: p.requestsKey})
			}
			classes[i].next++
			remaining.Add(p.requests)
			count++
		}
	}
	all := make([]*podInfo, 0, count)
	for i := range classes {
		c := &classes[i]
		c.pods, all, c.next = all[len(all):len(all):len(all)+c.next], all[:len(all)+c.next], 0
	}
	for _, n := range nodes {
		for _, p := range n.pods {
			c := &classes[byKey[p.requestsKey]]
			c.pods = append(c.pods, p)
		}
	}
	if len(classes) > maxRepackClasses {
		return nil
	}
	sort.Slice(classes, func(i, j int) bool { return classes[i].key < classes[j].key })
	shapes := make([]binpack.Class, len(classes))
	for i := range classes {
		c := &classes[i]
		sort.Slice(c.pods, func(i, j int) bool {
			if a, b := c.pods[i].orderKey, c.pods[j].orderKey; a != b {
				return a < b
			}
			return c.pods[i].key < c.pods[j].key
		})
		shapes[i] = binpack.Class{Requests: c.pods[0].requests, Left: len(c.pods)}
	}
	key := repackKey(group, si, classes)
	memo, replay := pool.Memos.Repacks.Get(key)
	var kinds binpack.Kinds
	if !replay {
		kinds = pool.GroupKinds(reqs, group, types, &filters)
	}
	var fills nodetemplate.RepackFills
	ws := &binpack.Workspace{}
	var bins []*newNode
	var fitting []*nodetemplate.Option // BinLaunch's buffer
	for bin := 0; count > 0; bin++ {
		var taken []int
		switch {
		case replay && bin < len(memo.Taken):
			taken = memo.Taken[bin]
		case replay:
			return nil // memo.failed: the strategy finds no fill here
		default:
			best := strategy(ws, kinds, remaining, shapes)
			if best == nil {
				fills.Failed = true
				pool.Memos.Repacks.Put(key, fills)
				return nil
			}
			taken = best.Taken
			fills.Taken = append(fills.Taken, taken)
		}
		size := 0
		for _, k := range taken {
			size += k
		}
		binPods := make([]*podInfo, 0, size)
		used := make(resources.Vector, s.dims.Len())
		for i := range classes {
			c := &classes[i]
			for k := 0; k < taken[i]; k++ {
				p := c.pods[c.next]
				c.next++
				shapes[i].Left--
				binPods = append(binPods, p)
				used.Add(p.requests)
				remaining.Sub(p.requests)
				count--
			}
		}
		binReqs := binRequirements(pool, reqs, binPods)
		launch := pool.BinLaunch(group, types, used, binReqs, &filters, &fitting)
		if !launch.Found {
			return nil
		}
		b := &newNode{
			pool:     pool,
			reqs:     binReqs,
			options:  launch.Options,
			maxRoom:  launch.MaxRoom,
			used:     used,
			reserved: make(resources.Vector, s.dims.Len()+1),
			ports:    append([]hostport.Port(nil), pool.DaemonPorts...),
			attach:   volume.NewAttachCounter(),
			pods:     binPods,

			price:     launch.Price,
			binPriced: true,
		}
		bins = append(bins, b)
	}
	if !replay {
		pool.Memos.Repacks.Put(key, fills)
	}
	return bins
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
	if !pool.limits.Set() {
		return true
	}
	left := pool.limits.Clone()
	for _, n := range old {
		left.Release(n.reserved)
	}
	for _, b := range bins {
		left.Take(nodetemplate.MaxCapacity(b.options, s.dims))
	}
	return left.Within()
}

// repackCannotBeat reports whether no repacking of a lone new node of group (its only node)
// can replace it, so that repack need not run: one bin holding all its pods launches at no
// less than the node does, and two bins or more cost at least twice the cheapest price of the
// group's types, plus a node's fixed cost (what a consolidation's replacement mostly is, on a
// NodePool of one size of types). It reads what repack would: the same types and launch.
func (s *solver) repackCannotBeat(n *newNode, group string) bool {
	if len(n.byPrice) == 0 && !n.binPriced {
		return false // no option is left to launch it: any bins are cheaper
	}
	pool := n.pool
	reqs := withoutHostname(n.reqs)
	var filters typeindex.Scratch
	types := pool.GroupTypes(reqs, group, &filters)
	if len(types) == 0 {
		return true // repack finds no bin
	}
	// A bin launches at one of its type's offerings the NodePool allows: no cheaper than
	// the type's cheapest (Option.Cheapest), and the group's types keep the pool's order,
	// cheapest first.
	if 2*types[0].Cheapest+s.nodeCost+1e-9 < n.price {
		return false
	}
	used := make(resources.Vector, s.dims.Len())
	for _, p := range n.pods {
		used.Add(p.requests)
	}
	var fitting []*nodetemplate.Option
	launch := pool.BinLaunch(group, types, used, binRequirements(pool, reqs, n.pods), &filters, &fitting)
	return !launch.Found || launch.Price+1e-9 >= n.price
}

// binRequirements narrows the NodePool's requirements by what the bin's own pods need, so a
// bin does not inherit a zone or capacity type that only a pod now elsewhere asked for. Each
// pod contributes the alternative it was placed with, which the group's requirements already
// include, so the alternatives agree with each other and with the group's types.
func binRequirements(pool *poolState, group requirements.Requirements, pods []*podInfo) requirements.Requirements {
	out := pool.Reqs.Copy()
	for _, p := range pods {
		out.AddAll(p.placedAlt)
	}
	return out
}

// repackKey is the memo's key of a packing: the group (NodePool and requirement set), the
// strategy and the classes (sorted by requests) with their counts.
func repackKey(group string, strategy int, classes []podClass) string {
	var b strings.Builder
	b.WriteString(group)
	b.WriteByte('|')
	b.WriteString(strconv.Itoa(strategy))
	for _, c := range classes {
		b.WriteByte('|')
		b.WriteString(c.key)
		b.WriteByte('x')
		b.WriteString(strconv.Itoa(len(c.pods)))
	}
	return b.String()
}
