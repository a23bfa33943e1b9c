package bound

import (
	"math"

	"github.com/nodeplan/nodeplan/internal/resources"
)

// FluidSolution is the optimum of the fluid packing LP for some demand (see LP.SolveFluid).
type FluidSolution struct {
	Cost float64
	// Count is how many nodes of each room the LP buys (fractional).
	Count []float64
	// Value is the LP's dual price per milli-unit of each dimension: what a unit of that
	// resource is worth at the optimum. A node is efficient when the value of what it holds
	// is close to its price.
	Value []float64
}

// Worth is the fluid value of a request vector.
func (f FluidSolution) Worth(v resources.Vector) float64 {
	w := 0.0
	for i, x := range v {
		if x > 0 && i < len(f.Value) {
			w += f.Value[i] * float64(x)
		}
	}
	return w
}

// LP keeps the buffers of the covering LP between solves: a caller that solves one LP after
// another (repacking solves one per bin, over every type) reuses them instead of allocating a
// tableau each time. The zero value is ready; an LP serves one goroutine.
type LP struct {
	rows                      []int
	cells                     []float64
	tableau                   [][]float64
	basis                     []int
	phase1, cost, x, y, value []float64
	// count, cols, colPrices and cheapestOfShape serve SolveFluid.
	count, colPrices []float64
	cols             []int
	cheapestOfShape  map[lpShape]float64
}

// SolveFluid solves min Σ price_t x_t subject to Σ_t room_t x_t ≥ demand, x ≥ 0: the cheapest
// fractional nodes whose rooms cover the demand. False when it has no solution. The result
// lives in the LP's buffers: it is valid until the LP solves again.
func (lp *LP) SolveFluid(rooms []resources.Vector, prices []float64, demand resources.Vector) (FluidSolution, bool) {
	rows := lp.demandedRows(demand)
	if len(rows) == 0 || len(rooms) == 0 {
		return FluidSolution{}, false
	}
	cols, colPrices := lp.distinctColumns(rooms, prices, rows)
	return lp.solveFluidOver(rooms, demand, rows, cols, colPrices)
}

// SolveFluidWith is SolveFluid over the rooms and prices of sets, whose columns for each set
// of demanded resources are found once for every LP that solves over them.
func (lp *LP) SolveFluidWith(sets *ColumnSets, demand resources.Vector) (FluidSolution, bool) {
	rows := lp.demandedRows(demand)
	if len(rows) == 0 || len(sets.rooms) == 0 {
		return FluidSolution{}, false
	}
	cols, colPrices, ok := sets.of(rows)
	if !ok {
		cols, colPrices = lp.distinctColumns(sets.rooms, sets.prices, rows)
	}
	return lp.solveFluidOver(sets.rooms, demand, rows, cols, colPrices)
}

// demandedRows returns the dimensions demand asks for, in the LP's buffer.
func (lp *LP) demandedRows(demand resources.Vector) []int {
	rows := lp.rows[:0]
	for i, d := range demand {
		if d > 0 {
			rows = append(rows, i)
		}
	}
	lp.rows = rows
	return rows
}

// solveFluidOver solves the fluid LP of demand on rows over the columns cols of rooms, priced
// colPrices.
func (lp *LP) solveFluidOver(rooms []resources.Vector, demand resources.Vector, rows, cols []int, colPrices []float64) (FluidSolution, bool) {
	cost, kept, y, ok := lp.cover(colPrices, len(cols), len(rows), len(rooms)-len(cols), func(j, r int) float64 {
		i := rows[r]
		return float64(max(rooms[cols[j]][i], 0)) / float64(demand[i])
	})
	if !ok {
		return FluidSolution{}, false
	}
	x := grow(&lp.count, len(rooms))
	clear(x)
	for j, c := range cols {
		x[c] = kept[j]
	}
	value := grow(&lp.value, len(demand))
	clear(value)
	for r, i := range rows {
		value[i] = y[r] / float64(demand[i])
	}
	return FluidSolution{Cost: cost, Count: x, Value: value}, true
}

