package disruption

import (
	"fmt"
	"math"
	"sort"

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

func (v vec) fits(in vec) bool { return v[0] <= in[0] && v[1] <= in[1] && v[2] <= in[2] }
func (v vec) add(o vec) vec    { return vec{v[0] + o[0], v[1] + o[1], v[2] + o[2]} }
func (v vec) sub(o vec) vec    { return vec{v[0] - o[0], v[1] - o[1], v[2] - o[2]} }

func vecOf(l corev1.ResourceList) vec {
	return vec{l.Cpu().MilliValue(), l.Memory().Value(), l.Pods().Value()}
}

// podVec is what a pod needs at least: its requests, never below zero, and one pod.
func podVec(p *corev1.Pod) vec {
	v := vecOf(resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{}))
	return vec{max(v[0], 0), max(v[1], 0), 1}
}

// usedVec is what a running pod takes from its node by its requests, as they are.
func usedVec(p *corev1.Pod) vec {
	v := vecOf(resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{}))
	v[2] = 1
	return v
}

// roomIndex holds the room left on every node that may take pods (not cordoned, not leaving;
// nodes still starting too, though a move onto one fails, so that the simulation says so),
// and its Pareto frontier: a pod fits on some node only if it fits on a node
// of the frontier.
type roomIndex struct {
	all      []roomNode // by cpu room, most first
	frontier []roomNode
}

type roomNode struct {
	n    *nodeState
	room vec
}

func newRoomIndex(nodes []*nodeState) *roomIndex {
	ix := &roomIndex{}
	for _, n := range nodes {
		if n.removed || n.in.Node.Spec.Unschedulable {
			continue
		}
		alloc := n.in.Node.Status.Allocatable
		if len(alloc) == 0 {
			alloc = n.in.Node.Status.Capacity
		}
		room := vecOf(alloc)
		for _, p := range n.pods {
			room = room.sub(usedVec(p))
		}
		ix.all = append(ix.all, roomNode{n: n, room: room})
	}
	sort.SliceStable(ix.all, func(i, j int) bool {
		a, b := ix.all[i].room, ix.all[j].room
		for k := range a {
			if a[k] != b[k] {
				return a[k] > b[k]
			}
		}
		return ix.all[i].n.name < ix.all[j].n.name
	})
	for _, r := range ix.all {
		dominated := false
		for _, f := range ix.frontier {
			if r.room.fits(f.room) {
				dominated = true
				break
			}
		}
		if !dominated {
			ix.frontier = append(ix.frontier, r)
		}
	}
	return ix
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
		if r.n != except && v.fits(r.room) {
			return true
		}
	}
	return false
}

// offerIndex lists, cheapest first, the room of every instance type some NodePool may launch
// and the cheapest available offering its requirements allow.
type offerIndex struct{ types []typePrice }

type typePrice struct {
	room  vec
	price float64
}

func newOfferIndex(pools []*scheduling.NodePool, poolReqs map[string]requirements.Requirements) *offerIndex {
	ix := &offerIndex{}
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
			if !math.IsInf(price, 1) {
				ix.types = append(ix.types, typePrice{room: vecOf(it.Allocatable()), price: price})
			}
		}
	}
	sort.SliceStable(ix.types, func(i, j int) bool { return ix.types[i].price < ix.types[j].price })
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

// singleNodeBound says why no single-node consolidation of c can succeed, or "" when a
// simulation is needed. The pods of c that fit on no other node must all go to one new node
// (a node is replaced by one node at most), which must cost less than c.
func (d *decider) singleNodeBound(c *nodeState, rooms *roomIndex) string {
	var homeless vec
	for _, p := range c.movable {
		if v := podVec(p); !rooms.fitsElsewhere(v, c) {
			homeless = homeless.add(v)
		}
	}
	if homeless == (vec{}) {
		return ""
	}
	lower := d.offers.cheapestHolding(homeless)
	if math.IsInf(lower, 1) {
		return fmt.Sprintf("no cheaper way to run its pods (a bound, without simulation): %s of their requests fit on no other node, and no instance type of the NodePools has room for it on one node", describeVec(homeless))
	}
	if lower >= c.price-priceEpsilon {
		return fmt.Sprintf("no cheaper way to run its pods (a bound, without simulation): %s of their requests fit on no other node, and the cheapest node with room for it costs $%.4f/h, not less than the node's $%.4f/h", describeVec(homeless), lower, c.price)
	}
	return ""
}

func describeVec(v vec) string {
	return fmt.Sprintf("%dm cpu, %dMi memory, %d pod(s)", v[0], v[1]>>20, v[2])
}
