package bound

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nodeplan/nodeplan/internal/resources"
)

// TestLowerIsTrue compares every bound with the exact optimum, found by trying every
// partition of the pods into nodes, on small random inputs: classes that may use some kinds
// at some prices, pods of a few shapes, and exclusive sets. A node of a kind holding pods of
// several classes costs at least the highest of their class prices (the price of an offering
// all of them allow), which the optimum pays; no bound may exceed it. (The scheduler's own
// TestLowerBoundIsTrue checks the same end to end, from pods and instance types.)
func TestLowerIsTrue(t *testing.T) {
	cpus := []int64{100, 250, 500, 1000, 1500, 3000}
	mems := []int64{64, 256, 1024, 3072, 6144} // Mi
	tight, compared, ratios := 0, 0, 0.0
	for seed := range uint64(2000) {
		r := rand.New(rand.NewPCG(seed, 23))
		in := Input{Classes: 1 + r.IntN(3)}
		for i := range 2 + r.IntN(4) {
			room := resources.Vector{1000 << r.IntN(4), 512 << r.IntN(5), int64(2+r.IntN(8)) * 1000}
			price := 0.01 + float64(r.IntN(100))/100
			kind := Kind{Type: string(rune('a' + i)), Room: room, Price: price, ClassPrices: make([]float64, in.Classes)}
			for c := range kind.ClassPrices {
				switch r.IntN(4) {
				case 0:
					kind.ClassPrices[c] = -1
				case 1:
					kind.ClassPrices[c] = price * (1 + r.Float64())
				default:
					kind.ClassPrices[c] = price
				}
			}
			in.Kinds = append(in.Kinds, kind)
			if r.IntN(3) == 0 { // the same type at another capacity type
				spot := kind
				spot.Price = price * (0.2 + 0.6*r.Float64())
				spot.ClassPrices = make([]float64, in.Classes)
				for c := range spot.ClassPrices {
					spot.ClassPrices[c] = -1
					if r.IntN(2) == 0 {
						spot.ClassPrices[c] = spot.Price
					}
				}
				in.Kinds = append(in.Kinds, spot)
			}
		}
		total := 1 + r.IntN(7)
		for left := total; left > 0; {
			n := 1 + r.IntN(left)
			left -= n
			in.Pods = append(in.Pods, Pods{Class: r.IntN(in.Classes), Requests: resources.Vector{cpus[r.IntN(len(cpus))], mems[r.IntN(len(mems))], 1000}, Count: n})
		}
		for range r.IntN(3) {
			var set Exclusive
			for i, p := range in.Pods {
				if r.IntN(2) == 0 {
					set.Members = append(set.Members, Member{Pods: i, Count: 1 + r.IntN(p.Count)})
				}
			}
			in.Exclusive = append(in.Exclusive, set)
		}
		if err := in.Validate(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		opt := exactOptimum(in)
		if math.IsInf(opt, 1) {
			continue // some pod fits no kind, or exclusive pods cannot be placed apart
		}
		for name, b := range map[string]float64{"fluid": Fluid(in), "alone": Alone(in), "patterns": Patterns(in), "lower": Lower(in)} {
			if b > opt+1e-9 {
				t.Fatalf("seed %d: the %s bound %v exceeds the optimum %v", seed, name, b, opt)
			}
		}
		if low := Lower(in); opt > 0 {
			compared++
			ratios += low / opt
			if low >= 0.8*opt {
				tight++
			}
		}
	}
	t.Logf("%d inputs: the bound is on average %.0f%% of the optimum, within 80%% of it on %d", compared, 100*ratios/float64(compared), tight)
	if compared < 1200 || tight < compared/2 {
		t.Fatalf("%d inputs compared, %d within 80%%: the test lost its power", compared, tight)
	}
}

// exactOptimum is the cheapest way to put the pods on nodes: every partition of them with no
// two pods of an exclusive set in a block, each block on the kind that fits it (requests
// within room, every class allowed) at the lowest of the highest class price among its pods.
func exactOptimum(in Input) float64 {
	var class []int
	var requests []resources.Vector
	var sets [][]int // per pod, the exclusive sets it is in
	for i, p := range in.Pods {
		for k := range p.Count {
			var mine []int
			for e, set := range in.Exclusive {
				for _, m := range set.Members {
					if m.Pods == i && k < m.Count {
						mine = append(mine, e)
					}
				}
			}
			class = append(class, p.Class)
			requests = append(requests, p.Requests)
			sets = append(sets, mine)
		}
	}
	blockCost := func(block []int) float64 {
		for a, i := range block {
			for _, j := range block[a+1:] {
				for _, e := range sets[i] {
					for _, f := range sets[j] {
						if e == f {
							return math.Inf(1)
						}
					}
				}
			}
		}
		sum := make(resources.Vector, len(requests[0]))
		for _, i := range block {
			sum.Add(requests[i])
		}
		best := math.Inf(1)
		for _, k := range in.Kinds {
			if !sum.Fits(k.Room) {
				continue
			}
			price := k.Price
			for _, i := range block {
				price = max(price, k.ClassPrices[class[i]])
				if k.ClassPrices[class[i]] < 0 {
					price = math.Inf(1)
				}
			}
			best = min(best, price)
		}
		return best
	}
	best := math.Inf(1)
	var blocks [][]int
	var walk func(i int, cost float64)
	walk = func(i int, cost float64) {
		if cost >= best {
			return
		}
		if i == len(requests) {
			best = cost
			return
		}
		for b := range blocks {
			old := blockCost(blocks[b])
			blocks[b] = append(blocks[b], i)
			walk(i+1, cost-old+blockCost(blocks[b]))
			blocks[b] = blocks[b][:len(blocks[b])-1]
		}
		blocks = append(blocks, []int{i})
		walk(i+1, cost+blockCost([]int{i}))
		blocks = blocks[:len(blocks)-1]
	}
	walk(0, 0)
	return best
}
