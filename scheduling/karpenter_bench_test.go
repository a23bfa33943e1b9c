package scheduling_test

import (
	"fmt"
	"runtime"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/internal/karpenterload"
	"github.com/nodeplan/nodeplan/scheduling"
)

// benchmarkKarpenterWorkload plans pods as conformance/karpentercmp's runNodeplan does next to
// Karpenter: one NodePool without requirements over Karpenter's 400 fake instance types,
// instance prices only.
func benchmarkKarpenterWorkload(b *testing.B, pods []*corev1.Pod) {
	in := scheduling.Input{
		Pods:      pods,
		NodePools: []*scheduling.NodePool{{Name: "default", InstanceTypes: karpenterload.FakeCatalog(400)}},
		Options:   scheduling.Options{NodeCost: -1},
	}
	runtime.GC()
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
	b.ReportMetric(float64(len(pods))*float64(b.N)/b.Elapsed().Seconds(), "pods/s")
	b.ReportMetric(float64(plan.Summary.NewNodes), "nodes")
	b.ReportMetric(plan.Summary.HourlyCost, "$/h")
	b.ReportMetric(float64(len(plan.Unschedulable)), "unschedulable")
}

// BenchmarkSolveKarpenterDiverse plans Karpenter's own benchmark workload, makeDiversePods
// (seed 1), whose required hostname anti-affinity group needs one node per pod: 4,000 nodes
// at 20,000 pods. conformance/karpentercmp runs Karpenter on the same pods.
func BenchmarkSolveKarpenterDiverse(b *testing.B) {
	for _, n := range []int{1000, 5000, 20000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			benchmarkKarpenterWorkload(b, karpenterload.New(1).Diverse(n))
		})
	}
}

// BenchmarkSolveKarpenterPreferences plans Karpenter's makePreferencePods(4000) (seed 1).
func BenchmarkSolveKarpenterPreferences(b *testing.B) {
	b.Run("4000", func(b *testing.B) {
		benchmarkKarpenterWorkload(b, karpenterload.New(1).Preferences(4000))
	})
}
