// Package nodeexpiry checks the node-expiry example: nodes past expireAfter are replaced,
// while the PodDisruptionBudget paces the evictions.
package nodeexpiry

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/cmd/nodeplan/app"
	"github.com/nodeplan/nodeplan/disruption"
)

func TestExpiredNodesReplaced(t *testing.T) {
	res, err := app.Consolidate(app.Config{Paths: []string{"."}}, time.Date(2026, 1, 12, 12, 0, 0, 0, time.UTC))
	require.NoError(t, err)
	d := res.Decisions

	// The two December nodes, oldest first; the January one is too young.
	require.Len(t, d.Commands, 2)
	wantNodes := []string{"ip-10-0-1-11.us-west-2.compute.internal", "ip-10-0-2-12.us-west-2.compute.internal"}
	for i, cmd := range d.Commands {
		require.Equal(t, disruption.MethodExpiration, cmd.Method)
		require.Equal(t, "Expired", cmd.Reason)
		require.Equal(t, disruption.ActionReplace, cmd.Action)
		require.Len(t, cmd.Candidates, 1)
		require.Equal(t, wantNodes[i], cmd.Candidates[0].Node)
		require.Contains(t, cmd.Notes[0], "past NodePool default's expireAfter 720h0m0s")
		// Zone spread (maxSkew 1 over three zones) keeps each replica's zone.
		require.Len(t, cmd.Replacements, 1)
		require.Equal(t, cmd.Candidates[0].Zone, cmd.Replacements[0].Zone)
		require.Len(t, cmd.Evictions, 1)
	}
	for _, b := range d.Blocked {
		require.NotContains(t, wantNodes, b.Node)
	}

	// minAvailable 2 of 3 allows one eviction at a time: the first command takes it, the
	// second's pod waits for the PDB.
	pdbNote := func(cmd disruption.Command) bool {
		for _, n := range cmd.Notes {
			if strings.Contains(n, "PodDisruptionBudget default/api allows 0 disruption(s)") {
				return true
			}
		}
		return false
	}
	require.False(t, pdbNote(d.Commands[0]), "%q", d.Commands[0].Notes)
	require.True(t, pdbNote(d.Commands[1]), "%q", d.Commands[1].Notes)
	require.Equal(t, 3, d.Summary.NodesAfter)
}

// A day earlier than the first node's 30th birthday, nothing has expired.
func TestNothingExpiredYet(t *testing.T) {
	res, err := app.Consolidate(app.Config{Paths: []string{"."}}, time.Date(2025, 12, 30, 8, 0, 0, 0, time.UTC))
	require.NoError(t, err)
	require.Empty(t, res.Decisions.Commands)
}
