package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/disruption"
)

// The program runs and prints both steps.
func TestRun(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(&out))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.True(t, strings.HasPrefix(lines[0], "provision: 12 pods on 4 new nodes, $"), out.String())
	require.Contains(t, out.String(), "consolidate: 4 nodes, $")
	require.Contains(t, out.String(), "Emptiness delete ")
}

// The steps, checked on the library's own answers.
func TestProvisionAndConsolidate(t *testing.T) {
	pool, err := nodePool()
	require.NoError(t, err)
	pods := workers(12)
	plan, err := provision(pool, pods)
	require.NoError(t, err)
	require.Empty(t, plan.Unschedulable)
	require.Equal(t, 12, plan.Summary.Placed)

	// Zone spread with maxSkew 1 puts 3 workers in each of us-west-2's four zones.
	perZone := map[string]int{}
	for _, nc := range plan.NodeClaims {
		require.Equal(t, "arm64", nc.Labels["kubernetes.io/arch"])
		perZone[nc.Zone] += len(nc.Pods)
	}
	require.Equal(t, map[string]int{"us-west-2a": 3, "us-west-2b": 3, "us-west-2c": 3, "us-west-2d": 3}, perZone)

	// With 3 workers left, the nodes that no longer run any are deleted as empty; the others
	// wait for a later decision.
	launched := time.Date(2026, 1, 12, 9, 0, 0, 0, time.UTC)
	nodes := launch(plan, pods, launched, 3)
	empty := map[string]bool{}
	for _, n := range nodes {
		if len(n.Pods) == 0 {
			empty[n.Node.Name] = true
		}
	}
	require.NotEmpty(t, empty)
	d, err := consolidate(pool, nodes, launched.Add(time.Hour))
	require.NoError(t, err)
	deleted := map[string]bool{}
	for _, cmd := range d.Commands {
		require.Equal(t, disruption.MethodEmptiness, cmd.Method)
		require.Equal(t, disruption.ActionDelete, cmd.Action)
		for _, c := range cmd.Candidates {
			deleted[c.Node] = true
		}
	}
	require.Equal(t, empty, deleted)
	require.Less(t, d.Summary.HourlyCostAfter, d.Summary.HourlyCostBefore)
}
