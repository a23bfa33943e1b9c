// Package haconsolidation checks the ha-consolidation example: consolidation of a spread,
// PDB-protected Deployment moves one replica per decision and leaves a do-not-disrupt
// singleton's node alone.
package haconsolidation

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/cmd/nodeplan/app"
	"github.com/nodeplan/nodeplan/disruption"
)

const (
	node1     = "ip-10-0-1-10.us-west-2.compute.internal"
	node2     = "ip-10-0-2-20.us-west-2.compute.internal"
	singleton = "ip-10-0-3-30.us-west-2.compute.internal"
)

func consolidate(t *testing.T, dir string, now time.Time) disruption.Decisions {
	t.Helper()
	res, err := app.Consolidate(app.Config{Paths: []string{dir}}, now)
	require.NoError(t, err)
	require.Empty(t, res.Bundle.Warnings)
	d := res.Decisions
	// Whatever else happens, the singleton's node is never a candidate, and says why.
	for _, c := range d.Commands {
		for _, cand := range c.Candidates {
			require.NotEqual(t, singleton, cand.Node)
		}
	}
	require.Contains(t, d.Blocked, disruption.Blocked{Node: singleton, Reason: "pod batch/scheduler-leader has karpenter.sh/do-not-disrupt"})
	return d
}

// evicted lists the web pods a decision evicts.
func webEvictions(d disruption.Decisions) []string {
	var out []string
	for _, c := range d.Commands {
		out = append(out, c.Evictions...)
	}
	return out
}

// The first decision frees one web node; the PDB (1 of 2 must stay up) keeps the other.
func TestFirstMove(t *testing.T) {
	d := consolidate(t, ".", time.Date(2026, 1, 12, 12, 0, 0, 0, time.UTC))
	require.Len(t, d.Commands, 1)
	cmd := d.Commands[0]
	require.Equal(t, disruption.MethodSingleNodeConsolidation, cmd.Method)
	require.Len(t, cmd.Candidates, 1)
	require.Equal(t, node1, cmd.Candidates[0].Node)
	require.Equal(t, []string{"shop/web-5c7d9f8b6-k4m2x"}, webEvictions(d))
	require.Len(t, cmd.Moves, 1)
	require.Positive(t, cmd.Savings)

	var node2Blocked string
	for _, b := range d.Blocked {
		if b.Node == node2 {
			node2Blocked = b.Reason
		}
	}
	require.Contains(t, node2Blocked, "PodDisruptionBudget shop/web allows 0 disruption(s)")
}

// Once the first replica runs again, the next decision moves the second one.
func TestSecondMove(t *testing.T) {
	d := consolidate(t, ".steps/2-after-first-move", time.Date(2026, 1, 12, 12, 10, 0, 0, time.UTC))
	require.Len(t, d.Commands, 1)
	cmd := d.Commands[0]
	require.Len(t, cmd.Candidates, 1)
	require.Equal(t, node2, cmd.Candidates[0].Node)
	require.Equal(t, []string{"shop/web-5c7d9f8b6-p8r7t"}, webEvictions(d))
	require.Less(t, d.Summary.HourlyCostAfter, d.Summary.HourlyCostBefore)
}
