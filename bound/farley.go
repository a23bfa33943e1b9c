package bound

import (
	"math"
	"slices"
)

// farleyBound scales the duals until no node kind has a pattern worth more than its price,
// each kind's best pattern bounded by the fractional knapsack over its room, and returns what
// the pods are then worth: a feasible dual solution's value, below the LP's optimum.
//
// The scale is the largest worth per price over the kinds. Kinds are taken by a cheap ceiling
// on that ratio (knapsackCeiling), highest first, and the knapsacks stop where the ceiling
// falls below the scale found so far: those kinds cannot raise it, so the result is the same
// as solving every kind's knapsack, for a fraction of the LPs.
func farleyBound(items []*patternItem, kinds []nodeKind, duals []float64) float64 {
	worth := podsWorth(items, duals)
	if worth <= 0 {
		return 0
	}
	type candidate struct {
		kind    int
		ceiling float64 // what the kind's best pattern is worth at most, per price
	}
	var scratch knapsackScratch
	candidates := make([]candidate, len(kinds))
	for k, kind := range kinds {
		candidates[k] = candidate{k, knapsackCeiling(items, kind, duals, &scratch) / kind.price}
	}
	slices.SortStableFunc(candidates, func(a, b candidate) int { return descending(a.ceiling, b.ceiling) })
	knapsack := map[int]float64{}
	// The resource prices of the knapsack that set the scale and of the last one solved:
	// kinds of other sizes of a family are often bounded below the scale by them.
	var rhoPrices, lastPrices []float64
	rho := 1.0
	for _, c := range candidates {
		// The margin covers the LP's rounding: its value may sit a hair above a ceiling equal
		// to it.
		if c.ceiling*(1+1e-6) <= rho {
			break
		}
		kind := kinds[c.kind]
		v, ok := knapsack[kind.typeKey]
		if !ok {
			if below(priceCeiling(items, kind, duals, rhoPrices)/kind.price, rho) || below(priceCeiling(items, kind, duals, lastPrices)/kind.price, rho) {
				continue
			}
			var solved bool
			if v, _, ok = exactKnapsack(items, kind, duals, &scratch); !ok {
				v, _ = fractionalKnapsack(items, kind, duals, &scratch)
				solved = !math.IsInf(v, 1) && len(scratch.resourcePrices) > 0
			}
			knapsack[kind.typeKey] = v
			if solved {
				lastPrices = append(lastPrices[:0], scratch.resourcePrices...)
				if v/kind.price > rho {
					rhoPrices = append(rhoPrices[:0], scratch.resourcePrices...)
				}
			}
		}
		if math.IsInf(v, 1) {
			return 0
		}
		rho = max(rho, v/kind.price)
	}
	return scaledWorth(worth, rho)
}

// podsWorth is what all the pods are worth at these duals.
func podsWorth(items []*patternItem, duals []float64) float64 {
	worth := 0.0
	for i, it := range items {
		worth += duals[i] * float64(it.count)
	}
	return worth
}

// scaledWorth is the pods' worth with the duals scaled down by rho. The LP solver works in
// floating point: a hair of slack keeps rounding from lifting the bound above the optimum.
func scaledWorth(worth, rho float64) float64 {
	return worth / (rho * (1 + 1e-9)) * (1 - 1e-9)
}

// knapsackCeiling is at least what fractionalKnapsack (and so exactKnapsack) finds one node of
// the kind can hold at these duals, cheaply: the same knapsack kept to one resource at a time
// (each then solved exactly, by value per unit, with the same count limits), the least of
// those, plus the items fractionalKnapsack leaves out of its LP, counted as it counts them.
// It uses sc's rows.
func knapsackCeiling(items []*patternItem, kind nodeKind, duals []float64, sc *knapsackScratch) float64 {
	top, rows, extra := valuedItems(items, kind, duals, sc.rows[:0])
	sc.rows = rows
	if top <= 0 {
		return 0
	}
	limit := func(i int) float64 {
		return float64(min(fitCount(items[i].requests, kind.room, nil), items[i].count))
	}
	ceiling := 0.0
	for _, i := range rows {
		ceiling += duals[i] * limit(i)
	}
	for d, room := range kind.room {
		if room <= 0 {
			continue
		}
		slices.SortStableFunc(rows, func(a, b int) int {
			return descending(duals[a]/float64(items[a].requests[d]), duals[b]/float64(items[b].requests[d]))
		})
		left, value := float64(room), 0.0
		for _, i := range rows {
			r := float64(items[i].requests[d])
			take := limit(i)
			if r > 0 {
				take = min(take, left/r)
				left -= take * r
			}
			value += duals[i] * take
		}
		ceiling = min(ceiling, value)
	}
	return ceiling + extra
}

// below reports whether a kind's ceiling per price leaves it unable to raise the scale rho;
// the margin covers the LP's rounding.
func below(ceiling, rho float64) bool {
	return ceiling*(1+1e-6) <= rho
}

// priceCeiling is at least what fractionalKnapsack finds one node of the kind can hold at
// these duals, from a price per unit of each resource (nil: +Inf): any prices are a feasible
// solution of the knapsack LP's dual, the room at those prices plus, per item, what its dual
// exceeds its resources' price by, times as many as the node may hold (weak duality). The
// items fractionalKnapsack leaves out of its LP are counted as it counts them.
func priceCeiling(items []*patternItem, kind nodeKind, duals, prices []float64) float64 {
	if prices == nil {
		return math.Inf(1)
	}
	top := 0.0
	for _, i := range kind.allowed {
		top = max(top, duals[i])
	}
	if top <= 0 {
		return 0
	}
	v := 0.0
	for d, room := range kind.room {
		if room > 0 {
			v += float64(room) * prices[d]
		}
	}
	for _, i := range kind.allowed {
		fit := fitCount(items[i].requests, kind.room, nil)
		switch {
		case duals[i] > top*1e-6:
			cost := 0.0
			for d, r := range items[i].requests {
				if r > 0 {
					cost += float64(r) * prices[d]
				}
			}
			if gap := duals[i] - cost; gap > 0 {
				v += gap * float64(min(fit, items[i].count))
			}
		case duals[i] > 0:
			v += duals[i] * float64(fit)
		}
	}
	return v
}
