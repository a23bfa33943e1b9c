package scheduling

import (
	"slices"

	"github.com/nodeplan/nodeplan/internal/resources"
	"github.com/nodeplan/nodeplan/internal/skipset"
	"github.com/nodeplan/nodeplan/typeindex"
)

// A pod first looks for a planned node it fits at the node's current price, and only then for
// one it makes grow. First fit with growth alone leaves the room of nodes that opened for one
// pod (a pod repelling every other of its kind, say) empty while other nodes grow for the pods
// that room could have held; it is paid for all the same.

// snug is the room left in the node's cheapest option: what pods can take without raising the
// node's price. It is written into out, which has the node's dimensions.
func (n *newNode) snug(out resources.Vector) resources.Vector {
	if len(n.byPrice) == 0 {
		clear(out)
		return out
	}
	copy(out, n.byPrice[0].Room)
	for i, u := range n.used {
		out[i] = max(out[i]-u, 0)
	}
	return out
}

// addFree indexes a node that just joined the plan.
func (s *solver) addFree(n *newNode) {
	room := s.roomScratch(n)
	s.newFree.Add(n.free(s.nodeCost, room))
	s.snugFree.Add(n.snug(room))
}

// updateFree indexes a node's room anew after it changed.
func (s *solver) updateFree(n *newNode) {
	room := s.roomScratch(n)
	s.newFree.Update(n.index, n.free(s.nodeCost, room))
	s.snugFree.Update(n.index, n.snug(room))
}

// roomScratch is a vector of the node's dimensions for free and snug: the indexes copy what
// they are given.
func (s *solver) roomScratch(n *newNode) resources.Vector {
	if cap(s.room) < len(n.used) {
		s.room = make(resources.Vector, len(n.used))
	}
	return s.room[:len(n.used)]
}

// placeSnug puts p on the first planned node with room for it at its price that p can join,
// skipping the nodes skip rules out, when joining keeps that node's price; it reports whether
// it did. The first node p can join decides: when p would make it pricier (p asks for another
// capacity type, zone or architecture than the node's cheapest offering), first fit with
// growth takes over, so a pod scans no more nodes here than first fit would. Nodes p cannot
// join at all are marked (refused) so that first fit does not try them again.
func (s *solver) placeSnug(p *podInfo, skip *skipset.Set) bool {
	s.attempt++
	for len(s.refused) < len(s.nodes) {
		s.refused = append(s.refused, 0)
	}
	placed := false
	try := func(i int) bool {
		n := s.nodes[i]
		if p.trace == nil && s.topology.Refuses(&p.topo, n.pool.Index, n.reqs) {
			s.refused[i] = s.attempt
			return false
		}
		c, r := s.tryNewNode(n, p, false)
		if r.failed() {
			s.refused[i] = s.attempt
			return false
		}
		if !keepsPrice(n, c) {
			if p.trace != nil {
				p.trace.note("new node %s of nodepool %s has room at its price but the pod would make it pricier: first fit decides", n.name, n.pool.NodePool.Name)
			}
			return true // decided: not here
		}
		placed = true
		s.commitNewNode(n, p, c)
		if p.trace != nil {
			p.trace.note("joined new node %s of nodepool %s at its price, now %d pods; %d instance-type option(s) left", n.name, n.pool.NodePool.Name, len(n.pods), s.offeredOptions(n))
		}
		return true
	}
	if skip != nil {
		for i := skip.Find(0); i < len(s.nodes); i = skip.Find(i + 1) {
			if p.requests.Fits(s.snugFree.Free(i)) && try(i) {
				break
			}
		}
		return placed
	}
	s.snugFree.Each(p.requests, try)
	return placed
}

// refusedNow reports whether placeSnug found, in this attempt, that p cannot join node i.
func (s *solver) refusedNow(i int) bool {
	return i < len(s.refused) && s.refused[i] == s.attempt
}

// keepsPrice reports whether node n, narrowed to candidate c, still launches at its price: one
// of its cheapest options is left with an offering at that price. Only the options at the
// node's price are looked at, not every option's offerings.
func keepsPrice(n *newNode, c candidate) bool {
	sameReqs := len(c.reqs) == len(n.reqs) && sameRequirements(c.reqs, n.reqs)
	for i, t := range n.byPrice {
		if n.byPriceVal[i] > n.price {
			break
		}
		if !slices.Contains(c.options, t) {
			continue
		}
		if sameReqs {
			return true
		}
		if price := typeindex.CheapestPrice(&t.Type, c.reqs); price >= 0 && price <= n.price {
			return true
		}
	}
	return false
}
