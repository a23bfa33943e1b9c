package scheduling_test

import (
	"fmt"
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
	benchmarkInput(b, in)
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

// BenchmarkPrepareKarpenter prepares one pod over Karpenter's 400 fake instance types: the
// NodePool's preparation every Solve and every `nodeplan plan` starts with.
func BenchmarkPrepareKarpenter(b *testing.B) {
	in := scheduling.Input{
		Pods:      karpenterload.New(1).Diverse(1),
		NodePools: []*scheduling.NodePool{{Name: "default", InstanceTypes: karpenterload.FakeCatalog(400)}},
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := scheduling.Prepare(in); err != nil {
			b.Fatal(err)
		}
	}
}
