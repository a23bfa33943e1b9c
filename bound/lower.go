package bound

import (
	"cmp"
	"math"
	"slices"

	"github.com/nodeplan/nodeplan/internal/resources"
)

// Lower is a cost no plan for the pods on new nodes can beat: the largest of the bounds
// Fluid, Alone and Patterns. It depends on the input alone. The pattern bound, by far the
// dearest, is worked out last, and not at all when a packing of the pods proves it below
// the others: the result is the same.
func Lower(in Input) float64 {
	shapes := countShapes(in.Pods, -1)
	others := max(fluid(in, shapes), alone(in, shapes))
	return max(others, patterns(in, others))
}

// Fluid is the largest of the fluid relaxations. The first covers the total requests with
// fractional nodes of every kind. The second is taken per class: any plan must at least pay
// for nodes holding that class, on kinds the class may use, at the prices it may pay (so pods
// pinned to one offering are priced at that offering, not at the catalog's cheapest). In
// both a kind offers only the room its pods can use (see usableRooms), and pods that may not
// share a node need a node each. Reserved room is taken away from the demand.
func Fluid(in Input) float64 {
	return fluid(in, countShapes(in.Pods, -1))
}

// fluid is Fluid given the shapes of all pods.
func fluid(in Input, shapes shapeCounts) float64 {
	if len(in.Pods) == 0 {
		return 0
	}
	n := len(in.Pods[0].Requests)
	demand := make(resources.Vector, n)
	for _, p := range in.Pods {
		addTimes(demand, p.Requests, p.Count)
	}
	rooms, prices := typeColumns(in.Kinds, func(k int) float64 { return in.Kinds[k].Price })
	bound := coverBound(rooms, prices, shapes, lessReserved(demand, in.Reserved), exclusiveSets(in, -1)...)
	for c := range in.Classes {
		classDemand := make(resources.Vector, n)
		var smallest resources.Vector
		holds := 0
		for _, p := range in.Pods {
			if p.Class != c {
				continue
			}
			addTimes(classDemand, p.Requests, p.Count)
			holds += p.Count
			if smallest == nil {
				smallest = p.Requests.Clone()
			}
			for i, r := range p.Requests {
				smallest[i] = min(smallest[i], r)
			}
		}
		if holds == 0 || (holds == podCount(in) && pricedAsAll(in.Kinds, c, smallest)) {
			continue // no pods, or the class is the whole demand, bounded above already
		}
		// The types the class may use, with room for at least the smallest requests of the
		// class (not the largest: the small pods of a class may use small types).
		rooms, prices := typeColumns(in.Kinds, func(k int) float64 {
			if !smallest.Fits(in.Kinds[k].Room) {
				return -1
			}
			return in.Kinds[k].ClassPrices[c]
		})
		bound = max(bound, coverBound(rooms, prices, countShapes(in.Pods, c), lessReserved(classDemand, in.Reserved), exclusiveSets(in, c)...))
	}
	return bound
}

// addTimes adds count × v to sum.
func addTimes(sum, v resources.Vector, count int) {
	for i, x := range v {
		sum[i] += x * int64(count)
	}
}

func podCount(in Input) int {
	n := 0
	for _, p := range in.Pods {
		n += p.Count
	}
	return n
}

// pricedAsAll reports whether class c may use every kind its smallest requests fit at the
// kind's own price: its cover is then the cover of all pods.
func pricedAsAll(kinds []Kind, c int, smallest resources.Vector) bool {
	for _, k := range kinds {
		if smallest.Fits(k.Room) && k.ClassPrices[c] != k.Price {
			return false
		}
	}
	return true
}

// typeColumns is one column per instance type for the fluid LPs: per run of consecutive kinds
// of one type and room, that room at the lowest non-negative price(k) among them. Types none
// of whose kinds has a price are left out.
func typeColumns(kinds []Kind, price func(k int) float64) ([]resources.Vector, []float64) {
	rooms := make([]resources.Vector, 0, len(kinds))
	prices := make([]float64, 0, len(kinds))
	runHasColumn := false
	for k, kind := range kinds {
		sameRun := k > 0 && kind.Type == kinds[k-1].Type && slices.Equal(kind.Room, kinds[k-1].Room)
		if !sameRun {
			runHasColumn = false
		}
		p := price(k)
		if p < 0 {
			continue
		}
		if runHasColumn {
			prices[len(prices)-1] = min(prices[len(prices)-1], p)
			continue
		}
		rooms = append(rooms, kind.Room)
		prices = append(prices, p)
		runHasColumn = true
	}
	return rooms, prices
}

