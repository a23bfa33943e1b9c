package scheduling_test

import (
	"fmt"
	"math/rand"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetype/synthetic"
	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

// mixedPods returns n plain pods whose requests are drawn (with a fixed seed) from 9 cpu sizes
// between 100m and 4 and 9 memory sizes between 128Mi and 8Gi: 81 shapes, cpu-heavy and
// memory-heavy ones mixed, as a cluster's deployments are.
func mixedPods(n int) []*corev1.Pod {
	cpus := []string{"100m", "250m", "500m", "750m", "1", "1500m", "2", "3", "4"}
	mems := []string{"128Mi", "256Mi", "512Mi", "1Gi", "2Gi", "3Gi", "4Gi", "6Gi", "8Gi"}
	r := rand.New(rand.NewSource(42))
	out := make([]*corev1.Pod, n)
	for i := range out {
		out[i] = tb.Pod(fmt.Sprintf("web-%d", i)).CPU(cpus[r.Intn(len(cpus))]).Memory(mems[r.Intn(len(mems))]).Obj()
	}
	return out
}

// BenchmarkSolvePlainPods plans plain pods of mixed sizes on the synthetic catalog (390 types,
// 3 zones, on-demand and spot) with one NodePool, reporting throughput, the plan's size and
// cost, and how far the cost is above the fluid lower bound.
func BenchmarkSolvePlainPods(b *testing.B) {
	catalog := synthetic.Default()
	for _, n := range []int{1_000, 10_000, 50_000} {
		b.Run(fmt.Sprintf("pods=%d", n), func(b *testing.B) {
			in := scheduling.Input{
				Pods:      mixedPods(n),
				NodePools: pools(tb.NodePool("default", catalog.InstanceTypes...).Obj()),
			}
			b.ReportAllocs()
			b.ResetTimer()
			var plan scheduling.Plan
			for i := 0; i < b.N; i++ {
				var err error
				if plan, err = scheduling.Solve(in); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			if plan.Summary.Placed != n {
				b.Fatalf("placed %d of %d pods", plan.Summary.Placed, n)
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "pods/sec")
			b.ReportMetric(float64(plan.Summary.NewNodes), "nodes")
			b.ReportMetric(plan.Summary.HourlyCost, "$/h")
			b.ReportMetric(plan.Summary.LowerBound, "lowerbound$/h")
			b.ReportMetric(plan.Summary.HourlyCost/plan.Summary.LowerBound, "cost/lowerbound")
		})
	}
}
