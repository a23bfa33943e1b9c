package scheduling_test

import (
	"fmt"
	"runtime"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetype/synthetic"
	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

// diverseWorkload is five equal groups: plain; zonal spread (maxSkew 1, DoNotSchedule);
// hostname spread; zonal self pod-affinity; hostname anti-affinity on a shared label.
func diverseWorkload(n int) []*corev1.Pod {
	out := make([]*corev1.Pod, 0, n)
	for i := 0; i < n/5; i++ {
		out = append(out,
			tb.Pod(fmt.Sprintf("plain-%d", i)).CPU("500m").Memory("1Gi").Obj(),
			tb.Pod(fmt.Sprintf("zonal-%d", i)).Label("app", "zonal").CPU("500m").Memory("1Gi").ZoneSpread(1).Obj(),
			tb.Pod(fmt.Sprintf("hostspread-%d", i)).Label("app", "hostspread").CPU("500m").Memory("1Gi").HostnameSpread(1).Obj(),
			tb.Pod(fmt.Sprintf("affine-%d", i)).Label("app", "affine").CPU("500m").Memory("1Gi").Affinity(zoneKey, map[string]string{"app": "affine"}).Obj(),
			tb.Pod(fmt.Sprintf("anti-%d", i)).Label("shared", "anti").CPU("500m").Memory("1Gi").AntiAffinity(hostKey, map[string]string{"shared": "anti"}).Obj(),
		)
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
	pools := []*scheduling.NodePool{tb.NodePool("default", cat.InstanceTypes...).Obj()}
	runtime.GC()
	b.ReportAllocs()
	b.ResetTimer()
	var plan scheduling.Plan
	for i := 0; i < b.N; i++ {
		var err error
		if plan, err = scheduling.Solve(scheduling.Input{Pods: pods, NodePools: pools}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(pods))*float64(b.N)/b.Elapsed().Seconds(), "pods/s")
	b.ReportMetric(float64(plan.Summary.NewNodes), "nodes")
	b.ReportMetric(plan.Summary.HourlyCost, "$/h")
	b.ReportMetric(float64(len(plan.Unschedulable)), "unschedulable")
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