// lessReserved is demand less what reservations can hold, never below zero.
func lessReserved(demand, reserved resources.Vector) resources.Vector {
	if reserved == nil {
		return demand
	}
	out := demand.Clone()
	for i := range out {
		out[i] = max(out[i]-reserved[i], 0)
	}
	return out
}

// coverBound is the fluid relaxation for pods on these rooms: fractional nodes whose usable
// rooms cover the pods' demand, and also, for pods too big for every type below a size
// threshold, cover that part of the demand with the types above it (such pods can go nowhere
// else, so any packing meets these rows too). 0 when it has no solution.
func coverBound(types []resources.Vector, prices []float64, pods shapeCounts, demand resources.Vector, exclusive ...exclusiveSet) float64 {
	if len(types) == 0 {
		return 0
	}
	shapes := pods.shapes
	rooms := usableRooms(types, shapes, len(demand))
	var coefs [][]float64
	var rhs []float64
	addRow := func(d int, skip []bool, need float64) {
		if need <= 0 {
			return
		}
		row := make([]float64, len(types))
		for j, room := range rooms {
			if skip == nil || !skip[j] {
				row[j] = float64(max(room[d], 0))
			}
		}
		coefs = append(coefs, row)
		rhs = append(rhs, need)
	}
	for d, x := range demand {
		addRow(d, nil, float64(x))
	}
	// Pods that may not share a node need one node each, of a type that fits them: as many
	// nodes as the set has pods, and, for the pods too big for every type below a size,
	// as many nodes of the types above it.
	addCount := func(set exclusiveSet, skip []bool, need int) {
		if need <= 0 {
			return
		}
		row := make([]float64, len(types))
		for j, room := range types {
			if (skip == nil || !skip[j]) && set.smallest.Fits(room) {
				row[j] = 1
			}
		}
		coefs = append(coefs, row)
		rhs = append(rhs, float64(need))
	}
	for _, set := range exclusive {
		addCount(set, nil, set.total)
		if set.total > maxThresholdShapes*4 {
			continue
		}
		for _, e := range []int{resources.CPU, resources.Memory} {
			for _, v := range thresholds(set.requests, e) {
				small := make([]bool, len(types))
				for j, room := range types {
					small[j] = room[e] < v
				}
				need := 0
				for k, r := range set.requests {
					if !fitsAny(r, types, small) {
						need += set.counts[k]
					}
				}
				if need < set.total {
					addCount(set, small, need)
				}
			}
		}
	}
	if shapes != nil && len(shapes) <= maxThresholdShapes {
		for _, e := range []int{resources.CPU, resources.Memory} {
			for _, v := range thresholds(shapes, e) {
				small := make([]bool, len(types)) // types with less than v of e
				any := false
				for j, room := range types {
					if room[e] < v {
						small[j], any = true, true
					}
				}
				if !any {
					continue
				}
				need := make([]float64, len(demand))
				for k, sh := range shapes {
					if fitsAny(sh, types, small) {
						continue
					}
					for d, x := range sh {
						need[d] += float64(x * pods.counts[k])
					}
				}
				for _, d := range []int{resources.CPU, resources.Memory} {
					addRow(d, small, need[d])
				}
			}
		}
	}
	if len(coefs) == 0 {
		return 0 // nothing left to cover
	}
	cols := make([][]float64, len(types))
	for j := range types {
		col := make([]float64, len(coefs))
		for r, row := range coefs {
			col[r] = row[j] / rhs[r]
		}
		cols[j] = col
	}
	prices, cols = undominated(prices, cols)
	cost, _, _, ok := CoverLP(prices, cols, len(coefs))
	if !ok {
		return 0
	}
	return cost
}

