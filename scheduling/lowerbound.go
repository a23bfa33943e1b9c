package scheduling

import (
	"cmp"
	"fmt"
	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/topology"
	"math"
	"slices"
	"strings"

	"github.com/nodeplan/nodeplan/internal/resources"
	"github.com/nodeplan/nodeplan/requirements"
)

// lowerBound is a cost no plan for the pods on new nodes can beat: the largest of three
// relaxations. The first covers the total requests with fractional instances of every type
// any NodePool offers. The second is taken per class of pods with the same requirements and
// tolerations: any plan must at least pay for nodes holding that class, on types the class
// may use, at the prices its requirements allow (so pods pinned to one offering are priced at
// that offering, not at the catalog's cheapest). The third counts pods that can share a node
// with no other pod: each needs a node of its own. In the fluid relaxations a type offers only
// the room its pods can use (see usableRooms).
func (s *solver) lowerBound() float64 {
	demand := make(resources.Vector, s.dims.Len())
	classes := map[string]*boundClass{}
	var all []*podInfo
	var classOf []*boundClass // each pod's class, alongside all
	for _, n := range s.nodes {
		for _, p := range n.pods {
			all = append(all, p)
			demand.Add(p.requests)
			key := classKey(p)
			c := classes[key]
			if c == nil {
				c = &boundClass{pod: p, demand: make(resources.Vector, s.dims.Len()), smallest: p.requests.Clone()}
				classes[key] = c
			}
			classOf = append(classOf, c)
			c.demand.Add(p.requests)
			c.pods = append(c.pods, p)
			for i, r := range p.requests {
				c.smallest[i] = min(c.smallest[i], r)
			}
		}
	}
	if len(all) == 0 {
		return 0
	}
	// Capacity reservations are next to free but hold few instances: the relaxations price
	// types without them and take away from the demand all the reservations can hold.
	reserved := s.reservedRoom()
	demand = lessReserved(demand, reserved)
	var types []*typeOption
	var prices []float64
	for _, pool := range s.pools {
		for _, t := range pool.types {
			if price := paidPrice(t, nil); price >= 0 {
				types = append(types, t)
				prices = append(prices, price)
			}
		}
	}
	shapes := countShapes(all)
	bound := coverBound(types, prices, shapes, demand, s.dims, s.exclusiveSets(all)...)
	for _, c := range classes {
		if len(classes) == 1 && classKey(c.pod) == "" {
			break // the plain class is the whole demand, bounded above already
		}
		types, prices := s.classTypes(c)
		bound = max(bound, coverBound(types, prices, countShapes(c.pods), lessReserved(c.demand, reserved), s.dims, s.exclusiveSets(c.pods)...))
	}
	if reserved == nil {
		bound = max(bound, s.aloneBound(all, shapes))
		// The pattern bound costs far more than the others; it runs where they leave room
		// for doubt.
		if planned := nodesCost(s.nodes); planned > patternBoundGap*bound {
			bound = max(bound, s.patternBound(all, classOf))
		}
	}
	return bound
}

