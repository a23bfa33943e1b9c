package bound

import (
	"math"
	"slices"
	"sort"

	"github.com/nodeplan/nodeplan/internal/resources"
)

// The pattern bound is the configuration LP of bin packing (Gilmore–Gomory): a column is one
// node, a kind with a pattern of pods that fits its room, and the LP buys fractions of
// columns so that every pod is covered. It is much closer to a real packing than the fluid
// relaxations, which let a node's cpu and memory go to different pods: pods that may share
// no node with pods of another shape pay for whole patterns.
//
// There are far too many patterns to list, so a few are generated (column generation; the
// pricing tries a greedy fill, then the fractional knapsack's solution rounded down, then an
// exact search on nodes that hold few pods), and the bound is read off the last LP's dual
// prices with Farley's rule: the duals u, scaled down until no pattern of any node kind is
// worth more than its price, are a feasible dual solution of the whole configuration LP, so
// Σ n_i u_i scaled is below its optimum, and so below the cost of every plan. What a kind's
// best pattern is worth is found exactly on nodes that hold few pods, and bounded from above
// elsewhere by the fractional multi-resource knapsack (with each item's count limit), solved
// as a small LP; an upper bound only makes the scaling more cautious. So the result is a true
// lower bound however few patterns were generated; generating more only tightens it.

// Limits on the pattern bound's work. Past maxPatternItems groups of pods it is skipped
// (the other relaxations still bound the plan). The generation stops after
// minPatternRounds rounds, or on small inputs (kinds × items) after as many more as
// patternWork allows, up to maxPatternRounds: stopping early leaves the bound true, only
// looser, and the number of rounds depends on the input alone.
const (
	maxPatternItems  = 32
	minPatternRounds = 8
	maxPatternRounds = 40
	patternWork      = 1 << 12
	patternsPerRound = 16
)

// patternRounds is how many rounds of column generation the pattern bound runs.
func patternRounds(kinds, items int) int {
	return min(max(patternWork/max(kinds*items, 1), minPatternRounds), maxPatternRounds)
}

// patternItem is the pods of one class with one shape.
type patternItem struct {
	requests resources.Vector
	count    int
}

// nodeKind is a kind as the pattern bound sees it: its room, its price and the items it may
// hold.
type nodeKind struct {
	room    resources.Vector
	price   float64
	allowed []int // the items the kind may hold
	typeKey int   // kinds of one type and one allowed set share their knapsack bound
}

// pattern is a column: so many pods of each item on one node of a kind.
type pattern struct {
	kind   int
	counts []int
}

// Patterns is the configuration LP's lower bound on the cost of the pods' nodes. It prices a
// node at its kind's Price, so it is 0 when reservations are in play, and also past
// maxPatternItems groups of pods, or when some pod fits no kind (the plan leaves it out).
func Patterns(in Input) float64 {
	return patterns(in, 0)
}

// packingMargin is how far below another bound a packing must cost for patterns to skip the
// column generation: far more than the LPs' rounding, which the pattern bound's own slack
// already covers.
const packingMargin = 1e-6

