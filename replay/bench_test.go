package replay_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/cmd/nodeplan/app"
	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/manifest"
	"github.com/nodeplan/nodeplan/replay"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduling"
)

// dayTrace is a generated day of a cluster: deployments on a diurnal curve (quiet at 03:00,
// busiest at 15:00), scaled every 20 minutes, and jobs through the day. scale multiplies the
// replicas: at 1 there are about 5,000 pods at the peak.
type dayTrace struct {
	events []replay.Event
	// peak are the pods of every deployment at its largest replica count.
	peak []*corev1.Pod
}

func newDayTrace(tb testing.TB, times int) dayTrace {
	rng := rand.New(rand.NewPCG(19, 2026))
	// About half a cpu a pod on average: 5,000 pods fill about 150 nodes of 16 cpus.
	sizes := []struct{ cpu, memory string }{{"100m", "256Mi"}, {"250m", "512Mi"}, {"500m", "1Gi"}, {"500m", "2Gi"}, {"1", "2Gi"}, {"1", "4Gi"}}
	var tr dayTrace
	const deployments, jobs = 50, 200
	for i := range deployments {
		size := sizes[rng.IntN(len(sizes))]
		peak := (40 + rng.IntN(120)) * times
		d := deployment(fmt.Sprintf("svc-%02d", i), 0, size.cpu)
		d.Spec.Template.Spec.Containers[0].Resources.Requests[corev1.ResourceMemory] = mustQuantity(size.memory)
		replicasAt := func(t time.Duration) int32 {
			phase := 2 * math.Pi * (t.Hours() - 15) / 24 // t from 00:00: highest at 15:00, lowest at 03:00
			level := 0.55 + 0.45*math.Cos(phase)
			return int32(math.Round(float64(peak) * level))
		}
		first := replicasAt(0)
		d.Spec.Replicas = &first
		offset := time.Duration(rng.IntN(1200)) * time.Second
		tr.events = append(tr.events, create(offset/20, d))
		last := first
		for t := offset; t < 24*time.Hour; t += 20 * time.Minute {
			if r := replicasAt(t); r != last {
				tr.events = append(tr.events, scale(t, d.Name, r))
				last = r
			}
		}
		p, err := deploymentPod(d)
		if err != nil {
			tb.Fatal(err)
		}
		for k := range peak {
			pod := *p
			pod.Name = fmt.Sprintf("%s-%d", d.Name, k)
			tr.peak = append(tr.peak, &pod)
		}
	}
	for i := range jobs {
		size := sizes[rng.IntN(len(sizes))]
		j := job(fmt.Sprintf("job-%03d", i), int32(1+rng.IntN(5)*times), size.cpu)
		ev := create(time.Duration(rng.IntN(23*3600))*time.Second, j)
		ev.Duration = time.Duration(5+rng.IntN(55)) * time.Minute
		tr.events = append(tr.events, ev)
	}
	slices.SortStableFunc(tr.events, func(a, b replay.Event) int { return a.Time.Compare(b.Time) })
	return tr
}

// benchCluster is an empty cluster with one on-demand NodePool of c, m and r types from the
// embedded AWS catalog, consolidating underutilized nodes after 5 minutes.
func benchCluster(tb testing.TB) disruption.Input {
	cat, err := app.LoadCatalog("aws", "us-west-2")
	if err != nil {
		tb.Fatal(err)
	}
	np := manifest.DefaultNodePool()
	np.InstanceTypes = cat.InstanceTypes
	five := 5 * time.Minute
	np.Disruption.ConsolidateAfter = &five
	np.Requirements = []scheduling.NodeSelectorRequirementWithMinValues{
		{NodeSelectorRequirement: corev1.NodeSelectorRequirement{Key: requirements.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: []string{"on-demand"}}},
		{NodeSelectorRequirement: corev1.NodeSelectorRequirement{Key: "karpenter.k8s.aws/instance-category", Operator: corev1.NodeSelectorOpIn, Values: []string{"c", "m", "r"}}},
	}
	return disruption.Input{NodePools: []*scheduling.NodePool{np}, Now: t0}
}

// BenchmarkReplayDay replays a generated day: 50 deployments on a diurnal curve and 200
// jobs, about 3,500 events and 5,000 pods at the peak (Day) or ten times the pods (Day10x).
// Besides time and memory it reports events and simulated hours per second, the replay's
// cost, peak, launches, evictions and pending p95, and the peak against a plan of the
// peak workload from scratch.
//
// The day still takes tens of minutes (disruption.Decide on a cluster of several hundred
// nodes, a few thousand times), more than go test's default timeout, so it runs only when
// asked: NODEPLAN_REPLAY_DAY=1 for Day, NODEPLAN_REPLAY_DAY=10x for both, with -timeout to
// match (go test -run '^$' -bench ReplayDay -benchtime 1x -timeout 3h ./replay).
// BenchmarkReplayMorning is the slice that always runs.
func BenchmarkReplayDay(b *testing.B) {
	asked := os.Getenv("NODEPLAN_REPLAY_DAY")
	for _, bc := range []struct {
		name  string
		scale int
		runIf []string
	}{{"Day", 1, []string{"1", "10x"}}, {"Day10x", 10, []string{"10x"}}} {
		b.Run(bc.name, func(b *testing.B) {
			if !slices.Contains(bc.runIf, asked) {
				b.Skipf("set NODEPLAN_REPLAY_DAY=%s to replay it (tens of minutes)", bc.runIf[0])
			}
			tr := newDayTrace(b, bc.scale)
			start := benchCluster(b)
			var res replay.Result
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				var err error
				if res, err = replay.Run(start, tr.events, replay.Options{}); err != nil {
					b.Fatal(err)
				}
			}
			elapsed := b.Elapsed().Seconds() / float64(b.N)
			b.ReportMetric(float64(len(tr.events))/elapsed, "events/s")
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
			plan, err := scheduling.Solve(scheduling.Input{Pods: tr.peak, NodePools: start.NodePools})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(plan.Summary.HourlyCost, "$/h-plan-of-peak")
			b.ReportMetric(res.Summary.PeakHourlyCost/plan.Summary.HourlyCost, "peak/plan")
		})
	}
}
