package scheduling_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

// A static NodePool (spec.replicas) keeps that many nodes whatever the pods: the plan adds the
// missing ones, pods fill them before any dynamic capacity, and it never launches more.
func TestStaticNodePools(t *testing.T) {
	static := func(replicas int64) *scheduling.NodePool {
		np := tb.NodePool("static", c4()).Weight(0).Obj()
		np.Replicas = &replicas
		return np
	}
	dynamic := tb.NodePool("dynamic", c2()).Weight(10).Obj()
	for _, tc := range []struct {
		name    string
		in      scheduling.Input
		want    []string
		reasons map[string]string
	}{{
		name: "no pods: the replicas are launched empty",
		in:   scheduling.Input{NodePools: pools(static(2))},
		want: []string{"static-1 c4 us-west-2a spot: ", "static-2 c4 us-west-2a spot: "},
	}, {
		name: "pods fill the static nodes before a heavier dynamic NodePool",
		in:   scheduling.Input{Pods: tb.Pod("web").CPU("1").Replicas(3), NodePools: pools(static(1), dynamic)},
		want: []string{"static-1 c4 us-west-2a spot: web-0 web-1 web-2"},
	}, {
		name:    "a static NodePool launches nothing for pods that do not fit its nodes",
		in:      scheduling.Input{Pods: tb.Pod("web").CPU("3").Replicas(2), NodePools: pools(static(1))},
		want:    []string{"static-1 c4 us-west-2a spot: web-0", "unschedulable web-1: Limits"},
		reasons: map[string]string{"web-1": "nodepool static is static (replicas 1): it keeps its node count and launches none for pods"},
	}, {
		name: "existing nodes of the NodePool count towards its replicas",
		in: scheduling.Input{NodePools: pools(static(2)), ExistingNodes: nodes(
			tb.Node("s-old", "4", "8Gi", 20).NodePool("static").Obj())},
		want: []string{"static-1 c4 us-west-2a spot: "},
	}, {
		name: "limits.nodes caps the replicas",
		in: scheduling.Input{NodePools: pools(func() *scheduling.NodePool {
			np := static(3)
			np.Limits = corev1.ResourceList{"nodes": resource.MustParse("2")}
			return np
		}())},
		want: []string{"static-1 c4 us-west-2a spot: ", "static-2 c4 us-west-2a spot: "},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := scheduling.Solve(tc.in)
			require.NoError(t, err)
			require.Equal(t, tc.want, render(plan))
			for pod, want := range tc.reasons {
				u, found := unschedulable(plan, pod)
				require.True(t, found)
				require.Contains(t, u.Reason, want)
			}
			require.Empty(t, violations(tc.in, plan), "invariants")
		})
	}
}