// patterns is the pattern bound, or 0 when a packing of the pods (see packsBelow) costs
// less than beat: the pattern bound is then below beat too, and Lower, which has beat from
// the other bounds, needs no more.
func patterns(in Input, beat float64) float64 {
	if in.Reserved != nil || len(in.Pods) == 0 || len(in.Pods) > maxPatternItems {
		return 0
	}
	items := make([]*patternItem, len(in.Pods))
	for i, p := range in.Pods {
		items[i] = &patternItem{requests: p.Requests, count: p.Count}
	}
	// Before the kinds are sorted out: when the check applies, that work is not needed.
	if beat > 0 && packsBelow(in, items, beat/(1+packingMargin)) {
		return 0
	}
	kinds := nodeKinds(in)
	for i := range items {
		covered := false
		for _, k := range kinds {
			for _, a := range k.allowed {
				covered = covered || a == i
			}
		}
		if !covered {
			return 0 // some pod fits no kind: the plan leaves it unschedulable
		}
	}
	patterns := initialPatterns(items, kinds)
	rounds := patternRounds(len(kinds), len(items))
	var duals []float64
	// The master LP's columns and prices grow with the patterns; its buffers serve every round.
	var cols [][]float64
	var prices []float64
	var lp LP
	for round := 0; ; round++ {
		for _, p := range patterns[len(cols):] {
			col := make([]float64, len(items))
			for i, c := range p.counts {
				col[i] = float64(c) / float64(items[i].count)
			}
			cols = append(cols, col)
			prices = append(prices, kinds[p.kind].price)
		}
		_, _, y, ok := lp.cover(prices, len(cols), len(items), 0, func(j, r int) float64 { return cols[j][r] })
		if !ok {
			return 0
		}
		duals = make([]float64, len(items)) // per pod
		for i, v := range y {
			duals[i] = max(v, 0) / float64(items[i].count)
		}
		if round == rounds {
			break
		}
		added := priceNewPatterns(items, kinds, duals, patterns)
		if len(added) == 0 {
			break
		}
		patterns = append(patterns, added...)
	}
	return farleyBound(items, kinds, duals)
}

// nodeKinds lists the input's kinds with the items each may hold (the class may use the kind,
// the requests fit its room), leaving out kinds that hold none and kinds another beats.
func nodeKinds(in Input) []nodeKind {
	var kinds []nodeKind
	var allowed []int
	runStart := 0 // the first of kinds that belong to the run of the current type and room
	for j, k := range in.Kinds {
		if j == 0 || k.Type != in.Kinds[j-1].Type || !slices.Equal(k.Room, in.Kinds[j-1].Room) {
			runStart = len(kinds)
		}
		allowed = allowed[:0]
		for i, p := range in.Pods {
			if p.Requests.Fits(k.Room) && k.ClassPrices[p.Class] >= 0 {
				allowed = append(allowed, i)
			}
		}
		if len(allowed) == 0 {
			continue
		}
		// Kinds of one type and room that allow the same pods share their list and their
		// knapsack bounds (the other capacity types of the type, mostly).
		kind := nodeKind{room: k.Room, price: k.Price, typeKey: len(kinds)}
		for _, other := range kinds[runStart:] {
			if slices.Equal(other.allowed, allowed) {
				kind.allowed, kind.typeKey = other.allowed, other.typeKey
				break
			}
		}
		if kind.allowed == nil {
			kind.allowed = slices.Clone(allowed)
		}
		kinds = append(kinds, kind)
	}
	return undominatedKinds(kinds)
}

// undominatedKinds drops the kinds another kind beats: the same items allowed, as much room in
// every resource and a price no higher. Whatever pattern a dropped kind holds, the other
// holds for no more, so the configuration LP and Farley's scaling lose nothing.
func undominatedKinds(kinds []nodeKind) []nodeKind {
	out := kinds[:0:0]
	for a, ka := range kinds {
		dominated := false
		for b, kb := range kinds {
			if a == b || kb.price > ka.price || !ka.room.Fits(kb.room) || !slices.Equal(ka.allowed, kb.allowed) {
				continue
			}
			// Of two equal kinds the first stays.
			if kb.price < ka.price || !kb.room.Fits(ka.room) || b < a {
				dominated = true
				break
			}
		}
		if !dominated {
			out = append(out, ka)
		}
	}
	return out
}

// initialPatterns holds, per item, the pods of that item alone on the two kinds that carry
// them most cheaply per pod, so that the first LP is feasible.
func initialPatterns(items []*patternItem, kinds []nodeKind) []pattern {
	var out []pattern
	for i, it := range items {
		type option struct {
			kind, fit int
			perPod    float64
		}
		var options []option
		for k, kind := range kinds {
			if !slices.Contains(kind.allowed, i) {
				continue
			}
			fit := min(fitCount(it.requests, kind.room, nil), it.count)
			if fit > 0 {
				options = append(options, option{k, fit, kind.price / float64(fit)})
			}
		}
		sort.SliceStable(options, func(a, b int) bool { return options[a].perPod < options[b].perPod })
		for _, o := range options[:min(2, len(options))] {
			counts := make([]int, len(items))
			counts[i] = o.fit
			out = append(out, pattern{kind: o.kind, counts: counts})
		}
	}
	return out
}