// undominated drops the columns another column dominates: no dearer and covering at least as
// much of every row. Swapping a dominated column's amount onto its dominator keeps every row
// covered at no more cost, so the LP's optimum is unchanged; but catalogs hold many such
// types (other families of one size at a higher price), and the simplex's work grows with the
// columns it prices (the synthetic catalog: 390 types, 39 undominated). Columns are taken
// cheapest first and compared only with those kept: a dominated dominator's own dominator was
// kept before it and dominates the column too.
func undominated(prices []float64, cols [][]float64) ([]float64, [][]float64) {
	order := make([]int, len(cols))
	for j := range order {
		order[j] = j
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(prices[a], prices[b]) })
	var keptPrices []float64
	var kept [][]float64
	for _, j := range order {
		if !slices.ContainsFunc(kept, func(k []float64) bool { return covers(k, cols[j]) }) {
			keptPrices = append(keptPrices, prices[j])
			kept = append(kept, cols[j])
		}
	}
	return keptPrices, kept
}

// covers reports whether column a is at least b in every row.
func covers(a, b []float64) bool {
	for r, x := range b {
		if a[r] < x {
			return false
		}
	}
	return true
}

// exclusiveSet is pods no two of which may share a node: their distinct requests with how
// many pods have each, how many in all, and the element-wise minimum of their requests, which
// a type must hold to host any of them.
type exclusiveSet struct {
	requests []resources.Vector
	counts   []int
	total    int
	smallest resources.Vector
}

// exclusiveSets are the input's exclusive sets, restricted to the pods of class c (-1: all
// pods), when they keep at least two pods.
func exclusiveSets(in Input, c int) []exclusiveSet {
	var out []exclusiveSet
	for _, e := range in.Exclusive {
		var set exclusiveSet
		for _, m := range e.Members {
			p := in.Pods[m.Pods]
			if c >= 0 && p.Class != c {
				continue
			}
			if set.smallest == nil {
				set.smallest = p.Requests.Clone()
			}
			for i, r := range p.Requests {
				set.smallest[i] = min(set.smallest[i], r)
			}
			set.requests = append(set.requests, p.Requests)
			set.counts = append(set.counts, m.Count)
			set.total += m.Count
		}
		if set.total > 1 {
			out = append(out, set)
		}
	}
	return out
}

// maxThresholdShapes and maxThresholds bound the work of coverBound's threshold rows.
const (
	maxThresholdShapes = 128
	maxThresholds      = 12
)

// thresholds are up to maxThresholds of the shapes' distinct values in dimension e, spread
// over their range.
func thresholds(shapes []resources.Vector, e int) []int64 {
	seen := map[int64]bool{}
	var values []int64
	for _, sh := range shapes {
		if v := sh[e]; v > 0 && !seen[v] {
			seen[v] = true
			values = append(values, v)
		}
	}
	slices.Sort(values)
	if len(values) <= maxThresholds {
		return values
	}
	out := make([]int64, 0, maxThresholds)
	for i := range maxThresholds {
		out = append(out, values[i*len(values)/maxThresholds])
	}
	return out
}

// fitsAny reports whether the shape fits one of the marked rooms.
func fitsAny(shape resources.Vector, rooms []resources.Vector, marked []bool) bool {
	for j, room := range rooms {
		if marked[j] && shape.Fits(room) {
			return true
		}
	}
	return false
}

// maxBoundShapes bounds the distinct pod shapes the tighter parts of the bound look at; past
// it they are skipped (the bound stays true, only looser).
const maxBoundShapes = 512

// shapeCounts are the distinct request vectors of some pods, in first-seen order, with how
// many pods have each; nil shapes when there are more than maxBoundShapes of them.
type shapeCounts struct {
	shapes []resources.Vector
	counts []int64
}

// countShapes finds the shapes of the pods of class c (-1: all pods). It keys shapes by a
// hash of their requests (equal vectors compared on a collision) rather than by a string
// made per group.
func countShapes(pods []Pods, c int) shapeCounts {
	var out shapeCounts
	// first holds, per hash, the first shape with it; next chains the shapes of one hash.
	first := map[uint64]int{}
	var next []int
	for _, p := range pods {
		if c >= 0 && p.Class != c {
			continue
		}
		h := uint64(14695981039346656037)
		for _, x := range p.Requests {
			h = (h ^ uint64(x)) * 1099511628211
		}
		k, seen := first[h]
		for seen && k >= 0 && !slices.Equal(out.shapes[k], p.Requests) {
			k = next[k]
		}
		if seen && k >= 0 {
			out.counts[k] += int64(p.Count)
			continue
		}
		if len(out.shapes) == maxBoundShapes {
			return shapeCounts{}
		}
		k = len(out.shapes)
		if head, ok := first[h]; ok {
			next = append(next, head) // a collision: the new shape heads the chain
		} else {
			next = append(next, -1)
		}
		first[h] = k
		out.shapes = append(out.shapes, p.Requests)
		out.counts = append(out.counts, int64(p.Count))
	}
	return out
}

