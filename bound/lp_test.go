package bound

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
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

// One LP solving again and again (a repack, bin after bin) gives what a fresh LP gives from its
// buffers, also when the demanded rows, the prices or a room change between solves.
func TestSolveFluidReusedIsFresh(t *testing.T) {
	for seed := range uint64(100) {
		r := rand.New(rand.NewPCG(seed, 12))
		n := 1 + r.IntN(40)
		rooms, prices := alikeRooms(r, n)
		var reused LP
		for step := range 12 {
			switch r.IntN(5) {
			case 0:
				rooms[r.IntN(n)][r.IntN(3)] += 1000 // changed in place
			case 1:
				prices[r.IntN(n)] *= 0.9
			}
			demand := someDemand(r)
			got, gotOK := reused.SolveFluid(rooms, prices, demand)
			var fresh LP
			want, wantOK := fresh.SolveFluid(rooms, prices, demand)
			if !sameFluid(got, gotOK, want, wantOK) {
				t.Fatalf("seed %d step %d: reused LP gave %v %+v, a fresh one %v %+v", seed, step, gotOK, got, wantOK, want)
			}
		}
	}
}

// Solving over ColumnSets gives what SolveFluid gives, whichever dimensions each demand asks
// for, from several goroutines sharing the sets.
func TestSolveFluidWithIsSolveFluid(t *testing.T) {
	for seed := range uint64(60) {
		r := rand.New(rand.NewPCG(seed, 13))
		n := 1 + r.IntN(60)
		rooms, prices := alikeRooms(r, n)
		demands := make([]resources.Vector, 16)
		for k := range demands {
			demands[k] = someDemand(r)
		}
		sets := NewColumnSets(rooms, prices)
		var wg sync.WaitGroup
		errs := make([]string, 4)
		for g := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var with, plain LP
				for k := range demands {
					d := demands[(k+g)%len(demands)]
					got, gotOK := with.SolveFluidWith(sets, d)
					want, wantOK := plain.SolveFluid(rooms, prices, d)
					if !sameFluid(got, gotOK, want, wantOK) {
						errs[g] = fmt.Sprintf("demand %v: with column sets %v %+v, without %v %+v", d, gotOK, got, wantOK, want)
						return
					}
				}
			}()
		}
		wg.Wait()
		for _, e := range errs {
			if e != "" {
				t.Fatalf("seed %d: %s", seed, e)
			}
		}
	}
}

// alikeRooms returns n rooms of a dozen shapes and their prices: rooms alike on some
// dimensions and not on others, as which are alike decides which columns the LP needs.
func alikeRooms(r *rand.Rand, n int) ([]resources.Vector, []float64) {
	rooms := make([]resources.Vector, n)
	prices := make([]float64, n)
	for j := range rooms {
		s := int64(r.IntN(12))
		rooms[j] = resources.Vector{(1 + s%2) * 2000, (1 + s%3) * 4096, 10 + s%4, 1 + s%5, 3 + s%6, 0}
		prices[j] = float64(1+s%4+s%3) * 0.05 * (1 + float64(r.IntN(3))/10)
	}
	return rooms, prices
}

// someDemand asks for some of the dimensions alikeRooms' rooms have, each or not.
func someDemand(r *rand.Rand) resources.Vector {
	return resources.Vector{int64(r.IntN(2) * r.IntN(50000)), int64(r.IntN(2) * r.IntN(100000)), int64(r.IntN(2) * r.IntN(300)), int64(r.IntN(2)), int64(r.IntN(2)), 0}
}

// sameFluid reports whether two fluid solves agree, bit for bit.
func sameFluid(a FluidSolution, aOK bool, b FluidSolution, bOK bool) bool {
	return aOK == bOK && a.Cost == b.Cost && slices.Equal(a.Count, b.Count) && slices.Equal(a.Value, b.Value)
}
