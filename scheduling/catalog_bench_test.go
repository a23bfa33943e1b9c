package scheduling_test

import (
	"fmt"
	"testing"

	"github.com/nodeplan/nodeplan/instancetype/aws"
	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

// BenchmarkSolveAWSCatalog plans the same mixed plain pods on the real us-west-2 catalog (856
// types, burstable and memory-optimised giants included), where a first-fit that lets nodes
// grow into any type that still fits ends on u-* instances; the cost shows it does not.
func BenchmarkSolveAWSCatalog(b *testing.B) {
	catalog, err := aws.Catalog("us-west-2")
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1_000, 10_000} {
		b.Run(fmt.Sprintf("pods=%d", n), func(b *testing.B) {
			in := scheduling.Input{Pods: mixedPods(n), NodePools: pools(tb.NodePool("default", catalog.InstanceTypes...).Obj())}
			b.ReportAllocs()
			b.ResetTimer()
			var plan scheduling.Plan
			for i := 0; i < b.N; i++ {
				if plan, err = scheduling.Solve(in); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "pods/sec")
			b.ReportMetric(float64(plan.Summary.NewNodes), "nodes")
			b.ReportMetric(plan.Summary.HourlyCost, "$/h")
			b.ReportMetric(plan.Summary.LowerBound, "lowerbound$/h")
		})
	}
}