// usableRooms is, per room, what its pods can use of it: nothing when no pod shape fits it,
// and in each resource no more than another resource's room allows at the highest ratio
// between the two among the shapes that fit (pods that fit a type with 2 cpu and 74Mi use at
// most what 74Mi of memory carries of cpu; pod slots cap every resource at slots × the
// largest request). Any packing uses no more, so the fluid relaxation over these rooms stays
// a lower bound. Without shapes (too many) the rooms are the types' own.
func usableRooms(types []resources.Vector, shapes []resources.Vector, n int) []resources.Vector {
	rooms := make([]resources.Vector, len(types))
	for k, typeRoom := range types {
		if shapes == nil {
			rooms[k] = typeRoom
			continue
		}
		// ratio[i*n+j] is the highest r_i / r_j among the fitting shapes (+Inf when some has
		// r_j = 0 < r_i).
		var ratio []float64
		for _, sh := range shapes {
			if !sh.Fits(typeRoom) {
				continue
			}
			if ratio == nil {
				ratio = make([]float64, n*n)
			}
			for i := 0; i < n; i++ {
				if sh[i] <= 0 {
					continue
				}
				for j := 0; j < n; j++ {
					if i == j {
						continue
					}
					r := math.Inf(1)
					if sh[j] > 0 {
						r = float64(sh[i]) / float64(sh[j])
					}
					ratio[i*n+j] = max(ratio[i*n+j], r)
				}
			}
		}
		if ratio == nil {
			rooms[k] = make(resources.Vector, n) // no pod fits: the type holds nothing
			continue
		}
		room := make(resources.Vector, n)
		for i := 0; i < n; i++ {
			usable := float64(max(typeRoom[i], 0))
			for j := 0; j < n; j++ {
				if j != i && !math.IsInf(ratio[i*n+j], 1) {
					usable = min(usable, float64(max(typeRoom[j], 0))*ratio[i*n+j])
				}
			}
			room[i] = int64(math.Ceil(usable))
		}
		rooms[k] = room
	}
	return rooms
}

// Alone is what the pods that can share no node cost: a pod that fits no kind together with
// any other pod needs a node of its own, at least the cheapest its class may use and it fits
// on. Whether a pod can share depends on its shape only, so it is judged once per shape.
// 0 when reservations are in play (a reserved node may cost next to nothing).
func Alone(in Input) float64 {
	return alone(in, countShapes(in.Pods, -1))
}

// alone is Alone given the shapes of all pods.
func alone(in Input, shapes shapeCounts) float64 {
	if in.Reserved != nil || len(in.Pods) == 0 {
		return 0
	}
	if shapes.shapes == nil || len(shapes.shapes) > 128 {
		return 0
	}
	rooms, _ := typeColumns(in.Kinds, func(int) float64 { return 0 })
	pair := make(resources.Vector, len(in.Pods[0].Requests))
	shares := func(a, b resources.Vector) bool {
		for i := range pair {
			pair[i] = a[i] + b[i]
		}
		for _, room := range rooms {
			if pair.Fits(room) {
				return true
			}
		}
		return false
	}
	var alone []resources.Vector
	for k, p := range shapes.shapes {
		lone := true
		for j, q := range shapes.shapes {
			if j == k && shapes.counts[k] < 2 {
				continue // a pod cannot share with itself
			}
			if shares(p, q) {
				lone = false
				break
			}
		}
		if lone {
			alone = append(alone, p)
		}
	}
	if len(alone) == 0 {
		return 0
	}
	total := 0.0
	for _, p := range in.Pods {
		if !slices.ContainsFunc(alone, func(v resources.Vector) bool { return slices.Equal(v, p.Requests) }) {
			continue
		}
		cheapest := math.Inf(1)
		for _, k := range in.Kinds {
			if price := k.ClassPrices[p.Class]; price >= 0 && p.Requests.Fits(k.Room) {
				cheapest = min(cheapest, price)
			}
		}
		if !math.IsInf(cheapest, 1) {
			total += cheapest * float64(p.Count)
		}
	}
	return total
}
