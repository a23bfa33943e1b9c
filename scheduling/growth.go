package scheduling

import (
	"math"

	"github.com/nodeplan/nodeplan/internal/resources"
	"github.com/nodeplan/nodeplan/nodetemplate"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/typeindex"
)

// growthSlack bounds how much more a node may pay per copy of its contents when a pod makes
// it grow into a bigger type, unless the growth costs less than a node of the pod's own.
//
// First-fit keeps adding pods to a node while any option still fits them, which on a real
// catalog ends on the few huge, costly types (memory-optimised u-* instances at $50+/h) once
// the usual families are full. A node may grow only into a type that costs no more, per copy
// of what the node would hold, than its current cheapest type (with this slack): doubling
// within a family costs the same per copy and is allowed, a jump to a type priced far above
// its extra room is not, and the pod goes to another or a new node.
const growthSlack = 1.25

// copyCost is a type's price divided by how many copies of contents v fit in its room (over
// every resource v uses, pod slots included). Less than one copy makes it more than the price.
func copyCost(price float64, room, v resources.Vector) float64 {
	copies := math.Inf(1)
	for i, x := range v {
		if x > 0 {
			copies = min(copies, float64(max(room[i], 0))/float64(x))
		}
	}
	if math.IsInf(copies, 1) {
		return 0
	}
	if copies == 0 {
		return math.Inf(1)
	}
	return price / copies
}

// growsWell reports whether moving the node's cheapest type to one with this room and price
// keeps the cost per copy of contents v, the fixed per-node cost included, within growthSlack
// of the current type's.
func (n *newNode) growsWell(room resources.Vector, price float64, v resources.Vector, fixed float64) bool {
	if n.unbounded || len(n.byPrice) == 0 || price <= n.price {
		return true
	}
	return copyCost(price+fixed, room, v) <= growthSlack*copyCost(n.price+fixed, n.byPrice[0].Room, v)
}

// withPod returns the node's requests plus p's, in the solver's scratch vector.
func (s *solver) withPod(n *newNode, p *podInfo) resources.Vector {
	v := s.scratch[:len(n.used)]
	copy(v, n.used)
	v.Add(p.requests)
	return v
}

// affordable reports, cheaply, whether the cheapest option that can hold the pod keeps the
// node growing well: a necessary condition for joining, checked before the full narrowing.
func (s *solver) affordable(n *newNode, p *podInfo) bool {
	v := s.withPod(n, p)
	for i, t := range n.byPrice {
		if v.Fits(t.Room) {
			return n.growsWell(t.Room, n.byPriceVal[i], v, s.nodeCost) || n.byPriceVal[i]-n.price <= s.aloneCost(p)+s.nodeCost
		}
	}
	return false
}

// aloneCost is the price of the cheapest node the pod could have to itself (any NodePool
// whose taints it tolerates, any of its alternatives), memoised on the pod; +Inf if none.
func (s *solver) aloneCost(p *podInfo) float64 {
	if p.alone > 0 {
		return p.alone
	}
	best := math.Inf(1)
	for _, pool := range s.pools {
		if _, bad := p.untoleratedTaint(pool.NodePool.Taints); bad {
			continue
		}
		for _, t := range pool.Types {
			if t.Cheapest >= best || !p.requests.Fits(t.Room) {
				continue
			}
			if price := pool.HostPrice(t, p.effective()); price >= 0 && price < best {
				best = price
			}
		}
	}
	p.alone = best
	return best
}

// growthAllowed is affordable for the options and requirements a join would leave.
func (s *solver) growthAllowed(n *newNode, options []*nodetemplate.Option, reqs requirements.Requirements, p *podInfo) bool {
	c, ok := n.cheapestAmong(options, reqs)
	if !ok {
		return false
	}
	v := s.withPod(n, p)
	return n.growsWell(c.Option.Room, c.Offering.Price, v, s.nodeCost) || c.Offering.Price-n.price <= s.aloneCost(p)+s.nodeCost
}

// free is the room a pod can expect on the node: the most room among the options the node
// may grow into with its current contents (see growsWell). It is written into f, which has
// the node's dimensions.
func (n *newNode) free(fixed float64, f resources.Vector) resources.Vector {
	clear(f)
	if n.unbounded || len(n.byPrice) == 0 {
		if len(n.byPrice) == len(n.options) && len(n.byPrice) > 0 {
			copy(f, n.maxRoom) // every option is priced: the most room is theirs
		} else {
			for _, t := range n.byPrice {
				f.Max(t.Room)
			}
		}
		f.Sub(n.used)
		return f
	}
	// growsWell with the current type's cost per copy worked out once, not once per type:
	// this runs on every join, over every option.
	// A room within what f already holds changes nothing and is not priced. The dearest
	// options, mostly the largest, come first: once one of them may be grown into, the
	// cheaper ones mostly fit within it and cost a comparison each, not a price per copy.
	// The maximum is the same in any order.
	limit := growthSlack * copyCost(n.price+fixed, n.byPrice[0].Room, n.used)
	for i := len(n.byPrice) - 1; i >= 0; i-- {
		t := n.byPrice[i]
		if t.Room.Fits(f) {
			continue
		}
		if price := n.byPriceVal[i]; price <= n.price || copyCost(price+fixed, t.Room, n.used) <= limit {
			f.Max(t.Room)
			if n.maxRoom.Fits(f) {
				break // f is the most room of any option: the rest fit within it
			}
		}
	}
	f.Sub(n.used)
	return f
}

// cheapestAmong is nodetemplate.Cheapest(options, reqs) for options the node holds, read off the
// node's price order when reqs are the node's own: the first of options there has the lowest
// price, and only the options at that price are compared further (zone, capacity type, name),
// instead of every option's offerings. Other requirements price the options anew.
func (n *newNode) cheapestAmong(options []*nodetemplate.Option, reqs requirements.Requirements) (nodetemplate.Choice, bool) {
	if n.byPrice == nil || n.binPriced || len(reqs) != len(n.reqs) || !sameRequirements(reqs, n.reqs) {
		return nodetemplate.Cheapest(options, reqs)
	}
	in := n.pool.scratch // all false between uses
	for _, t := range options {
		in[t.Index] = true
	}
	var best nodetemplate.Choice
	found := false
	f := typeindex.OfferingFilter(n.pool.TypeIndex, reqs)
	for i, t := range n.byPrice {
		if !in[t.Index] {
			continue
		}
		if found && n.byPriceVal[i] != best.Offering.Price {
			break // the order is by price: the rest cost more
		}
		o := t.Offerings[f.CheapestOffering(&t.Type)]
		if !found || typeindex.TieLess(&t.Type, o, &best.Option.Type, best.Offering) {
			best, found = nodetemplate.Choice{Option: t, Offering: o}, true
		}
	}
	for _, t := range options {
		in[t.Index] = false
	}
	return best, found
}
