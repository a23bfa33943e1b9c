package scheduling_test

import (
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/internal/replaytrace"
	"github.com/nodeplan/nodeplan/scheduling"
)

// peakCluster is the cluster of replaytrace's day at its peak, built as a replay grows it:
// the peak pods arrive a few at a time (batch per Simulate and Apply), so that each batch
// launches its own small nodes, which are then all initialized.
func peakCluster(b *testing.B, batch int) *scheduling.Cluster {
	start := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	base, err := replaytrace.Cluster(start)
	if err != nil {
		b.Fatal(err)
	}
	c, err := scheduling.Prepare(scheduling.Input{NodePools: base.NodePools})
	if err != nil {
		b.Fatal(err)
	}
	peak := replaytrace.NewDay(start, 1).Peak
	var starting []string
	for i := 0; i < len(peak); i += batch {
		change := scheduling.Change{AddPods: peak[i:min(i+batch, len(peak))], Initialize: starting}
		plan, err := c.Simulate(change, scheduling.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := c.Apply(change, plan); err != nil {
			b.Fatal(err)
		}
		starting = starting[:0]
		for _, nc := range plan.NodeClaims {
			starting = append(starting, nc.Name)
		}
	}
	change := scheduling.Change{Initialize: starting}
	plan, err := c.Simulate(change, scheduling.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if err := c.Apply(change, plan); err != nil {
		b.Fatal(err)
	}
	return c
}

// BenchmarkSimulatePeakRemoveEach is consolidation's what-if at the peak of replaytrace's day
// (5,000 pods on several hundred nodes): each node in turn taken away and its pods placed
// elsewhere, as disruption simulates every candidate. A Simulate that costs the whole cluster
// makes a pass over the candidates quadratic in the nodes.
func BenchmarkSimulatePeakRemoveEach(b *testing.B) {
	c := peakCluster(b, 7)
	names := nodeNames(c)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		change := scheduling.Change{RemoveNodes: []string{names[i%len(names)]}}
		if _, err := c.Simulate(change, scheduling.Options{SkipLowerBound: true}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(names)), "nodes")
}

// BenchmarkSimulatePeakStarting is the same what-if while the cluster grows, as a replay
// decides between launches: a few nodes still starting (launched for the last batch of pods)
// and a dozen pods pending. A decision that only needs its commands stops a simulation at the
// first displaced pod that would move to a starting node (StopOnUninitialized), so most
// simulations end early and what they cost is mostly setting the solve up.
func BenchmarkSimulatePeakStarting(b *testing.B) {
	c := peakCluster(b, 7)
	names := nodeNames(c)
	peak := replaytrace.NewDay(time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC), 1).Peak
	more := make([]*corev1.Pod, 52)
	for i := range more {
		p := *peak[(i*97)%len(peak)]
		p.Name += "-more"
		more[i] = &p
	}
	launch := scheduling.Change{AddPods: more[:40]}
	plan, err := c.Simulate(launch, scheduling.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if err := c.Apply(launch, plan); err != nil {
		b.Fatal(err)
	}
	// The starting nodes keep a few of their pods, as replacements do whose candidates have
	// not drained yet: room that most displaced pods find before any new node.
	var leave []string
	for _, p := range more[:36] {
		leave = append(leave, p.Namespace+"/"+p.Name)
	}
	if err := c.Apply(scheduling.Change{AddPods: more[40:], RemovePods: leave}, scheduling.Plan{}); err != nil {
		b.Fatal(err)
	}
	stopped := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		change := scheduling.Change{RemoveNodes: []string{names[i%len(names)]}}
		_, err := c.Simulate(change, scheduling.Options{SkipLowerBound: true, StopOnUninitialized: true})
		var uninit *scheduling.UninitializedError
		switch {
		case errors.As(err, &uninit):
			stopped++
		case err != nil:
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(names)), "nodes")
	b.ReportMetric(float64(len(plan.NodeClaims)), "starting")
	b.ReportMetric(float64(stopped)/float64(b.N), "stopped/op")
}

func nodeNames(c *scheduling.Cluster) []string {
	nodes := c.Input().ExistingNodes
	names := make([]string, len(nodes))
	for i, en := range nodes {
		names[i] = en.Node.Name
	}
	return names
}
