package scheduling_test

import (
	"fmt"
	"math/rand"
	"runtime"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetype/synthetic"
	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

// diverseWorkload is shaped like Karpenter's scheduling benchmark (makeDiversePods): five
// equal groups — plain; zonal spread (maxSkew 1, DoNotSchedule); hostname spread; required
// zonal pod affinity; required hostname pod anti-affinity. Every pod carries a random value of
// my-label and every rule selects a random value of it, independent of the pod's own, so a
// rule counts pods of other groups and pods with no rule at all.
func diverseWorkload(n int) []*corev1.Pod {
	r := rand.New(rand.NewSource(int64(n)))
	cpus := []string{"100m", "250m", "500m", "1", "1500m", "2"}
	mems := []string{"128Mi", "256Mi", "512Mi", "1Gi", "2Gi", "4Gi"}
	value := func() map[string]string { return map[string]string{"my-label": fmt.Sprintf("v%d", r.Intn(7))} }
	out := make([]*corev1.Pod, 0, n)
	for i := 0; i < n; i++ {
		group := []string{"plain", "zonal", "hostspread", "affine", "anti"}[i%5]
		b := tb.Pod(fmt.Sprintf("%s-%d", group, i/5)).Label("my-label", fmt.Sprintf("v%d", r.Intn(7))).
			CPU(cpus[r.Intn(len(cpus))]).Memory(mems[r.Intn(len(mems))])
		switch group {
		case "zonal":
			b.SpreadSelecting(zoneKey, 1, corev1.DoNotSchedule, value())
		case "hostspread":
			b.SpreadSelecting(hostKey, 1, corev1.DoNotSchedule, value())
		case "affine":
			b.Affinity(zoneKey, value())
		case "anti":
			b.AntiAffinity(hostKey, value())
		}
		out = append(out, b.Obj())
	}
	return out
}

// preferencesWorkload is n identical pods, each preferring zone 1 by node affinity and
// preferring zone and hostname anti-affinity against its own label.
func preferencesWorkload(n int, zone string) []*corev1.Pod {
	own := map[string]string{"app": "pref"}
	return tb.Pod("pref").Label("app", "pref").CPU("250m").Memory("512Mi").
		PreferredTerm(50, tb.In(zoneKey, zone)).
		PreferredAntiAffinity(100, zoneKey, own).
		PreferredAntiAffinity(50, hostKey, own).
		Replicas(n)
}

func benchmarkSolve(b *testing.B, pods []*corev1.Pod) {
	cat := synthetic.Default()
	benchmarkInput(b, scheduling.Input{Pods: pods, NodePools: []*scheduling.NodePool{tb.NodePool("default", cat.InstanceTypes...).Obj()}})
}

// benchmarkInput solves in b.N times, reporting throughput, the plan's size, cost and bound.
func benchmarkInput(b *testing.B, in scheduling.Input) {
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
	b.ReportMetric(float64(len(in.Pods))*float64(b.N)/b.Elapsed().Seconds(), "pods/s")
	b.ReportMetric(float64(plan.Summary.NewNodes), "nodes")
	b.ReportMetric(plan.Summary.HourlyCost, "$/h")
	b.ReportMetric(float64(len(plan.Unschedulable)), "unschedulable")
	b.ReportMetric(plan.Summary.LowerBound, "bound$/h")
}

func BenchmarkTopologyDiverse(b *testing.B) {
	for _, n := range []int{1000, 5000, 20000} {
		b.Run(fmt.Sprintf("pods=%d", n), func(b *testing.B) { benchmarkSolve(b, diverseWorkload(n)) })
	}
}

func BenchmarkTopologyPreferences(b *testing.B) {
	zone := synthetic.Default().InstanceTypes[0].Offerings[0].Zone
	b.Run("pods=4000", func(b *testing.B) { benchmarkSolve(b, preferencesWorkload(4000, zone)) })
}
