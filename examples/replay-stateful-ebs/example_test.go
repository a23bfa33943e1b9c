// Package replaystatefulebs checks the replay-stateful-ebs example: seed 000's story (deploy,
// lose a pod, scale to zero, come back) replayed with its timings.
package replaystatefulebs

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/cmd/nodeplan/app"
	"github.com/nodeplan/nodeplan/replay"
)

var start = time.Date(2026, 1, 12, 9, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return start.Add(d) }

func TestStory(t *testing.T) {
	res, err := app.Replay(app.Config{Paths: []string{"cluster"}}, "events.yaml", time.Time{}, replay.Options{})
	require.NoError(t, err)
	r := res.Result
	require.Equal(t, []replay.Decision{
		// Deployed: one node for the three replicas that share the claim, after the 1 s batch.
		{Time: at(time.Second), Kind: replay.DecisionLaunch, Nodes: []string{"default-1"}, Pods: 3},
		// Scaled to 0 at 20 m: the empty node goes consolidateAfter (2 m) later, once the
		// Emptiness command is validated (15 s).
		{Time: at(22*time.Minute + 15*time.Second), Kind: replay.DecisionDisrupt, Method: "Emptiness", Reason: "empty", Nodes: []string{"default-1"}, Savings: 0.068},
		{Time: at(22*time.Minute + 15*time.Second), Kind: replay.DecisionDelete, Reason: "empty", Nodes: []string{"default-1"}},
		// Scaled back to 3 at 40 m: a new node.
		{Time: at(40*time.Minute + time.Second), Kind: replay.DecisionLaunch, Nodes: []string{"default-2"}, Pods: 3},
	}, r.Decisions, "the lost pod's replacement (10 m) joins the running node: no launch")
	for _, n := range r.Nodes {
		require.Equal(t, "us-west-2b", n.Zone, "the volume's zone, both times")
		require.Equal(t, "c6g.large", n.InstanceType)
	}
	require.Equal(t, replay.PodCounts{Created: 7, Running: 3, Deleted: 4}, r.Summary.Pods)
	// Waits: 61 s for each replica on a new node (1 s batch, 60 s startup), 1 s for the
	// replacement of the lost pod.
	require.Equal(t, replay.Percentiles{P50: 61, P95: 61, Max: 61}, r.Summary.PendingSeconds)
	require.Equal(t, at(41*time.Minute+time.Second), r.End)
	// 0.068 $/h for 22 m 14 s and again for the last 1 m.
	require.InDelta(t, 0.068*(22*60+14+60)/3600, r.Summary.TotalCost, 1e-6)
}
