package bound

import (
	"cmp"
	"math"
	"slices"

	"github.com/nodeplan/nodeplan/internal/resources"
)

// Limits on packsBelow's work: the node counts it tries per kind, above the fewest the
// demand needs, and the node fills it checks in all.
const (
	spreadTries = 4
	spreadWork  = 1 << 20
)

// packsBelow reports whether some real packing of every pod onto new nodes costs less than
// target: the pods spread evenly over n nodes of one kind (see spreader.fits) on which every
// pod may run, for the kinds and node counts whose fluid cost is below target, cheapest
// first. Every node of a packing is a pattern, so its cost is at least the configuration LP's
// optimum, and so at least the pattern bound (Farley's rule gives a feasible dual solution,
// below every primal one); a kind another dominates only costs more than its dominator.
// The work is bounded; false says only that no such packing was found.
func packsBelow(in Input, items []*patternItem, target float64) bool {
	demand := make(resources.Vector, len(items[0].requests))
	for _, it := range items {
		addTimes(demand, it.requests, it.count)
	}
	type candidate struct {
		kind, nodes int // the fewest nodes of the kind whose room covers the demand
		cost        float64
	}
	var candidates []candidate
	for k, kind := range in.Kinds {
		if !holdsEvery(kind, in.Pods) {
			continue
		}
		nodes := 1
		for d, x := range demand {
			if x > 0 {
				if kind.Room[d] <= 0 {
					nodes = math.MaxInt
					break
				}
				nodes = max(nodes, int((x+kind.Room[d]-1)/kind.Room[d]))
			}
		}
		if nodes < math.MaxInt && float64(nodes)*kind.Price < target {
			candidates = append(candidates, candidate{k, nodes, float64(nodes) * kind.Price})
		}
	}
	slices.SortStableFunc(candidates, func(a, b candidate) int { return cmp.Compare(a.cost, b.cost) })
	var s spreader
	work := 0
	for _, c := range candidates {
		kind := in.Kinds[c.kind]
		for n := c.nodes; n < c.nodes+spreadTries && float64(n)*kind.Price < target; n++ {
			if work += n; work > spreadWork {
				return false
			}
			if s.fits(items, kind.Room, n) {
				return true
			}
		}
	}
	return false
}

// holdsEvery reports whether every pod may run on the kind: its class may use the kind and its
// requests fit the room.
func holdsEvery(kind Kind, pods []Pods) bool {
	for _, p := range pods {
		if kind.ClassPrices[p.Class] < 0 || !p.Requests.Fits(kind.Room) {
			return false
		}
	}
	return true
}

// spreader checks even spreads of the pods over n nodes; its buffers serve every check.
type spreader struct {
	delta []int64 // per node and resource, what the node holds more than the one before
	used  []int64
}

// fits reports whether the pods spread evenly over n nodes of this room fit: each node holds
// count/n pods of every item, rounded down, and the remainders go one pod per node around
// the nodes, each item starting where the last one stopped, so that no node gets more than
// its share of them.
func (s *spreader) fits(items []*patternItem, room resources.Vector, n int) bool {
	dims := len(room)
	delta := grow(&s.delta, (n+1)*dims)
	clear(delta)
	used := resources.Vector(grow(&s.used, dims))
	clear(used)
	start := 0
	for _, it := range items {
		each, extra := it.count/n, it.count%n
		addTimes(used, it.requests, each)
		// The extra pods go on nodes start, start+1, … (mod n).
		end := start + extra
		for d, r := range it.requests {
			delta[start*dims+d] += r
			if end <= n {
				delta[end*dims+d] -= r
			} else {
				delta[n*dims+d] -= r
				delta[d] += r
				delta[(end-n)*dims+d] -= r
			}
		}
		start = end % n
	}
	for node := 0; node < n; node++ {
		for d := range dims {
			used[d] += delta[node*dims+d]
			if used[d] > room[d] {
				return false
			}
		}
	}
	return true
}