// fitCount is how many pods of these requests fit in room beside used (nil: nothing).
func fitCount(requests, room, used resources.Vector) int {
	n := math.MaxInt
	for d, r := range requests {
		if r <= 0 {
			continue
		}
		left := room[d]
		if used != nil {
			left -= used[d]
		}
		n = min(n, int(max(left, 0)/r))
	}
	if n == math.MaxInt {
		return 0 // a pod requesting nothing is never alone in a pattern
	}
	return n
}

// Pricing tiers, cheapest first: a round uses the first tier that finds a pattern worth more
// than its price.
const (
	priceGreedy     = iota // items by value per share of the room, each as many as fit
	priceFractional        // the fractional knapsack's solution rounded down, then greedy
	priceExact             // branch and bound, on nodes that hold few pods
)

// priceNewPatterns looks for patterns worth more than their kind's price at these duals, with
// the cheapest tier that finds any, and returns the best few new ones.
func priceNewPatterns(items []*patternItem, kinds []nodeKind, duals []float64, have []pattern) []pattern {
	seen := make(map[string]bool, len(have))
	for _, p := range have {
		seen[patternKey(p)] = true
	}
	for tier := priceGreedy; tier <= priceExact; tier++ {
		if out := pricePatterns(tier, items, kinds, duals, seen); len(out) > 0 {
			return out
		}
	}
	return nil
}

func pricePatterns(tier int, items []*patternItem, kinds []nodeKind, duals []float64, seen map[string]bool) []pattern {
	type found struct {
		p     pattern
		ratio float64
	}
	var best []found
	// consider keeps a pattern worth more than its price; counts is a scratch buffer, copied
	// when kept.
	consider := func(k int, counts []int, value float64) {
		if ratio := value / kinds[k].price; ratio > 1+1e-9 {
			p := pattern{kind: k, counts: counts}
			if key := patternKey(p); !seen[key] {
				seen[key] = true
				p.counts = slices.Clone(counts)
				best = append(best, found{p, ratio})
			}
		}
	}
	guides := map[int][]float64{}
	order := make([]int, 0, len(items))
	used := make(resources.Vector, len(items[0].requests))
	counts := make([]int, len(items))
	perShare := make([]float64, len(items)) // an item's dual per share of the room
	var scratch knapsackScratch
	for k, kind := range kinds {
		if tier == priceExact {
			if value, counts, exact := exactKnapsack(items, kind, duals, &scratch); exact {
				consider(k, counts, value)
			}
			continue
		}
		clear(used)
		clear(counts)
		value := 0.0
		if tier == priceFractional {
			fractional, known := guides[kind.typeKey]
			if !known {
				_, fractional = fractionalKnapsack(items, kind, duals, &scratch)
				guides[kind.typeKey] = fractional
			}
			for i, a := range fractional {
				c := min(int(a), items[i].count)
				if c <= 0 {
					continue
				}
				for d, r := range items[i].requests {
					used[d] += r * int64(c)
				}
				if !used.Fits(kind.room) {
					for d, r := range items[i].requests {
						used[d] -= r * int64(c)
					}
					continue
				}
				counts[i] = c
				value += duals[i] * float64(c)
			}
		}
		order = order[:0]
		for _, i := range kind.allowed {
			if duals[i] > 0 {
				order = append(order, i)
			}
		}
		for _, i := range order {
			share := 0.0
			for d, r := range items[i].requests {
				if r > 0 && kind.room[d] > 0 {
					share = max(share, float64(r)/float64(kind.room[d]))
				}
			}
			perShare[i] = duals[i] / share
		}
		slices.SortStableFunc(order, func(a, b int) int { return descending(perShare[a], perShare[b]) })
		for _, i := range order {
			c := min(fitCount(items[i].requests, kind.room, used), items[i].count-counts[i])
			if c <= 0 {
				continue
			}
			counts[i] += c
			for d, r := range items[i].requests {
				used[d] += r * int64(c)
			}
			value += duals[i] * float64(c)
		}
		consider(k, counts, value)
	}
	slices.SortStableFunc(best, func(a, b found) int { return descending(a.ratio, b.ratio) })
	out := make([]pattern, 0, min(len(best), patternsPerRound))
	for _, f := range best[:min(len(best), patternsPerRound)] {
		out = append(out, f.p)
	}
	return out
}

