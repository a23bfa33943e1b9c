package disruption_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

// TestCrowdedPodsRuleANodeOut: each pod of x fits on another node alone, but the other
// nodes' room cannot take them all, whichever way they are packed. The decision keeps x by a
// bound, without simulating it, when the pods left over need a new node no cheaper than x;
// it simulates x, and deletes it, when the room is enough. Room counts only as far as the
// pods can use it: cpu with little memory beside it takes few pods that ask memory.
func TestCrowdedPodsRuleANodeOut(t *testing.T) {
	small, medium := smallOnDemand, mediumOnDemand
	for _, tc := range []struct {
		name   string
		x      []*corev1.Pod
		others []*disruption.Node
		// bound is the start of the bound's reason for keeping x; "" when x is deleted.
		bound string
	}{{
		name:   "two pods, room for one",
		x:      []*corev1.Pod{pod("x-1", "900m"), pod("x-2", "900m")},
		others: []*disruption.Node{running("y", "default", medium, "on-demand", pod("y-1", "2900m"))},
		bound:  "no cheaper way to run its pods (a bound, without simulation): 700m cpu",
	}, {
		name: "room in pieces, one pod each",
		x:    []*corev1.Pod{pod("x-1", "500m"), pod("x-2", "500m"), pod("x-3", "500m")},
		others: []*disruption.Node{
			running("y", "default", medium, "on-demand", pod("y-1", "3300m")),
			running("z", "default", medium, "on-demand", pod("z-1", "3300m")),
		},
		bound: "no cheaper way to run its pods (a bound, without simulation): 100m cpu",
	}, {
		// y has memory for one pod, z cpu for one: 8.5Gi of memory and 3.6 cpus free in all,
		// but at 500m per 2Gi the pods can use 4.9Gi of it.
		name: "cpu without memory beside it",
		x:    []*corev1.Pod{podMem("x-1", "500m", "2Gi"), podMem("x-2", "500m", "2Gi"), podMem("x-3", "500m", "2Gi")},
		others: []*disruption.Node{
			running("y", "default", medium, "on-demand", podMem("y-1", "1", "13824Mi")),
			running("z", "default", medium, "on-demand", podMem("z-1", "3400m", "10Gi")),
		},
		bound: "no cheaper way to run its pods (a bound, without simulation): 275m cpu, 1126Mi memory",
	}, {
		name: "lopsided room that still holds them",
		x:    []*corev1.Pod{podMem("x-1", "500m", "2Gi"), podMem("x-2", "500m", "2Gi")},
		others: []*disruption.Node{
			running("y", "default", medium, "on-demand", podMem("y-1", "1", "13824Mi")),
			running("z", "default", medium, "on-demand", podMem("z-1", "3400m", "10Gi")),
		},
	}, {
		name:   "room for both",
		x:      []*corev1.Pod{pod("x-1", "500m"), pod("x-2", "500m")},
		others: []*disruption.Node{running("y", "default", medium, "on-demand", pod("y-1", "2900m"))},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			in := disruption.Input{
				NodePools: []*scheduling.NodePool{pool("default", small, medium).Obj()},
				Nodes:     append([]*disruption.Node{running("x", "default", small, "on-demand", tc.x...)}, tc.others...),
			}
			d := decide(t, in)
			if tc.bound == "" {
				require.Len(t, d.Commands, 1)
				require.Equal(t, "x", d.Commands[0].Candidates[0].Node)
				require.Empty(t, d.Commands[0].Replacements)
				return
			}
			require.Empty(t, d.Commands)
			require.Contains(t, blockedReason(d, "x"), tc.bound)
		})
	}
}

func podMem(name, cpu, memory string) *corev1.Pod {
	return testbuild.Pod(name).Label("app", strings.SplitN(name, "-", 2)[0]).CPU(cpu).Memory(memory).Obj()
}