// CoverLP solves min Σ price_j x_j subject to Σ_j cols[j][r] x_j ≥ 1 for each of the rows
// r, x ≥ 0, with a two-phase tableau simplex (Bland's rule, so it terminates). Rows are
// meant to be few (one per resource or pod item) and columns many (one per node kind), so
// each pivot is cheap. It returns the cost, the value of each column and the dual price of
// each row, and false when the LP has no solution (or the simplex stalls).
func CoverLP(prices []float64, cols [][]float64, rows int) (cost float64, x, y []float64, ok bool) {
	return (&LP{}).cover(prices, len(cols), rows, 0, func(j, r int) float64 { return cols[j][r] })
}

// distinctColumns returns the rooms the fluid LP needs as columns, in order, with their
// prices: a room equal on the demanded rows to an earlier column's, at no lower a price, is
// left out. Its column stays identical to the earlier one through every pivot, so its
// reduced cost is never below the other's, and Bland's rule, taking the first improving
// column, never lets it in: the LP pivots exactly as over all rooms, over a fraction of them
// (catalogs sell the same shape in many families).
func (lp *LP) distinctColumns(rooms []resources.Vector, prices []float64, rows []int) ([]int, []float64) {
	cols, colPrices := lp.cols[:0], lp.colPrices[:0]
	if len(rows) > len(lpShape{}) {
		for j := range rooms {
			cols = append(cols, j)
		}
		lp.cols = cols
		return cols, prices
	}
	if lp.cheapestOfShape == nil {
		lp.cheapestOfShape = map[lpShape]float64{}
	}
	clear(lp.cheapestOfShape)
	for j, room := range rooms {
		var shape lpShape
		for r, i := range rows {
			shape[r] = room[i]
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

// lpShape is a room on the rows of a fluid LP, for distinctColumns.
type lpShape [4]int64

// grow returns (*buf)[:n], reallocating when the buffer is too small.
func grow[T any](buf *[]T, n int) []T {
	if cap(*buf) < n {
		*buf = make([]T, n)
	}
	return (*buf)[:n]
}

// cover is CoverLP over n columns whose entries col(j, r) gives; the returned slices are the
// LP's buffers, valid until the next solve.
// dropped is how many columns the caller left out as never entering (see SolveFluid): the
// iteration bounds stay those of the whole problem.
func (lp *LP) cover(prices []float64, n, m, dropped int, col func(j, r int) float64) (float64, []float64, []float64, bool) {
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
					pivot(t, basis, r, j, n+m)
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
	// The rows whose basic column costs something, and that cost: the others add only zeros
	// to the reduced costs, which are read only against a negative threshold.
	var rowBuf [64]int
	var costBuf [64]float64
	priced, rowCost := rowBuf[:0], costBuf[:0]
	for iter := 0; iter < maxIter; iter++ {
		priced, rowCost = priced[:0], rowCost[:0]
		for r, b := range basis {
			if c := cost[b]; c != 0 {
				priced, rowCost = append(priced, r), append(rowCost, c)
			}
		}
		// Reduced costs: c_j - c_B B^-1 a_j; the tableau already holds B^-1 a_j.
		enter := -1
		for j := 0; j < cols; j++ {
			rc := cost[j]
			for k, r := range priced {
				rc -= rowCost[k] * t[r][j]
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
		pivot(t, basis, leave, enter, cols)
	}
	return false
}

// pivot makes column j basic in row r, over the first cols columns and the right-hand side:
// phase 2 never reads the artificial columns again, so it leaves them stale.
func pivot(t [][]float64, basis []int, r, j, cols int) {
	pr := t[r]
	rhs := len(pr) - 1
	inv := 1 / pr[j]
	head := pr[:cols]
	for k := range head {
		head[k] *= inv
	}
	pr[rhs] *= inv
	for i := range t {
		if i == r || t[i][j] == 0 {
			continue
		}
		f := t[i][j]
		row := t[i][:len(head)] // as long as head: no bounds check in the loop
		for k, x := range head {
			row[k] -= f * x
		}
		t[i][rhs] -= f * pr[rhs]
	}
	basis[r] = j
}
