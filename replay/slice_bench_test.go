package replay_test

import (
	"testing"
	"time"

	"github.com/nodeplan/nodeplan/internal/replaytrace"
	"github.com/nodeplan/nodeplan/replay"
)

// BenchmarkReplayMorning replays the first three hours of BenchmarkReplayDay's day, with the
// replay bounded there too: a slice that shows the loop's costs in seconds rather than
// minutes.
func BenchmarkReplayMorning(b *testing.B) { benchmarkSlice(b, 3*time.Hour, 1) }

// BenchmarkReplayMorning10x is Morning at ten times the pods (BenchmarkReplayDay's Day10x,
// whose whole day takes hours): how the loop's costs grow with the cluster.
func BenchmarkReplayMorning10x(b *testing.B) { benchmarkSlice(b, 3*time.Hour, 10) }

// BenchmarkReplayForenoon replays the first six hours: the cluster grows from its quiet low
// to about 150 nodes, where disruption.Decide's simulations over the whole cluster start to
// dominate as they do at the day's peak (Morning's cluster stays under 30 nodes).
func BenchmarkReplayForenoon(b *testing.B) { benchmarkSlice(b, 6*time.Hour, 1) }

func benchmarkSlice(b *testing.B, span time.Duration, scale int) {
	end := t0.Add(span)
	events := replaytrace.NewDay(t0, scale).Until(end)
	start := benchCluster(b)
	var res replay.Result
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if res, err = replay.Run(start, events, replay.Options{Until: end}); err != nil {
			b.Fatal(err)
		}
	}
	elapsed := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(float64(len(events))/elapsed, "events/s")
	b.ReportMetric(res.End.Sub(res.Start).Hours()/elapsed, "simhours/s")
	b.ReportMetric(res.Summary.TotalCost, "$total")
	b.ReportMetric(float64(res.Summary.PodsEvicted), "evicted")
	b.ReportMetric(float64(res.Summary.PeakNodes), "nodes-peak")
}
