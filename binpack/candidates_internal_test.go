package binpack

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/nodeplan/nodeplan/bound"
	"github.com/nodeplan/nodeplan/internal/resources"
)

// candidateKinds picks its extra candidates by selection; it must pick what a stable sort by
// potential picks, ties, infinities and NaN (zero prices) included.
func TestCandidateKindsAgreesWithStableSort(t *testing.T) {
	// reference is the sort-based choice candidateKinds made before.
	reference := func(kinds Kinds, fl bound.FluidSolution) []int {
		n := len(kinds.Rooms)
		all := make([]int, n)
		for j := range all {
			all[j] = j
		}
		if fl.Value == nil {
			return all
		}
		var out []int
		seen := map[int]bool{}
		for j, x := range fl.Count {
			if x > 1e-9 {
				out = append(out, j)
				seen[j] = true
			}
		}
		potential := make([]float64, n)
		for j, room := range kinds.Rooms {
			potential[j] = fl.Worth(room) / kinds.Prices[j]
		}
		sort.SliceStable(all, func(a, b int) bool { return potential[all[a]] > potential[all[b]] })
		added := 0
		for _, j := range all {
			if added == candidates {
				break
			}
			if !seen[j] {
				out = append(out, j)
				seen[j] = true
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
				kinds := Kinds{Rooms: make([]resources.Vector, tc.types), Prices: make([]float64, tc.types)}
				prices := kinds.Prices
				fl := bound.FluidSolution{Count: make([]float64, tc.types), Value: []float64{r.Float64(), r.Float64(), 0}}
				if tc.noValue {
					fl.Value = nil
				}
				for j := range kinds.Rooms {
					size := int64(1 + r.IntN(tc.sizes))
					kinds.Rooms[j] = resources.Vector{size * 1000, size * 2048, 0}
					prices[j] = float64(size) * 0.05
					if tc.zeroPrices && r.IntN(4) == 0 {
						prices[j] = 0
						if r.IntN(2) == 0 {
							kinds.Rooms[j] = resources.Vector{0, 0, 0} // 0/0: NaN
						}
					}
					if r.IntN(10) == 0 {
						fl.Count[j] = r.Float64()
					}
				}
				want := reference(kinds, fl)
				got := candidateKinds(&Workspace{}, kinds, fl)
				if len(got) != len(want) {
					t.Fatalf("%d candidates, want %d", len(got), len(want))
				}
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("candidate %d is kind %d, want %d", i, got[i], want[i])
					}
				}
			})
		}
	}
}
