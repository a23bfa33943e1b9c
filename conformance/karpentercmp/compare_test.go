package karpentercmp

import (
	"fmt"
	"math"
	"os"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/conformance/workload"
	"github.com/nodeplan/nodeplan/scheduling"
)

// workloadCase is one of Karpenter's benchmark workloads at one size and seed.
type workloadCase struct {
	name string
	seed uint64
	pods func(g *generator) []*corev1.Pod
}

func diverseCase(count int, seed uint64) workloadCase {
	return workloadCase{fmt.Sprintf("diverse-%d/seed%d", count, seed), seed, func(g *generator) []*corev1.Pod { return g.diverse(count) }}
}

func preferencesCase(count int, seed uint64) workloadCase {
	return workloadCase{fmt.Sprintf("preferences-%d/seed%d", count, seed), seed, func(g *generator) []*corev1.Pod { return g.preferences(count) }}
}

// runNodeplan plans pods on the same NodePool and catalog as runKarpenter: one NodePool
// without requirements over workload.FakeCatalog(400) (checked against Karpenter's
// fake.InstanceTypes(400) by TestCatalogIsKarpenters), instance prices only.
func runNodeplan(pods []*corev1.Pod, opts scheduling.Options) (outcome, scheduling.Plan, error) {
	in := scheduling.Input{
		Pods:      pods,
		NodePools: []*scheduling.NodePool{{Name: "default", InstanceTypes: workload.FakeCatalog(400)}},
		Options:   opts,
	}
	in.Options.NodeCost = -1 // instance prices only, as Karpenter prices its launches
	start := time.Now()
	plan, err := scheduling.Solve(in)
	if err != nil {
		return outcome{}, plan, err
	}
	return outcome{nodes: plan.Summary.NewNodes, cost: plan.Summary.HourlyCost, unschedulable: len(plan.Unschedulable), took: time.Since(start)}, plan, nil
}

// costTolerance is how far the karpenter strategy's $/h may be from Karpenter's: Karpenter
// itself varies about 1.5% from run to run on one input (it breaks ties by map order and
// its parallel workers' timing as well as by UID).
const costTolerance = 0.02

// TestMatchesKarpenter runs Karpenter's provisioning scheduler and nodeplan's karpenter
// strategy on the same pods and instance types, and requires the same node count and $/h
// within costTolerance. Karpenter is slow (seconds per 1,000 pods here, minutes at 5,000), so
// the default run takes the diverse workload at 1,000 pods and the preference workload at
// 400; KARPENTERCMP_FULL=1 adds the benchmark's sizes (diverse 5,000, preferences 4,000).
func TestMatchesKarpenter(t *testing.T) {
	cases := []workloadCase{diverseCase(1000, 1), diverseCase(1000, 2), preferencesCase(400, 1)}
	if os.Getenv("KARPENTERCMP_FULL") != "" {
		cases = append(cases, diverseCase(5000, 1), diverseCase(5000, 2), preferencesCase(4000, 1))
	} else if testing.Short() {
		cases = cases[:1]
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pods := c.pods(newGenerator(c.seed))
			want, err := runKarpenter(pods)
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := runNodeplan(pods, scheduling.Options{Strategy: scheduling.StrategyKarpenter})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("Karpenter: %s; --strategy karpenter: %s", want, got)
			if got.nodes != want.nodes || got.unschedulable != want.unschedulable {
				t.Errorf("karpenter strategy: %d nodes, %d unschedulable; Karpenter: %d nodes, %d unschedulable", got.nodes, got.unschedulable, want.nodes, want.unschedulable)
			}
			if off := math.Abs(got.cost-want.cost) / want.cost; off > costTolerance {
				t.Errorf("karpenter strategy costs $%.2f/h, Karpenter $%.2f/h: %.1f%% apart (at most %.0f%%)", got.cost, want.cost, 100*off, 100*costTolerance)
			}
		})
	}
}

// BenchmarkVersusKarpenter reports, per workload of Karpenter's benchmark, nodes and $/h of
// Karpenter's scheduler, of the karpenter strategy and of the cheapest strategy (with its
// lower bound). go test -run XXX -bench VersusKarpenter -benchtime 1x ./karpentercmp
// KARPENTERCMP_20K=1 adds the diverse workload at 20,000 pods, where Karpenter alone takes
// minutes.
func BenchmarkVersusKarpenter(b *testing.B) {
	cases := []workloadCase{diverseCase(1000, 1), diverseCase(5000, 1), preferencesCase(4000, 1)}
	if os.Getenv("KARPENTERCMP_20K") != "" {
		cases = append(cases, diverseCase(20000, 1))
	}
	for _, c := range cases {
		pods := c.pods(newGenerator(c.seed))
		b.Run(c.name+"/karpenter", func(b *testing.B) {
			var o outcome
			for i := 0; i < b.N; i++ {
				var err error
				if o, err = runKarpenter(pods); err != nil {
					b.Fatal(err)
				}
			}
			report(b, len(pods), o)
		})
		for _, s := range scheduling.Strategies {
			b.Run(c.name+"/nodeplan-"+string(s), func(b *testing.B) {
				var o outcome
				var plan scheduling.Plan
				for i := 0; i < b.N; i++ {
					var err error
					if o, plan, err = runNodeplan(pods, scheduling.Options{Strategy: s}); err != nil {
						b.Fatal(err)
					}
				}
				report(b, len(pods), o)
				b.ReportMetric(plan.Summary.LowerBound, "bound$/h")
			})
		}
	}
}

func report(b *testing.B, pods int, o outcome) {
	b.ReportMetric(float64(pods)*float64(b.N)/b.Elapsed().Seconds(), "pods/s")
	b.ReportMetric(float64(o.nodes), "nodes")
	b.ReportMetric(o.cost, "$/h")
	b.ReportMetric(float64(o.unschedulable), "unschedulable")
}
