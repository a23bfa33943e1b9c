package scheduling

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/nodeplan/nodeplan/internal/resources"
)

// candidateBinTypes picks its extra candidates by selection; it must pick what a stable sort
// by potential picks, ties, infinities and NaN (zero prices) included.
func TestCandidateBinTypesAgreesWithStableSort(t *testing.T) {
	// reference is the sort-based choice candidateBinTypes made before.
	reference := func(types []*typeOption, prices []float64, fl fluid) []*typeOption {
		var out []*typeOption
		seen := map[*typeOption]bool{}
		for j, x := range fl.count {
			if x > 1e-9 {
				out = append(out, types[j])
				seen[types[j]] = true
			}
		}
		if fl.value == nil {
			return types
		}
		potential := make([]float64, len(types))
		order := make([]int, len(types))
		for j, t := range types {
			potential[j] = fl.worth(t.room) / prices[j]
			order[j] = j
		}
		sort.SliceStable(order, func(a, b int) bool { return potential[order[a]] > potential[order[b]] })
		added := 0
		for _, j := range order {
			if added == binCandidates {
				break
			}
			if !seen[types[j]] {
				out = append(out, types[j])
				seen[types[j]] = true
				added++
			}
		}
		return out
	}
	cases := []struct {
		name       string
		types      int
		sizes      int // distinct rooms: few make ties
		zeroPrices bool
		noValue    bool
	}{
		{"many distinct", 300, 300, false, false},
		{"ties", 200, 4, false, false},
		{"fewer than the candidates", 4, 4, false, false},
		{"zero prices", 50, 10, true, false},
		{"no LP", 20, 20, false, true},
	}
	for _, tc := range cases {
		for seed := range uint64(20) {
			t.Run(fmt.Sprintf("%s/%d", tc.name, seed), func(t *testing.T) {
				r := rand.New(rand.NewPCG(seed, 7))
				types := make([]*typeOption, tc.types)
				prices := make([]float64, tc.types)
				fl := fluid{count: make([]float64, tc.types), value: []float64{r.Float64(), r.Float64(), 0}}
				if tc.noValue {
					fl.value = nil
				}
				for j := range types {
					size := int64(1 + r.IntN(tc.sizes))
					types[j] = &typeOption{index: j, room: resources.Vector{size * 1000, size * 2048, 0}}
					prices[j] = float64(size) * 0.05
					if tc.zeroPrices && r.IntN(4) == 0 {
						prices[j] = 0
						if r.IntN(2) == 0 {
							types[j].room = resources.Vector{0, 0, 0} // 0/0: NaN
						}
					}
					if r.IntN(10) == 0 {
						fl.count[j] = r.Float64()
					}
				}
				want := reference(types, prices, fl)
				got := candidateBinTypes(&repackWorkspace{}, types, prices, fl)
				if len(got) != len(want) {
					t.Fatalf("%d candidates, want %d", len(got), len(want))
				}
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("candidate %d is type %d, want %d", i, got[i].index, want[i].index)
					}
				}
			})
		}
	}
}

// solveFluid leaves out columns that repeat an earlier one at no lower price; the solution
// must be the one the LP over every type gives, bit for bit.
func TestSolveFluidWithoutRepeatedColumnsIsExact(t *testing.T) {
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 11))
		shapes := 1 + r.IntN(12)
		n := 1 + r.IntN(120)
		types := make([]*typeOption, n)
		prices := make([]float64, n)
		for j := range types {
			s := int64(r.IntN(shapes))
			room := resources.Vector{(1 + s%4) * 2000, (1 + s%3) * 4096, 10 + s, 0}
			if r.IntN(20) == 0 {
				room[1] = -5 // a type whose daemons take more than it has
			}
			types[j] = &typeOption{index: j, room: room}
			prices[j] = float64(1+s%4+s%3) * 0.05 * (1 + float64(r.IntN(3))/10)
		}
		demand := resources.Vector{int64(1 + r.IntN(50000)), int64(r.IntN(100000)), int64(1 + r.IntN(300)), 0}
		got, gotOK := solveFluid(&lpWorkspace{}, types, prices, demand)

		var rows []int
		for i, d := range demand {
			if d > 0 {
				rows = append(rows, i)
			}
		}
		cols := make([][]float64, n)
		for j, typ := range types {
			cols[j] = make([]float64, len(rows))
			for k, i := range rows {
				cols[j][k] = float64(max(typ.room[i], 0)) / float64(demand[i])
			}
		}
		cost, x, y, ok := coverLP(prices, cols, len(rows))
		if gotOK != ok {
			t.Fatalf("seed %d: solved %v, the whole LP %v", seed, gotOK, ok)
		}
		if !ok {
			continue
		}
		if got.cost != cost {
			t.Fatalf("seed %d: cost %v, the whole LP %v", seed, got.cost, cost)
		}
		for j := range x {
			if got.count[j] != x[j] {
				t.Fatalf("seed %d: type %d bought %v, the whole LP %v", seed, j, got.count[j], x[j])
			}
		}
		for k, i := range rows {
			if want := y[k] / float64(demand[i]); got.value[i] != want {
				t.Fatalf("seed %d: value of %d is %v, the whole LP %v", seed, i, got.value[i], want)
			}
		}
	}
}
