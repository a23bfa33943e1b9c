package bound

import (
	"math/rand/v2"
	"testing"

	"github.com/nodeplan/nodeplan/internal/resources"
)

// SolveFluid leaves out columns that repeat an earlier one at no lower price; the solution
// must be the one the LP over every type gives, bit for bit.
func TestSolveFluidWithoutRepeatedColumnsIsExact(t *testing.T) {
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 11))
		shapes := 1 + r.IntN(12)
		n := 1 + r.IntN(120)
		rooms := make([]resources.Vector, n)
		prices := make([]float64, n)
		for j := range rooms {
			s := int64(r.IntN(shapes))
			room := resources.Vector{(1 + s%4) * 2000, (1 + s%3) * 4096, 10 + s, 0}
			if r.IntN(20) == 0 {
				room[1] = -5 // a type whose daemons take more than it has
			}
			rooms[j] = room
			prices[j] = float64(1+s%4+s%3) * 0.05 * (1 + float64(r.IntN(3))/10)
		}
		demand := resources.Vector{int64(1 + r.IntN(50000)), int64(r.IntN(100000)), int64(1 + r.IntN(300)), 0}
		var lp LP
		got, gotOK := lp.SolveFluid(rooms, prices, demand)

		var rows []int
		for i, d := range demand {
			if d > 0 {
				rows = append(rows, i)
			}
		}
		cols := make([][]float64, n)
		for j, room := range rooms {
			cols[j] = make([]float64, len(rows))
			for k, i := range rows {
				cols[j][k] = float64(max(room[i], 0)) / float64(demand[i])
			}
		}
		cost, x, y, ok := CoverLP(prices, cols, len(rows))
		if gotOK != ok {
			t.Fatalf("seed %d: solved %v, the whole LP %v", seed, gotOK, ok)
		}
		if !ok {
			continue
		}
		if got.Cost != cost {
			t.Fatalf("seed %d: cost %v, the whole LP %v", seed, got.Cost, cost)
		}
		for j := range x {
			if got.Count[j] != x[j] {
				t.Fatalf("seed %d: type %d bought %v, the whole LP %v", seed, j, got.Count[j], x[j])
			}
		}
		for k, i := range rows {
			if want := y[k] / float64(demand[i]); got.Value[i] != want {
				t.Fatalf("seed %d: value of %d is %v, the whole LP %v", seed, i, got.Value[i], want)
			}
		}
	}
}
