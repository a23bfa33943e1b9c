// Package replaynodeexpiry checks the replay-node-expiry example: seed 004's expiry as a
// replay, nodes replaced 30 minutes after launch while a PodDisruptionBudget paces the drains.
package replaynodeexpiry

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/cmd/nodeplan/app"
	"github.com/nodeplan/nodeplan/replay"
)

var start = time.Date(2026, 1, 12, 12, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return start.Add(d) }

func TestNodesReplacedAtThirtyMinutes(t *testing.T) {
	res, err := app.Replay(app.Config{Paths: []string{"cluster"}}, "events.yaml", time.Time{}, replay.Options{Until: at(time.Hour)})
	require.NoError(t, err)
	r := res.Result
	require.Equal(t, at(45*time.Minute), r.End, "the last event (a mark): the cluster rested from 32 m, and the next expiry (1 h 0 m 10 s) is past --until")

	// One node per zone for the three replicas, launched after the 1 s batch.
	require.Equal(t, replay.Decision{Time: at(time.Second), Kind: replay.DecisionLaunch, Nodes: []string{"default-1", "default-2", "default-3"}, Pods: 3}, r.Decisions[0])
	// At 30 m 1 s they expire; the disruption tick at 30 m 10 s replaces each, same zone.
	var replaced, deleted []replay.Decision
	for _, d := range r.Decisions {
		switch {
		case d.Kind == replay.DecisionDisrupt:
			replaced = append(replaced, d)
		case d.Kind == replay.DecisionDelete:
			deleted = append(deleted, d)
		}
	}
	require.Len(t, replaced, 3)
	zones := map[string]string{}
	for _, n := range r.Nodes {
		zones[n.Name] = n.Zone
	}
	for i, d := range replaced {
		require.Equal(t, at(30*time.Minute+10*time.Second), d.Time)
		require.Equal(t, "Expiration", d.Method)
		require.Equal(t, []string{"default-" + string(rune('1'+i))}, d.Nodes)
		require.Len(t, d.Replacements, 1)
		require.Equal(t, zones[d.Nodes[0]], zones[d.Replacements[0]], "zone spread keeps each replica's zone")
	}
	// Replacements are ready at 31 m 10 s; minAvailable 2 lets one pod go at a time, each
	// back in 1 s, the next eviction on the 10 s drain cadence, then 30 s of grace.
	require.Len(t, deleted, 3)
	for i, d := range deleted {
		require.Equal(t, at(31*time.Minute+40*time.Second+time.Duration(i)*10*time.Second), d.Time)
		require.Equal(t, "expiration", d.Reason)
	}
	require.Equal(t, map[string]int{"expiration": 3}, r.Summary.Terminated)
	require.Equal(t, 3, r.Summary.PodsEvicted)
	require.Equal(t, 6, r.Summary.Launched)
	last := r.Timeline[len(r.Timeline)-1]
	require.Equal(t, 3, last.Nodes)
	require.Zero(t, last.Pending)
}
