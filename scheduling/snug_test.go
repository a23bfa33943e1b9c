package scheduling_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

// Pods that repel each other open a node each; smaller pods then fill the room those nodes
// already pay for before any node grows to a pricier type.
func TestPodsFillRoomAlreadyPaidFor(t *testing.T) {
	var pods []*corev1.Pod
	for i := 0; i < 3; i++ {
		pods = append(pods, tb.Pod(fmt.Sprintf("db-%d", i)).Label("app", "db").CPU("1").Memory("1Gi").AntiAffinity(hostKey, map[string]string{"app": "db"}).Obj())
	}
	for i := 0; i < 3; i++ {
		pods = append(pods, tb.Pod(fmt.Sprintf("web-%d", i)).CPU("700m").Memory("1Gi").Obj())
	}
	plan, err := scheduling.Solve(scheduling.Input{Pods: pods, NodePools: []*scheduling.NodePool{defaultPool()}})
	require.NoError(t, err)
	require.Empty(t, plan.Unschedulable)
	var got []string
	for _, nc := range plan.NodeClaims {
		got = append(got, fmt.Sprintf("%s %s %d pods", nc.Name, nc.InstanceType, len(nc.Pods)))
	}
	require.Equal(t, []string{"default-1 c2 2 pods", "default-2 c2 2 pods", "default-3 c2 2 pods"}, got)
}

// A pod that would make a node with room pricier says so in its trace, and first fit places
// it.
func TestSnugPassExplainsAPricierJoin(t *testing.T) {
	pods := []*corev1.Pod{
		tb.Pod("a").CPU("1").Memory("1Gi").Obj(),
		tb.Pod("b").CPU("100m").Memory("100Mi").NodeSelector("karpenter.sh/capacity-type", "on-demand").Obj(),
	}
	plan, err := scheduling.Solve(scheduling.Input{Pods: pods, NodePools: []*scheduling.NodePool{defaultPool()},
		Options: scheduling.Options{Trace: []string{"default/b"}}})
	require.NoError(t, err)
	require.Empty(t, plan.Unschedulable)
	require.Len(t, plan.Traces, 1)
	require.Contains(t, plan.Traces[0].Steps[0], "new node default-1 of nodepool default has room at its price but the pod would make it pricier")
}