// reservedRoom is the room all capacity reservations the NodePools may launch into can still
// hold (instances left × the type's room), or nil when there are none.
func (s *solver) reservedRoom() resources.Vector {
	rooms := map[string]resources.Vector{}
	s.eachReservedOffering(func(t *typeOption, o instancetype.Offering) {
		if o.ReservationCapacity <= 0 {
			return
		}
		room := t.room.Clone()
		for i := range room {
			room[i] = max(room[i], 0) * int64(o.ReservationCapacity)
		}
		if old, ok := rooms[o.ReservationID]; ok {
			room.Max(old)
		}
		rooms[o.ReservationID] = room
	})
	if len(rooms) == 0 {
		return nil
	}
	total := make(resources.Vector, s.dims.Len())
	for _, room := range rooms {
		total.Add(room)
	}
	return total
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

// paidPrice is the cheapest offering of t that reqs allow (nil: any) outside capacity
// reservations, or -1.
func paidPrice(t *typeOption, reqs requirements.Requirements) float64 {
	for _, o := range t.offerings {
		if o.ReservationID == "" && (reqs == nil || instancetype.OfferingAllowed(o, reqs)) {
			return o.Price
		}
	}
	return -1
}

// coverBound is the fluid relaxation for pods on these types: fractional nodes whose usable
// rooms cover the pods' demand, and also, for pods too big for every type below a size
// threshold, cover that part of the demand with the types above it (such pods can go nowhere
// else, so any packing meets these rows too). 0 when it has no solution.
func coverBound(types []*typeOption, prices []float64, pods shapeCounts, demand resources.Vector, dims *resources.Dims, exclusive ...exclusiveSet) float64 {
	if len(types) == 0 {
		return 0
	}
	shapes := pods.shapes
	rooms := usableRooms(types, shapes, dims)
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
		for j, t := range types {
			if (skip == nil || !skip[j]) && set.smallest.Fits(t.room) {
				row[j] = 1
			}
		}
		coefs = append(coefs, row)
		rhs = append(rhs, float64(need))
	}
	for _, set := range exclusive {
		addCount(set, nil, len(set.requests))
		if len(set.requests) > maxThresholdShapes*4 {
			continue
		}
		for _, e := range []int{resources.CPU, resources.Memory} {
			for _, v := range thresholds(set.requests, e) {
				small := make([]bool, len(types))
				for j, t := range types {
					small[j] = t.room[e] < v
				}
				need := 0
				for _, r := range set.requests {
					if !fitsAny(r, types, small) {
						need++
					}
				}
				if need < len(set.requests) {
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
				for j, t := range types {
					if t.room[e] < v {
						small[j], any = true, true
					}
				}
				if !any {
					continue
				}
				need := make([]float64, dims.Len())
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
	cost, _, _, ok := coverLP(prices, cols, len(coefs))
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

// exclusiveSet is pods no two of which may share a node (each declares a required hostname
// anti-affinity that selects the others): count of them, and the element-wise minimum of
// their requests, which a type must hold to host any of them.
type exclusiveSet struct {
	requests []resources.Vector
	smallest resources.Vector
}

// exclusiveSets finds, per required hostname anti-affinity rule, the pods that declare it and
// match it themselves, when there are at least two.
func (s *solver) exclusiveSets(pods []*podInfo) []exclusiveSet {
	if s.topology == nil {
		return nil
	}
	sets := map[*topology.Group]*exclusiveSet{}
	for _, p := range pods {
		for _, t := range p.terms {
			g := t.Group
			if !t.Required || g.Kind != topology.AntiAffinity || g.Key != requirements.LabelHostname || !containsGroup(p.matched, g) {
				continue
			}
			set := sets[g]
			if set == nil {
				set = &exclusiveSet{smallest: p.requests.Clone()}
				sets[g] = set
			}
			set.requests = append(set.requests, p.requests)
			for i, r := range p.requests {
				set.smallest[i] = min(set.smallest[i], r)
			}
		}
	}
	var out []exclusiveSet
	for _, g := range s.topology.tracker.Groups() {
		if set := sets[g]; set != nil && len(set.requests) > 1 {
			out = append(out, *set)
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

// fitsAny reports whether the shape fits one of the marked types.
func fitsAny(shape resources.Vector, types []*typeOption, marked []bool) bool {
	for j, t := range types {
		if marked[j] && shape.Fits(t.room) {
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

// countShapes finds the shapes of pods. It runs on every plan over every pod, so it keys
// shapes by a hash of their requests (equal vectors compared on a collision) rather than by a
// string made per pod.
func countShapes(pods []*podInfo) shapeCounts {
	var out shapeCounts
	index := map[uint64][]int{}
	for _, p := range pods {
		h := uint64(14695981039346656037)
		for _, x := range p.requests {
			h = (h ^ uint64(x)) * 1099511628211
		}
		k := slices.IndexFunc(index[h], func(k int) bool { return slices.Equal(out.shapes[k], p.requests) })
		if k >= 0 {
			out.counts[index[h][k]]++
			continue
		}
		if len(out.shapes) == maxBoundShapes {
			return shapeCounts{}
		}
		index[h] = append(index[h], len(out.shapes))
		out.shapes = append(out.shapes, p.requests)
		out.counts = append(out.counts, 1)
	}
	return out
}

// usableRooms is, per type, the room its pods can use: none when no pod shape fits it, and in
// each resource no more than another resource's room allows at the highest ratio between the
// two among the shapes that fit (pods that fit a type with 2 cpu and 74Mi use at most what
// 74Mi of memory carries of cpu; pod slots cap every resource at slots × the largest request).
// Any packing uses no more, so the fluid relaxation over these rooms stays a lower bound.
// Without shapes (too many) the rooms are the types' own.
func usableRooms(types []*typeOption, shapes []resources.Vector, dims *resources.Dims) []resources.Vector {
	rooms := make([]resources.Vector, len(types))
	n := dims.Len()
	for k, t := range types {
		if shapes == nil {
			rooms[k] = t.room
			continue
		}
		// ratio[i*n+j] is the highest r_i / r_j among the fitting shapes (+Inf when some has
		// r_j = 0 < r_i).
		var ratio []float64
		for _, sh := range shapes {
			if !sh.Fits(t.room) {
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
			usable := float64(max(t.room[i], 0))
			for j := 0; j < n; j++ {
				if j != i && !math.IsInf(ratio[i*n+j], 1) {
					usable = min(usable, float64(max(t.room[j], 0))*ratio[i*n+j])
				}
			}
			room[i] = int64(math.Ceil(usable))
		}
		rooms[k] = room
	}
	return rooms
}

// aloneBound is what the pods that can share no node cost: a pod that fits no type together
// with any other pod needs a node of its own, at least the cheapest it fits on. Whether a pod
// can share depends on its shape only, so it is judged once per shape; only the pods of
// lone shapes are priced one by one (their requirements and tolerations choose the price).
func (s *solver) aloneBound(pods []*podInfo, shapes shapeCounts) float64 {
	if shapes.shapes == nil || len(shapes.shapes) > 128 {
		return 0
	}
	var types []*typeOption
	for _, pool := range s.pools {
		types = append(types, pool.types...)
	}
	pair := make(resources.Vector, s.dims.Len())
	shares := func(a, b resources.Vector) bool {
		for i := range pair {
			pair[i] = a[i] + b[i]
		}
		for _, t := range types {
			if pair.Fits(t.room) {
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
	for _, p := range pods {
		if !slices.ContainsFunc(alone, func(v resources.Vector) bool { return slices.Equal(v, p.requests) }) {
			continue
		}
		cheapest := math.Inf(1)
		for _, pool := range s.pools {
			if _, bad := (&podInfo{pod: p.pod, tolerateSoft: true}).untoleratedTaint(pool.np.Taints); bad {
				continue
			}
			for _, t := range pool.types {
				if p.requests.Fits(t.room) {
					if price := hostPrice(pool, t, p.effective()); price >= 0 {
						cheapest = min(cheapest, price)
					}
				}
			}
		}
		if !math.IsInf(cheapest, 1) {
			total += cheapest
		}
	}
	return total
}

// boundClass is pods with the same requirements and tolerations, for the lower bound.
type boundClass struct {
	pod    *podInfo // a representative
	pods   []*podInfo
	demand resources.Vector
	// smallest is the element-wise minimum of the pods' requests: a type without room for it
	// can take none of them.
	smallest resources.Vector
}

// classKey groups pods by what limits their choice of types: requirement alternatives (with
// the preference in force) and tolerations. Plain pods share the empty key.
func classKey(p *podInfo) string {
	alts := p.effective()
	if len(p.pod.Spec.Tolerations) == 0 && (len(alts) == 0 || (len(alts) == 1 && len(alts[0]) == 0)) {
		return ""
	}
	var b strings.Builder
	for _, alt := range alts {
		b.WriteString(alt.String())
		b.WriteString(" | ")
	}
	fmt.Fprint(&b, p.pod.Spec.Tolerations)
	return b.String()
}

// classTypes lists the types a class may use, priced at the cheapest offering its requirements
// and the NodePool's allow, with room for at least the smallest requests of the class (not the
// largest: the small pods of a class may use small types). PreferNoSchedule taints do not
// count, as some pods of the class may have relaxed them.
func (s *solver) classTypes(c *boundClass) ([]*typeOption, []float64) {
	var types []*typeOption
	var prices []float64
	for _, pool := range s.pools {
		if _, bad := (&podInfo{pod: c.pod.pod, tolerateSoft: true}).untoleratedTaint(pool.np.Taints); bad {
			continue
		}
		for _, t := range pool.types {
			if !c.smallest.Fits(t.room) {
				continue
			}
			if best := hostPrice(pool, t, c.pod.effective()); best >= 0 {
				types = append(types, t)
				prices = append(prices, best)
			}
		}
	}
	return types, prices
}

// hostPrice is the cheapest price at which type t of pool can host a pod with these
// requirement alternatives, or -1 when it cannot.
func hostPrice(pool *poolState, t *typeOption, alts []requirements.Requirements) float64 {
	best := -1.0
	for _, alt := range alts {
		if pool.reqs.Conflict(alt) != "" || t.reqs.Conflict(alt) != "" {
			continue
		}
		if price := paidPrice(t, alt); price >= 0 && (best < 0 || price < best) {
			best = price
		}
	}
	return best
}

// fluid is the solution of the fluid packing LP for some demand.
type fluid struct {
	cost float64
	// count is how many of each type (fractional) the LP buys.
	count []float64
	// value is the LP's dual price per milli-unit of each dimension: what a unit of that
	// resource is worth at the optimum. A node is efficient when the value of what it holds
	// is close to its price.
	value []float64
}

// solveFluid solves min Σ price_t x_t subject to Σ_t room_t x_t ≥ demand, x ≥ 0, in the
// workspace's buffers (nil: fresh ones): the result is valid until lp solves again.
func solveFluid(lp *lpWorkspace, types []*typeOption, prices []float64, demand resources.Vector) (fluid, bool) {
	if lp == nil {
		lp = &lpWorkspace{}
	}
	rows := lp.rows[:0]
	for i, d := range demand {
		if d > 0 {
			rows = append(rows, i)
		}
	}
	lp.rows = rows
	if len(rows) == 0 || len(types) == 0 {
		return fluid{}, false
	}
	cols, colPrices := lp.distinctColumns(types, prices, rows)
	cost, kept, y, ok := lp.cover(colPrices, len(cols), len(rows), len(types)-len(cols), func(j, r int) float64 {
		i := rows[r]
		return float64(max(types[cols[j]].room[i], 0)) / float64(demand[i])
	})
	if !ok {
		return fluid{}, false
	}
	x := grow(&lp.count, len(types))
	clear(x)
	for j, c := range cols {
		x[c] = kept[j]
	}
	value := grow(&lp.value, len(demand))
	clear(value)
	for r, i := range rows {
		value[i] = y[r] / float64(demand[i])
	}
	return fluid{cost: cost, count: x, value: value}, true
}

// worth is the fluid value of a request vector.
func (f fluid) worth(v resources.Vector) float64 {
	w := 0.0
	for i, x := range v {
		if x > 0 && i < len(f.value) {
			w += f.value[i] * float64(x)
		}
	}
	return w
}

// coverLP solves min Σ price_j x_j subject to Σ_j col_j[r] x_j ≥ 1 for every row r, x ≥ 0,
// with a two-phase tableau simplex (Bland's rule, so it terminates). Rows are few (one per
// resource), columns many (one per instance type), so each pivot is cheap.
// It returns the cost, the value of each column and the dual price of each row.
func coverLP(prices []float64, cols [][]float64, m int) (float64, []float64, []float64, bool) {
	return (&lpWorkspace{}).cover(prices, len(cols), m, 0, func(j, r int) float64 { return cols[j][r] })
}

// lpWorkspace keeps the buffers of coverLP between solves: repacking solves one LP per bin,
// over every type, and allocating its tableau each time made most of the plan's garbage.
// A workspace serves one goroutine.
type lpWorkspace struct {
	rows                      []int
	cells                     []float64
	tableau                   [][]float64
	basis                     []int
	phase1, cost, x, y, value []float64
	// count, cols, colPrices and cheapestOfShape serve solveFluid.
	count, colPrices []float64
	cols             []int
	cheapestOfShape  map[lpShape]float64
}

// distinctColumns returns the types the fluid LP needs as columns, in order, with their
// prices: a type whose room on the demanded rows equals an earlier column's, at no lower a
// price, is left out. Its column stays identical to the earlier one through every pivot, so
// its reduced cost is never below the other's, and Bland's rule, taking the first improving
// column, never lets it in: the LP pivots exactly as over all types, over a fraction of them
// (catalogs sell the same shape in many families).
func (lp *lpWorkspace) distinctColumns(types []*typeOption, prices []float64, rows []int) ([]int, []float64) {
	cols, colPrices := lp.cols[:0], lp.colPrices[:0]
	if len(rows) > len(lpShape{}) {
		for j := range types {
			cols = append(cols, j)
		}
		lp.cols = cols
		return cols, prices
	}
	if lp.cheapestOfShape == nil {
		lp.cheapestOfShape = map[lpShape]float64{}
	}
	clear(lp.cheapestOfShape)
	for j, t := range types {
		var shape lpShape
		for r, i := range rows {
			shape[r] = t.room[i]
		}
		if p, seen := lp.cheapestOfShape[shape]; seen && prices[j] >= p {
			continue
		}
		lp.cheapestOfShape[shape] = prices[j]
		cols = append(cols, j)
		colPrices = append(colPrices, prices[j])
	}
	lp.cols, lp.colPrices = cols, colPrices
	return cols, colPrices
}

// lpShape is a type's room on the rows of a fluid LP, for distinctColumns.
type lpShape [4]int64

// grow returns (*buf)[:n], reallocating when the buffer is too small.
func grow[T any](buf *[]T, n int) []T {
	if cap(*buf) < n {
		*buf = make([]T, n)
	}
	return (*buf)[:n]
}

// cover is coverLP over n columns whose entries col(j, r) gives; the returned slices are the
// workspace's, valid until the next solve.
// dropped is how many columns the caller left out as never entering (see solveFluid): the
// iteration bounds stay those of the whole problem.
func (lp *lpWorkspace) cover(prices []float64, n, m, dropped int, col func(j, r int) float64) (float64, []float64, []float64, bool) {
	// Columns: n structural, m surplus, m artificial; then the right-hand side.
	width := n + 2*m + 1
	rhs := width - 1
	cells := grow(&lp.cells, m*width)
	clear(cells)
	t := grow(&lp.tableau, m)
	basis := grow(&lp.basis, m)
	for r := 0; r < m; r++ {
		row := cells[r*width : (r+1)*width : (r+1)*width]
		for j := 0; j < n; j++ {
			row[j] = col(j, r)
		}
		row[n+r] = -1
		row[n+m+r] = 1
		row[rhs] = 1
		t[r] = row
		basis[r] = n + m + r
	}
	// Phase 1: minimise the artificials.
	phase1 := grow(&lp.phase1, width)
	clear(phase1)
	for j := n + m; j < n+2*m; j++ {
		phase1[j] = 1
	}
	if !simplex(t, basis, phase1, n+2*m, 50*(n+dropped+3*m)) {
		return 0, nil, nil, false
	}
	if objective(t, basis, phase1) > 1e-9 {
		return 0, nil, nil, false
	}
	// Phase 2: minimise cost over structural and surplus columns only.
	cost := grow(&lp.cost, width)
	clear(cost)
	copy(cost, prices)
	for r, b := range basis {
		if b >= n+m {
			// A degenerate artificial left in the basis at zero: pivot it out if possible.
			for j := 0; j < n+m; j++ {
				if math.Abs(t[r][j]) > 1e-12 {
					pivot(t, basis, r, j)
					break
				}
			}
		}
	}
	if !simplex(t, basis, cost, n+m, 50*(n+dropped+2*m)) {
		return 0, nil, nil, false
	}
	x := grow(&lp.x, n)
	clear(x)
	for r, b := range basis {
		if b < n {
			x[b] = t[r][rhs]
		}
	}
	// The dual price of row r is the reduced cost of its surplus column (cost 0, column
	// -e_r): -c_B·B⁻¹e_r, non-negative at the optimum.
	y := grow(&lp.y, m)
	for r := 0; r < m; r++ {
		v := 0.0
		for k, b := range basis {
			v -= cost[b] * t[k][n+r]
		}
		y[r] = max(v, 0)
	}
	return objective(t, basis, cost), x, y, true
}

func objective(t [][]float64, basis []int, cost []float64) float64 {
	rhs := len(t[0]) - 1
	v := 0.0
	for r, b := range basis {
		v += cost[b] * t[r][rhs]
	}
	return v
}

// simplex minimises cost over the first `cols` columns; false when unbounded or stuck after
// maxIter pivots.
func simplex(t [][]float64, basis []int, cost []float64, cols, maxIter int) bool {
	m := len(t)
	rhs := len(t[0]) - 1
	for iter := 0; iter < maxIter; iter++ {
		// Reduced costs: c_j - c_B B^-1 a_j; the tableau already holds B^-1 a_j.
		enter := -1
		for j := 0; j < cols; j++ {
			rc := cost[j]
			for r := 0; r < m; r++ {
				rc -= cost[basis[r]] * t[r][j]
			}
			if rc < -1e-12 {
				enter = j // Bland: the first improving column
				break
			}
		}
		if enter < 0 {
			return true
		}
		leave := -1
		best := math.Inf(1)
		for r := 0; r < m; r++ {
			if t[r][enter] > 1e-12 {
				ratio := t[r][rhs] / t[r][enter]
				if ratio < best-1e-15 || (math.Abs(ratio-best) <= 1e-15 && basis[r] < basis[leave]) {
					best, leave = ratio, r
				}
			}
		}
		if leave < 0 {
			return false
		}
		pivot(t, basis, leave, enter)
	}
	return false
}

func pivot(t [][]float64, basis []int, r, j int) {
	pr := t[r]
	inv := 1 / pr[j]
	for k := range pr {
		pr[k] *= inv
	}
	for i := range t {
		if i == r || t[i][j] == 0 {
			continue
		}
		f := t[i][j]
		row := t[i]
		for k := range row {
			row[k] -= f * pr[k]
		}
	}
	basis[r] = j
}
