package replay_test

import (
	"os"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/internal/replaytrace"
	"github.com/nodeplan/nodeplan/replay"
	"github.com/nodeplan/nodeplan/scheduling"
)

// benchCluster is replaytrace's cluster: an empty on-demand NodePool of c, m and r types
// from the embedded AWS catalog, consolidating underutilized nodes after 5 minutes.
func benchCluster(tb testing.TB) disruption.Input {
	start, err := replaytrace.Cluster(t0)
	if err != nil {
		tb.Fatal(err)
	}
	return start
}

// BenchmarkReplayDay replays a generated day: 50 deployments on a diurnal curve and 200
// jobs, about 3,500 events and 5,000 pods at the peak (Day), the same on 16-cpu or 32-cpu
// nodes only (Day16cpu, 276 nodes at the peak; Day32cpu, 133: the "about 150 nodes"
// shape), or ten times the pods (Day32cpu10x, the 10×: 1,170 nodes at the peak;
// Day10x on every size).
// Besides time and memory it reports events and simulated hours per second, the replay's
// cost, peak, launches, evictions and pending p95, and the peak against a plan of the
// peak workload from scratch.
//
// The day takes about 20 s on 2 cores (disruption.Decide on a cluster of several hundred
// nodes, thousands of times: hundreds of thousands of what-ifs, most of them answered from
// the scheduler's first round without a solve), Day16cpu 5.5 s, Day32cpu 3.4-4.2 s,
// Day32cpu10x 31-37 s (the host varies by a third from one hour to the next), and Day10x
// hours, past go test's default timeout, so they run
// only when asked: NODEPLAN_REPLAY_DAY=1 for all but Day10x, NODEPLAN_REPLAY_DAY=10x for all,
// with -timeout to match (go test -run '^$' -bench ReplayDay -benchtime 1x -timeout 3h
// ./replay).
// BenchmarkReplayMorning is the slice that always runs.
func BenchmarkReplayDay(b *testing.B) {
	asked := os.Getenv("NODEPLAN_REPLAY_DAY")
	for _, bc := range []struct {
		name  string
		scale int
		// cpus, when set, narrows the NodePool to types of that many cpus.
		cpus  string
		runIf []string
	}{
		{"Day", 1, "", []string{"1", "10x"}},
		// Nearer the "about 150 nodes" at the peak: 16-cpu nodes (260 at the peak), and
		// 32-cpu nodes (136 at the peak: the shape).
		{"Day16cpu", 1, "16", []string{"1", "10x"}},
		{"Day32cpu", 1, "32", []string{"1", "10x"}},
		// The ten times: 50,000 pods at the peak on 32-cpu nodes (1,198 of them).
		{"Day32cpu10x", 10, "32", []string{"1", "10x"}},
		{"Day10x", 10, "", []string{"10x"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			if !slices.Contains(bc.runIf, asked) {
				b.Skipf("set NODEPLAN_REPLAY_DAY=%s to replay it (minutes; Day10x hours)", bc.runIf[0])
			}
			tr := replaytrace.NewDay(t0, bc.scale)
			start := benchCluster(b)
			if bc.cpus != "" {
				start = withInstanceCPU(start, bc.cpus)
			}
			var res replay.Result
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				var err error
				if res, err = replay.Run(start, tr.Events, replay.Options{}); err != nil {
					b.Fatal(err)
				}
			}
			elapsed := b.Elapsed().Seconds() / float64(b.N)
			b.ReportMetric(float64(len(tr.Events))/elapsed, "events/s")
			b.ReportMetric(res.End.Sub(res.Start).Hours()/elapsed, "simhours/s")
			b.ReportMetric(res.Summary.TotalCost, "$total")
			b.ReportMetric(res.Summary.PeakHourlyCost, "$/h-peak")
			b.ReportMetric(float64(res.Summary.PeakNodes), "nodes-peak")
			b.ReportMetric(float64(res.Summary.Launched), "launched")
			b.ReportMetric(float64(res.Summary.PodsEvicted), "evicted")
			b.ReportMetric(res.Summary.PendingSeconds.P95, "pending-p95-s")
			checkInvariants(b, res)
			// Consolidation should keep the peak within about 1.3× of a plan of the peak
			// workload from scratch.
			plan, err := scheduling.Solve(scheduling.Input{Pods: tr.Peak, NodePools: start.NodePools})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(plan.Summary.HourlyCost, "$/h-plan-of-peak")
			b.ReportMetric(res.Summary.PeakHourlyCost/plan.Summary.HourlyCost, "peak/plan")
		})
	}
}

// withInstanceCPU narrows the start's NodePools to instance types of cpus cpus.
func withInstanceCPU(start disruption.Input, cpus string) disruption.Input {
	pools := make([]*scheduling.NodePool, len(start.NodePools))
	for i, np := range start.NodePools {
		cp := *np
		cp.Requirements = append(slices.Clip(np.Requirements), scheduling.NodeSelectorRequirementWithMinValues{
			NodeSelectorRequirement: corev1.NodeSelectorRequirement{Key: "karpenter.k8s.aws/instance-cpu", Operator: corev1.NodeSelectorOpIn, Values: []string{cpus}}})
		pools[i] = &cp
	}
	start.NodePools = pools
	return start
}
