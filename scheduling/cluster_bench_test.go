package scheduling_test

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetype/aws"
	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

// thousandNodes is a cluster of 1,000 m5.xlarge-sized nodes of one NodePool over the us-west-2
// catalog, each running 11 pods.
func thousandNodes(b *testing.B) scheduling.Input { return clusterOf(b, 1000) }

func clusterOf(b *testing.B, count int) scheduling.Input {
	cat, err := aws.Catalog("us-west-2")
	if err != nil {
		b.Fatal(err)
	}
	var ens []*scheduling.ExistingNode
	for i := 0; i < count; i++ {
		var running []*corev1.Pod
		for j := 0; j < 11; j++ {
			running = append(running, tb.Pod(fmt.Sprintf("app-%d-%d", i, j)).CPU("300m").Memory("1Gi").Obj())
		}
		ens = append(ens, tb.Node(fmt.Sprintf("node-%04d", i), "4", "16Gi", 58).NodePool("default").
			Zone([]string{"us-west-2a", "us-west-2b", "us-west-2c"}[i%3]).Pods(running...).Obj())
	}
	return scheduling.Input{NodePools: pools(tb.NodePool("default", cat.InstanceTypes...).Obj()), ExistingNodes: ens}
}

// BenchmarkSimulateRemoveNode is one consolidation what-if: take one node away and place its
// pods elsewhere, through a prepared Cluster.
func BenchmarkSimulateRemoveNode(b *testing.B) {
	c, err := scheduling.Prepare(thousandNodes(b))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.Simulate(scheduling.Change{RemoveNodes: []string{fmt.Sprintf("node-%04d", i%1000)}}, scheduling.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSolveRemoveNode is the same what-if solved from scratch, for comparison.
func BenchmarkSolveRemoveNode(b *testing.B) {
	in := thousandNodes(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c, err := scheduling.Prepare(in)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.Simulate(scheduling.Change{RemoveNodes: []string{fmt.Sprintf("node-%04d", i%1000)}}, scheduling.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSimulateRemoveNode5000 is the same what-if on 5,000 nodes and 55,000 pods.
func BenchmarkSimulateRemoveNode5000(b *testing.B) {
	c, err := scheduling.Prepare(clusterOf(b, 5000))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.Simulate(scheduling.Change{RemoveNodes: []string{fmt.Sprintf("node-%04d", i%5000)}}, scheduling.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkApplyReplayStep is what a replay applies between two decisions: a pod placed on
// a node, then a pod removed (a Job's pod done), each an Apply that finds the pod it names,
// on clusters of 150 and 1,500 nodes running 33 pods each (the replay's day, about 5,000
// pods, and ten times that).
func BenchmarkApplyReplayStep(b *testing.B) {
	for _, count := range []int{150, 1500} {
		b.Run(fmt.Sprintf("%dnodes", count), func(b *testing.B) { benchmarkApplyReplayStep(b, count) })
	}
}

func benchmarkApplyReplayStep(b *testing.B, count int) {
	c := replayStepCluster(b, count)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		key := placeJobPod(b, c, i, count)
		if err := c.Apply(scheduling.Change{RemovePods: []string{key}}, scheduling.Plan{}); err != nil {
			b.Fatal(err)
		}
	}
}

// placeJobPod applies the i-th step's new pod placed on node i (of count): a replay's step.
// It returns the pod's key.
func placeJobPod(b *testing.B, c *scheduling.Cluster, i, count int) string {
	p := tb.Pod(fmt.Sprintf("job-%d", i)).CPU("100m").Memory("256Mi").Obj()
	node := fmt.Sprintf("node-%04d", i%count)
	place := scheduling.Plan{ExistingNodes: []scheduling.ExistingPlacement{{Name: node, Pods: []string{"default/" + p.Name}}}}
	if err := c.Apply(scheduling.Change{AddPods: []*corev1.Pod{p}}, place); err != nil {
		b.Fatal(err)
	}
	return "default/" + p.Name
}

// BenchmarkSimulateAfterApply is a replay's step followed by a what-if: a pod placed on a node
// (Apply), then a node taken away (Simulate), on clusters of 150 and 1,500 nodes running 33
// pods each. Each step's what-if starts from a new state, whose base (every node's copy, rank
// and room) it works out first, from the last state's.
func BenchmarkSimulateAfterApply(b *testing.B) {
	for _, count := range []int{150, 1500} {
		b.Run(fmt.Sprintf("%dnodes", count), func(b *testing.B) { benchmarkSimulateAfterApply(b, count) })
	}
}

func benchmarkSimulateAfterApply(b *testing.B, count int) {
	c := replayStepCluster(b, count)
	opts := scheduling.Options{SkipLowerBound: true, SkipCostByWorkload: true}
	if _, err := c.Simulate(scheduling.Change{}, opts); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		placeJobPod(b, c, i, count)
		if _, err := c.Simulate(scheduling.Change{RemoveNodes: []string{fmt.Sprintf("node-%04d", (i+1)%count)}}, opts); err != nil {
			b.Fatal(err)
		}
	}
}

// replayStepCluster is count nodes of 16 cpus running 33 small pods each, prepared: the
// cluster a replay steps through.
func replayStepCluster(b *testing.B, count int) *scheduling.Cluster {
	var ens []*scheduling.ExistingNode
	for i := range count {
		var running []*corev1.Pod
		for j := range 33 {
			running = append(running, tb.Pod(fmt.Sprintf("app-%d-%d", i, j)).CPU("100m").Memory("256Mi").Obj())
		}
		ens = append(ens, tb.Node(fmt.Sprintf("node-%04d", i), "16", "64Gi", 110).NodePool("default").Pods(running...).Obj())
	}
	c, err := scheduling.Prepare(scheduling.Input{NodePools: pools(tb.NodePool("default", c2(), c4()).Obj()), ExistingNodes: ens})
	if err != nil {
		b.Fatal(err)
	}
	return c
}
