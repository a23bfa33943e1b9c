package scheduling

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/nodeplan/nodeplan/bound"
	"github.com/nodeplan/nodeplan/internal/resources"
)

// candidateBinTypes picks its extra candidates by selection; it must pick what a stable sort
// by potential picks, ties, infinities and NaN (zero prices) included.
func TestCandidateBinTypesAgreesWithStableSort(t *testing.T) {
	// reference is the sort-based choice candidateBinTypes made before.
	reference := func(types []*typeOption, prices []float64, fl bound.FluidSolution) []*typeOption {
		var out []*typeOption
		seen := map[*typeOption]bool{}
		for j, x := range fl.Count {
			if x > 1e-9 {
				out = append(out, types[j])
				seen[types[j]] = true
			}
		}
		if fl.Value == nil {
			return types
		}
		potential := make([]float64, len(types))
		order := make([]int, len(types))
		for j, t := range types {
			potential[j] = fl.Worth(t.room) / prices[j]
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
				fl := bound.FluidSolution{Count: make([]float64, tc.types), Value: []float64{r.Float64(), r.Float64(), 0}}
				if tc.noValue {
					fl.Value = nil
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
						fl.Count[j] = r.Float64()
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