// fractionalKnapsack bounds from above what one node of the kind can hold at these duals:
// max Σ u_i a_i subject to Σ a_i r_i ≤ room, a ≥ 0, solved through its dual,
// min Σ_d room_d w_d subject to Σ_d r_id w_d ≥ u_i, w ≥ 0 (any feasible w bounds it, and
// the optimum is equal). The dual is solved over shares of the room (w_d room_d) and duals
// scaled to at most 1, which keeps the LP's numbers near 1 whatever the units. +Inf when
// some valued item needs none of the room's resources.
func fractionalKnapsack(items []*patternItem, kind nodeKind, duals []float64, sc *knapsackScratch) (float64, []float64) {
	sc.resourcePrices = sc.resourcePrices[:0]
	top, rows, extra := valuedItems(items, kind, duals, sc.rows[:0])
	if top <= 0 {
		return 0, nil
	}
	dims := sc.dims[:0]
	for d, r := range kind.room {
		if r > 0 {
			dims = append(dims, d)
		}
	}
	sc.rows, sc.dims = rows, dims
	// Columns: one per resource (its share of the room, price 1), then one per item for its
	// count limit (no more of an item than fit alone or exist, price that limit). Column k
	// is cells[k*m:(k+1)*m].
	m, n := len(rows), len(dims)+len(rows)
	cells := grow(&sc.cells, n*m)
	clear(cells)
	prices := grow(&sc.prices, n)
	for k, d := range dims {
		prices[k] = 1
		for r, i := range rows {
			cells[k*m+r] = float64(items[i].requests[d]) / float64(kind.room[d]) / (duals[i] / top)
		}
	}
	for r, i := range rows {
		k := len(dims) + r
		cells[k*m+r] = 1 / (duals[i] / top)
		prices[k] = float64(min(fitCount(items[i].requests, kind.room, nil), items[i].count))
	}
	cost, w, y, ok := sc.lp.cover(prices, n, m, 0, func(j, r int) float64 { return cells[j*m+r] })
	if !ok {
		return math.Inf(1), nil
	}
	// Check the dual solution's feasibility rather than trust the solver: scale w up until
	// every row is met, which keeps it a true upper bound.
	scale := 1.0
	for r := range rows {
		lhs := 0.0
		for k := 0; k < n; k++ {
			lhs += cells[k*m+r] * w[k]
		}
		if lhs <= 0 {
			return math.Inf(1), nil
		}
		scale = max(scale, 1/lhs)
	}
	// The resource columns' values are prices per share of the room: per unit, scaled back.
	sc.resourcePrices = grow(&sc.resourcePrices, len(kind.room))
	clear(sc.resourcePrices)
	for k, d := range dims {
		sc.resourcePrices[d] = w[k] * scale * top / float64(kind.room[d])
	}
	// The covering LP's row duals are the packing LP's solution: a_i = y_i / (u_i / top).
	fractional := make([]float64, len(items))
	for r, i := range rows {
		fractional[i] = max(y[r], 0) / (duals[i] / top)
	}
	return cost*scale*top + extra, fractional
}

// valuedItems splits the items the kind allows for the knapsacks: rows, appended to buf, are
// those that go into the LP; items worth next to nothing would make the LP's entries huge, so
// they are left out of it and added (extra) at the most the room could hold of each alone,
// which keeps the bound above. top is the highest dual, 0 when no item is valued.
func valuedItems(items []*patternItem, kind nodeKind, duals []float64, buf []int) (top float64, rows []int, extra float64) {
	for _, i := range kind.allowed {
		top = max(top, duals[i])
	}
	rows = buf
	if top <= 0 {
		return 0, rows, 0
	}
	for _, i := range kind.allowed {
		switch {
		case duals[i] > top*1e-6:
			rows = append(rows, i)
		case duals[i] > 0:
			extra += duals[i] * float64(fitCount(items[i].requests, kind.room, nil))
		}
	}
	return top, rows, extra
}

