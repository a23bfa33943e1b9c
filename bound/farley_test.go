package bound

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nodeplan/nodeplan/internal/resources"
)

// TestFarleyBoundSolvesOnlyWhatCanRaiseTheScale checks the ceilings that let farleyBound
// skip knapsacks: on random families of kinds and random duals, each is at least the
// knapsack it stands in for, and the bound equals the one that solves every kind's knapsack.
func TestFarleyBoundSolvesOnlyWhatCanRaiseTheScale(t *testing.T) {
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 7))
		var items []*patternItem
		for range 1 + r.IntN(20) {
			items = append(items, &patternItem{
				requests: resources.Vector{int64(50 + r.IntN(4000)), int64(64+r.IntN(8192)) << 20, 1000},
				count:    1 + r.IntN(300),
			})
		}
		var kinds []nodeKind
		for f := range 1 + r.IntN(4) {
			memPerCPU := int64(1 + r.IntN(8))
			for size := range 1 + r.IntN(10) {
				cpu := int64(1000) << size
				room := resources.Vector{cpu - 80, cpu / 1000 * memPerCPU << 30, int64(8+r.IntN(100)) * 1000}
				kind := nodeKind{room: room, price: float64(cpu) / 1000 * 0.01 * (1 + 0.3*float64(f)) * (0.8 + 0.4*r.Float64()), typeKey: len(kinds)}
				for i, it := range items {
					if it.requests.Fits(room) && r.IntN(5) > 0 {
						kind.allowed = append(kind.allowed, i)
					}
				}
				if len(kind.allowed) > 0 {
					kinds = append(kinds, kind)
				}
			}
		}
		if len(kinds) == 0 {
			continue
		}
		duals := make([]float64, len(items))
		for i := range duals {
			if r.IntN(6) > 0 {
				duals[i] = r.Float64() * float64(items[i].requests[0]) / 1000 * 0.02
			}
		}
		if r.IntN(4) == 0 {
			duals[r.IntN(len(duals))] *= 1e-8 // a valued item fractionalKnapsack leaves out of its LP
		}
		var sc knapsackScratch
		var prices [][]float64
		for _, kind := range kinds {
			v, ok := knapsackValue(items, kind, duals, &sc)
			if !ok {
				continue
			}
			if c := knapsackCeiling(items, kind, duals, &knapsackScratch{}); c*(1+1e-6) < v {
				t.Fatalf("seed %d: the one-resource ceiling %v is below the knapsack %v", seed, c, v)
			}
			for _, p := range prices {
				if c := priceCeiling(items, kind, duals, p); c*(1+1e-6) < v {
					t.Fatalf("seed %d: the resource-price ceiling %v is below the knapsack %v", seed, c, v)
				}
			}
			if len(sc.resourcePrices) > 0 {
				prices = append(prices, append([]float64(nil), sc.resourcePrices...))
			}
		}
		if got, want := farleyBound(items, kinds, duals), farleyEveryKind(items, kinds, duals); got != want {
			t.Fatalf("seed %d: farleyBound %v, solving every kind %v", seed, got, want)
		}
	}
}

// knapsackValue is what farleyBound finds one node of the kind can hold, leaving the fractional
// knapsack's resource prices in sc when it solves one.
func knapsackValue(items []*patternItem, kind nodeKind, duals []float64, sc *knapsackScratch) (float64, bool) {
	sc.resourcePrices = sc.resourcePrices[:0]
	v, _, ok := exactKnapsack(items, kind, duals, sc)
	if !ok {
		v, _ = fractionalKnapsack(items, kind, duals, sc)
	}
	return v, !math.IsInf(v, 1)
}

// farleyEveryKind is farleyBound solving the knapsack of every kind.
func farleyEveryKind(items []*patternItem, kinds []nodeKind, duals []float64) float64 {
	worth := podsWorth(items, duals)
	if worth <= 0 {
		return 0
	}
	var sc knapsackScratch
	rho := 1.0
	for _, kind := range kinds {
		v, ok := knapsackValue(items, kind, duals, &sc)
		if !ok {
			return 0
		}
		rho = max(rho, v/kind.price)
	}
	return scaledWorth(worth, rho)
}
