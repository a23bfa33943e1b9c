package bound_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/nodeplan/nodeplan/bound"
	"github.com/nodeplan/nodeplan/internal/resources"
)

// benchInput is items groups of pods (counts up to 400) of random sizes in one or two
// classes, on a catalog of 3 families × 8 sizes sold on-demand and on spot (48 kinds), the
// second class barred from spot.
func benchInput(items int) bound.Input {
	r := rand.New(rand.NewPCG(uint64(items), 1))
	in := bound.Input{Classes: 2}
	for f, memPerCPU := range []int64{2, 4, 8} {
		for size := range int64(8) {
			cpu := int64(2000) << size
			room := resources.Vector{cpu - 100, cpu/1000*memPerCPU<<30*1000 - 1<<30*1000, (29 + 8*size) * 1000}
			onDemand := float64(cpu) / 1000 * 0.02 * float64(1+f) / 2
			in.Kinds = append(in.Kinds,
				bound.Kind{Type: fmt.Sprintf("f%d.%d", f, size), Room: room, Price: onDemand, ClassPrices: []float64{onDemand, onDemand}},
				bound.Kind{Type: fmt.Sprintf("f%d.%d", f, size), Room: room, Price: onDemand * 0.35, ClassPrices: []float64{onDemand * 0.35, -1}})
		}
	}
	for i := range items {
		cpu := []int64{100, 250, 500, 1000, 2000}[r.IntN(5)]
		mem := []int64{128, 512, 1024, 4096}[r.IntN(4)] << 20 * 1000
		in.Pods = append(in.Pods, bound.Pods{Class: i % 2, Requests: resources.Vector{cpu, mem, 1000}, Count: 1 + r.IntN(400)})
	}
	return in
}

// BenchmarkLower is the whole bound on inputs the pattern bound takes (up to 32 groups of
// pods) and one it leaves to the others; "exclusive" puts every pod in a set that may not
// share nodes (as a required hostname anti-affinity does), so that the fluid bound's node per
// pod beats any packing and the pattern bound is skipped.
func BenchmarkLower(b *testing.B) {
	for _, items := range []int{4, 16, 32, 64, -32} {
		in := benchInput(max(items, -items))
		name := fmt.Sprintf("items=%d", items)
		if items < 0 {
			var set bound.Exclusive
			for i, p := range in.Pods {
				set.Members = append(set.Members, bound.Member{Pods: i, Count: p.Count})
			}
			in.Exclusive = []bound.Exclusive{set}
			name = fmt.Sprintf("items=%d,exclusive", -items)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var v float64
			for b.Loop() {
				v = bound.Lower(in)
			}
			b.ReportMetric(v, "bound$/h")
			b.ReportMetric(bound.Fluid(in), "fluid$/h")
		})
	}
}
