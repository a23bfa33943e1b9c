package replay_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/disruption"
	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/replay"
)

// A snapshot taken while Karpenter deletes a node (deletionTimestamp, or its disrupted taint):
// the replay goes on with it as Karpenter's termination does: the node drains, its pods run on
// a new node, and it is deleted.
func TestStartNodeBeingDeletedDrains(t *testing.T) {
	start := startCluster(time.Hour)
	pods := []*corev1.Pod{tb.Pod("web-0").CPU("1").Obj(), tb.Pod("web-1").CPU("1").Obj()}
	for _, p := range pods {
		p.Spec.NodeName = "old"
		p.Status.Phase = corev1.PodRunning
	}
	node := tb.KarpenterNode("old", "default", large(), "us-west-2a", "on-demand")
	node.DeletionTimestamp = &metav1.Time{Time: t0.Add(-time.Minute)}
	start.Nodes = []*disruption.Node{{Node: node, Pods: pods, NodePool: "default", InstanceType: "large", Zone: "us-west-2a",
		CapacityType: "on-demand", Price: 0.28, Created: t0.Add(-time.Hour), Initialized: true, Disrupting: true}}
	res := run(t, start)
	require.Equal(t, map[string]int{"deleting": 1}, res.Summary.Terminated)
	require.Equal(t, 2, res.Summary.PodsEvicted)
	require.Equal(t, replay.PodCounts{Created: 2, Running: 2}, res.Summary.Pods, "both pods run again on a new node")
	last := res.Timeline[len(res.Timeline)-1]
	require.Equal(t, 1, last.Nodes)
	for _, n := range res.Nodes {
		if n.Name == "old" {
			require.Equal(t, t0.Add(30*time.Second), n.Deleted, "drained at once, gone after the pods' 30 s grace")
		}
	}
}
