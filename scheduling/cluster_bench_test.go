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
