package scheduling

import (
	"fmt"
	"math"
	"strings"

	"github.com/nodeplan/nodeplan/internal/resources"
	"github.com/nodeplan/nodeplan/requirements"
)

// lowerBound is a cost no plan for the pods on new nodes can beat: the larger of two fluid
// relaxations. The first covers the total requests with fractional instances of every type
// any NodePool offers. The second is taken per class of pods with the same requirements and
// tolerations: any plan must at least pay for nodes holding that class, on types the class
// may use, at the prices its requirements allow (so pods pinned to one offering are priced at
// that offering, not at the catalog's cheapest).
func (s *solver) lowerBound() float64 {
	demand := make(resources.Vector, s.dims.Len())
	classes := map[string]*boundClass{}
	for _, n := range s.nodes {
		for _, p := range n.pods {
			demand.Add(p.requests)
			key := classKey(p)
			c := classes[key]
			if c == nil {
				c = &boundClass{pod: p, demand: make(resources.Vector, s.dims.Len()), smallest: p.requests.Clone()}
				classes[key] = c
			}
			c.demand.Add(p.requests)
			for i, r := range p.requests {
				c.smallest[i] = min(c.smallest[i], r)
			}
		}
	}
	var types []*typeOption
	var prices []float64
	for _, pool := range s.pools {
		for _, t := range pool.types {
			types = append(types, t)
			prices = append(prices, t.cheapest)
		}
	}
	fl, ok := solveFluid(types, prices, demand)
	if !ok {
		return 0
	}
	bound := fl.cost
	for _, c := range classes {
		if len(classes) == 1 && classKey(c.pod) == "" {
			break // the plain class is the whole demand, bounded above already
		}
		types, prices := s.classTypes(c)
		if cfl, ok := solveFluid(types, prices, c.demand); ok && cfl.cost > bound {
			bound = cfl.cost
		}
	}
	return bound
}

// boundClass is pods with the same requirements and tolerations, for the lower bound.
type boundClass struct {
	pod    *podInfo // a representative
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
		if price := cheapestPrice(t, alt); price >= 0 && (best < 0 || price < best) {
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

// solveFluid solves min Σ price_t x_t subject to Σ_t room_t x_t ≥ demand, x ≥ 0.
func solveFluid(types []*typeOption, prices []float64, demand resources.Vector) (fluid, bool) {
	var rows []int
	for i, d := range demand {
		if d > 0 {
			rows = append(rows, i)
		}
	}
	if len(rows) == 0 || len(types) == 0 {
		return fluid{}, false
	}
	cols := make([][]float64, len(types))
	for j, t := range types {
		col := make([]float64, len(rows))
		for r, i := range rows {
			col[r] = float64(max(t.room[i], 0)) / float64(demand[i])
		}
		cols[j] = col
	}
	cost, x, y, ok := coverLP(prices, cols, len(rows))
	if !ok {
		return fluid{}, false
	}
	value := make([]float64, len(demand))
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
	n := len(cols)
	// Columns: n structural, m surplus, m artificial; then the right-hand side.
	width := n + 2*m + 1
	rhs := width - 1
	t := make([][]float64, m)
	basis := make([]int, m)
	for r := 0; r < m; r++ {
		row := make([]float64, width)
		for j := 0; j < n; j++ {
			row[j] = cols[j][r]
		}
		row[n+r] = -1
		row[n+m+r] = 1
		row[rhs] = 1
		t[r] = row
		basis[r] = n + m + r
	}
	// Phase 1: minimise the artificials.
	phase1 := make([]float64, width)
	for j := n + m; j < n+2*m; j++ {
		phase1[j] = 1
	}
	if !simplex(t, basis, phase1, n+2*m) {
		return 0, nil, nil, false
	}
	if objective(t, basis, phase1) > 1e-9 {
		return 0, nil, nil, false
	}
	// Phase 2: minimise cost over structural and surplus columns only.
	cost := make([]float64, width)
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
	if !simplex(t, basis, cost, n+m) {
		return 0, nil, nil, false
	}
	x := make([]float64, n)
	for r, b := range basis {
		if b < n {
			x[b] = t[r][rhs]
		}
	}
	// The dual price of row r is the reduced cost of its surplus column (cost 0, column
	// -e_r): -c_B·B⁻¹e_r, non-negative at the optimum.
	y := make([]float64, m)
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

// simplex minimises cost over the first `cols` columns; false when unbounded or stuck.
func simplex(t [][]float64, basis []int, cost []float64, cols int) bool {
	m := len(t)
	rhs := len(t[0]) - 1
	for iter := 0; iter < 50*(cols+m); iter++ {
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
