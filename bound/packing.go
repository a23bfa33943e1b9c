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
// target: the pods spread evenly over n nodes of one kind (see spreadFits), for the kinds
// and node counts whose fluid cost is below target, cheapest first. Every node of a packing
// is a pattern, so its cost is at least the configuration LP's optimum, and so at least the
// pattern bound (Farley's rule gives a feasible dual solution, below every primal one).
// The work is bounded; false says only that no such packing was found.
func packsBelow(items []*patternItem, kinds []nodeKind, target float64) bool {
	demand := make(resources.Vector, len(items[0].requests))
	for _, it := range items {
		addTimes(demand, it.requests, it.count)
	}
	type candidate struct {
		kind, nodes int // the fewest nodes of the kind whose room covers the demand
		cost        float64
	}
	var candidates []candidate
	for k, kind := range kinds {
		if len(kind.allowed) != len(items) {
			continue // the kind may not hold some pod
		}
		nodes := 1
		for d, x := range demand {
			if x > 0 {
				if kind.room[d] <= 0 {
					nodes = math.MaxInt
					break
				}
				nodes = max(nodes, int((x+kind.room[d]-1)/kind.room[d]))
			}
		}
		if nodes < math.MaxInt && float64(nodes)*kind.price < target {
			candidates = append(candidates, candidate{k, nodes, float64(nodes) * kind.price})
		}
	}
	slices.SortStableFunc(candidates, func(a, b candidate) int { return cmp.Compare(a.cost, b.cost) })
	var s spreader
	work := 0
	for _, c := range candidates {
		kind := kinds[c.kind]
		for n := c.nodes; n < c.nodes+spreadTries && float64(n)*kind.price < target; n++ {
			if work += n; work > spreadWork {
				return false
			}
			if s.fits(items, kind.room, n) {
				return true
			}
		}
	}
	return false
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
