package suite

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/nodeplan/nodeplan/conformance/workload"
	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/scheduling"
)

// BenchmarkDiverse solves the benchmark-shaped workload (Karpenter's makeDiversePods, rules
// seeing every kind of pod) on Karpenter's fake 400-type catalog, reporting pods/s, nodes,
// $/h and the lower bound.
func BenchmarkDiverse(b *testing.B) {
	for _, n := range []int{1000, 5000, 20000} {
		b.Run(fmt.Sprintf("pods=%d", n), func(b *testing.B) {
			in := workload.DiverseInput(rand.New(rand.NewPCG(1, 0)), n)
			in.Options.NodeCost = -1 // instance prices only, as Karpenter compares
			b.ReportAllocs()
			b.ResetTimer()
			var plan scheduling.Plan
			for i := 0; i < b.N; i++ {
				var err error
				if plan, err = scheduling.Solve(in); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "pods/s")
			b.ReportMetric(float64(plan.Summary.NewNodes), "nodes")
			b.ReportMetric(plan.Summary.HourlyCost, "$/h")
			b.ReportMetric(plan.Summary.LowerBound, "bound$/h")
			b.ReportMetric(float64(len(plan.Unschedulable)), "unschedulable")
		})
	}
}

// BenchmarkDecideEdge decides on an edge cluster (workload.EdgeCluster), whose staying pods
// with required pod affinity Decide keeps valid, reporting moves and $/h saved.
func BenchmarkDecideEdge(b *testing.B) {
	for _, n := range []int{300, 1500} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			in, err := workload.EdgeCluster(rand.New(rand.NewPCG(1, 24)), n, edgeNow)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			var d disruption.Decisions
			for i := 0; i < b.N; i++ {
				if d, err = disruption.Decide(in); err != nil {
					b.Fatal(err)
				}
			}
			moves, saved := 0, 0.0
			for _, c := range d.Commands {
				moves += len(c.Moves)
				saved += c.Savings
			}
			b.ReportMetric(float64(moves), "moves")
			b.ReportMetric(saved, "$/h-saved")
		})
	}
}