// knapsackScratch holds the knapsacks' buffers between calls; the counts exactKnapsack
// returns are its own, valid until the next call.
type knapsackScratch struct {
	open, counts, best []int
	density            []float64
	used               []int64
	// rows, dims, cells, prices and lp serve fractionalKnapsack.
	rows, dims    []int
	cells, prices []float64
	lp            LP
	// resourcePrices is the last LP's price per unit of each resource (see priceCeiling).
	resourcePrices []float64
}

// descending orders a before b when a is larger, as a comparison for sorting.
func descending(a, b float64) int {
	switch {
	case a > b:
		return -1
	case b > a:
		return 1
	}
	return 0
}

// maxExactPods is the most pods a node may hold for exactKnapsack to search its patterns,
// and maxExactSteps the most search steps it may take; past either the fractional bound
// stands in (true, only looser).
const (
	maxExactPods  = 16
	maxExactSteps = 20000
)

// exactKnapsack is the most one node of the kind can hold at these duals, and a pattern
// worth it, found by a branch-and-bound search over the patterns, when the kind holds few
// pods; false when the search does not apply or runs out of steps. On small nodes the
// fractional bound is loose (half a pod is not a pod) and the search is cheap. A branch is cut
// when even filling what is left of one resource at the best value per unit of it among the
// items still open cannot beat the best pattern found.
func exactKnapsack(items []*patternItem, kind nodeKind, duals []float64, sc *knapsackScratch) (float64, []int, bool) {
	slots := kind.room[resources.Pods]
	if slots <= 0 {
		return 0, nil, false
	}
	open := sc.open[:0]
	defer func() { sc.open = open }()
	for _, i := range kind.allowed {
		r := items[i].requests[resources.Pods]
		if r <= 0 || int(slots/r) > maxExactPods {
			return 0, nil, false
		}
		if duals[i] > 0 {
			open = append(open, i)
		}
	}
	dims := len(kind.room)
	// density[k*dims+d] is the best value per unit of resource d among open[k:].
	density := grow(&sc.density, (len(open)+1)*dims)
	clear(density[len(open)*dims:])
	for k := len(open) - 1; k >= 0; k-- {
		i := open[k]
		for d := 0; d < dims; d++ {
			v := math.Inf(1)
			if r := items[i].requests[d]; r > 0 {
				v = duals[i] / float64(r)
			}
			density[k*dims+d] = max(density[(k+1)*dims+d], v)
		}
	}
	used := resources.Vector(grow(&sc.used, dims))
	clear(used)
	counts := grow(&sc.counts, len(items))
	clear(counts)
	bestCounts := grow(&sc.best, len(items))
	clear(bestCounts)
	best := 0.0
	steps := 0
	var walk func(k int, value float64) bool
	walk = func(k int, value float64) bool {
		if steps++; steps > maxExactSteps {
			return false
		}
		if value > best {
			best = value
			copy(bestCounts, counts)
		}
		for ; k < len(open); k++ {
			limit := math.Inf(1)
			for d := 0; d < dims; d++ {
				limit = min(limit, float64(kind.room[d]-used[d])*density[k*dims+d])
			}
			if value+limit <= best {
				return true
			}
			i := open[k]
			if counts[i] == items[i].count || !resources.FitsSum(used, items[i].requests, kind.room) {
				continue
			}
			used.Add(items[i].requests)
			counts[i]++
			done := walk(k, value+duals[i]) // the same item again, or a later one
			counts[i]--
			used.Sub(items[i].requests)
			if !done {
				return false
			}
		}
		return true
	}
	if !walk(0, 0) {
		return 0, nil, false
	}
	return best, bestCounts, true
}

func patternKey(p pattern) string {
	b := make([]byte, 0, 4+4*len(p.counts))
	b = append(b, byte(p.kind), byte(p.kind>>8), byte(p.kind>>16), '|')
	for _, c := range p.counts {
		b = append(b, byte(c), byte(c>>8), byte(c>>16), ',')
	}
	return string(b)
}
