package scheduling_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

// TestStopOnUninitialized: under Options.StopOnUninitialized, a Simulate whose displaced or
// added pod lands on a node still starting ends with an *UninitializedError naming both; a
// pending pod that lands there does not stop it, and without the option the same change
// plans the pod onto that node.
func TestStopOnUninitialized(t *testing.T) {
	// cluster's ready node runs a pod of readyUsed cpu; solves try ready nodes before
	// starting ones.
	cluster := func(readyUsed string, pending ...*corev1.Pod) scheduling.Input {
		return scheduling.Input{
			Pods:      pending,
			NodePools: pools(tb.NodePool("default", c4()).Obj()),
			ExistingNodes: nodes(
				tb.Node("a-starting", "4", "8Gi", 20).NodePool("default").Zone("us-west-2a").Uninitialized().Obj(),
				tb.Node("b-ready", "4", "8Gi", 20).NodePool("default").Zone("us-west-2a").Pods(webPod("web-0", readyUsed)).Obj(),
				tb.Node("c-leaving", "4", "8Gi", 20).NodePool("default").Zone("us-west-2a").Pods(webPod("web-1", "1")).Obj(),
			),
		}
	}
	for _, tc := range []struct {
		name      string
		readyUsed string
		pending   []*corev1.Pod
		change    scheduling.Change
		// stopped is the error's pod and node, "" when the simulation runs to its plan.
		stopped string
		onto    []string
	}{{
		name:      "a displaced pod finds no room on the ready node and lands on the starting one",
		readyUsed: "3500m",
		change:    scheduling.Change{RemoveNodes: []string{"c-leaving"}},
		stopped:   "default/web-1 a-starting",
	}, {
		name:      "an added pod lands on the starting node",
		readyUsed: "3500m",
		change:    scheduling.Change{AddPods: []*corev1.Pod{webPod("web-2", "1")}, Cordon: []string{"c-leaving"}},
		stopped:   "default/web-2 a-starting",
	}, {
		name:      "a pending pod may land on it; a displaced one that fits on a ready node does not stop",
		readyUsed: "1",
		pending:   []*corev1.Pod{webPod("web-9", "3500m")},
		change:    scheduling.Change{RemoveNodes: []string{"c-leaving"}},
		onto:      []string{"default/web-9 a-starting", "default/web-1 b-ready"},
	}, {
		name:      "nothing displaced",
		readyUsed: "1",
		change:    scheduling.Change{Cordon: []string{"c-leaving"}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := scheduling.Prepare(cluster(tc.readyUsed, tc.pending...))
			require.NoError(t, err)
			full, err := c.Simulate(tc.change, scheduling.Options{})
			require.NoError(t, err)
			plan, err := c.Simulate(tc.change, scheduling.Options{StopOnUninitialized: true})
			var stop *scheduling.UninitializedError
			if tc.stopped != "" {
				require.True(t, errors.As(err, &stop), "want an UninitializedError, got %v", err)
				require.Equal(t, tc.stopped, stop.Pod+" "+stop.Node)
				require.Equal(t, "pod "+stop.Pod+" would move to node a-starting, which is not initialized yet", err.Error())
				require.Contains(t, placements(full), stop.Pod+" a-starting", "without the option the pod lands there")
				return
			}
			require.NoError(t, err)
			require.Equal(t, full, plan, "a simulation that does not stop plans as without the option")
			for _, want := range tc.onto {
				require.Contains(t, placements(plan), want)
			}
		})
	}
}

// placements renders where each pod of plan landed, "namespace/name node".
func placements(plan scheduling.Plan) []string {
	var out []string
	for _, pl := range plan.Placements {
		out = append(out, pl.Pod.Namespace+"/"+pl.Pod.Name+" "+pl.Node)
	}
	return out
}
