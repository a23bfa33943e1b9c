package disruption_test

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/scheduling"
)

// TestCommandsOnly decides random clusters (some nodes still starting) with and without
// Input.CommandsOnly and expects the same commands and the same nodes left alone: only the
// reasons of failed consolidations and the cost by workload may differ. The generator must
// reach consolidations that fail for a starting node, which are the ones CommandsOnly cuts
// short (TestCommandsOnlyRulesOutFromTheFirstRound has the other kind it rules out alone).
func TestCommandsOnly(t *testing.T) {
	seeds := 150
	if testing.Short() {
		seeds = 30
	}
	cutShort, firstRound := 0, 0
	for seed := 1; seed <= 2*seeds; seed++ {
		rng := rand.New(rand.NewSource(int64((seed + 1) / 2)))
		in := randomCluster(rng)
		if seed%2 == 0 {
			in = moreStarting(in, rng)
		}
		full, err := disruption.Decide(in)
		require.NoError(t, err, "seed %d", seed)
		in.CommandsOnly = true
		fast, err := disruption.Decide(in)
		require.NoError(t, err, "seed %d", seed)
		if diff := cmp.Diff(full.Commands, fast.Commands); diff != "" {
			t.Errorf("seed %d: CommandsOnly changes the commands (-full +commands only):\n%s", seed, diff)
		}
		require.Len(t, fast.Blocked, len(full.Blocked), "seed %d", seed)
		for i := range full.Blocked {
			require.Equal(t, full.Blocked[i].Node, fast.Blocked[i].Node, "seed %d", seed)
			if strings.Contains(full.Blocked[i].Reason, "which is not initialized yet") {
				cutShort++
			}
			if strings.Contains(fast.Blocked[i].Reason, "(a bound, without simulation)") && !strings.Contains(full.Blocked[i].Reason, "(a bound, without simulation)") {
				firstRound++
			}
		}
		require.Equal(t, full.Summary.HourlyCostAfter, fast.Summary.HourlyCostAfter, "seed %d", seed)
		require.Empty(t, fast.Summary.CostByWorkloadAfter, "seed %d: CommandsOnly leaves the cost by workload out", seed)
	}
	t.Logf("%d nodes kept for want of a starting node, %d by the first round's bound", cutShort, firstRound)
	if !testing.Short() {
		require.NotZero(t, cutShort, "no random cluster relied on a starting node: CommandsOnly is not exercised")
	}
}

// moreStarting marks about a third of the cluster's nodes as still starting.
func moreStarting(in disruption.Input, rng *rand.Rand) disruption.Input {
	nodes := make([]*disruption.Node, len(in.Nodes))
	for i, n := range in.Nodes {
		cp := *n
		if rng.Intn(3) == 0 {
			cp.Initialized = false
		}
		nodes[i] = &cp
	}
	in.Nodes = nodes
	return in
}

// TestCommandsOnlyRulesOutFromTheFirstRound: each pod of x fits on y or z alone, and y and z
// have room for all three together, so no bound on requests rules x out; but only one pod
// fits on each, and the third needs a new node no cheaper than x. A decision for its commands
// tells so from the scheduler's first round, without planning that node; the full decision
// simulates it and blocks x for the price; both keep every node.
func TestCommandsOnlyRulesOutFromTheFirstRound(t *testing.T) {
	small, medium := smallOnDemand, mediumOnDemand
	in := disruption.Input{
		Now:       now,
		NodePools: []*scheduling.NodePool{pool("default", small, medium).Obj()},
		Nodes: []*disruption.Node{
			running("x", "default", small, "on-demand", pod("x-1", "600m"), pod("x-2", "600m"), pod("x-3", "600m")),
			running("y", "default", medium, "on-demand", pod("y-1", "3000m")),
			running("z", "default", medium, "on-demand", pod("z-1", "3000m")),
		},
	}
	full := decide(t, in)
	in.CommandsOnly = true
	fast := decide(t, in)
	require.Empty(t, full.Commands)
	require.Empty(t, fast.Commands)
	require.Contains(t, blockedReason(full, "x"), "not less than the $0.1000/h it costs now")
	require.Contains(t, blockedReason(fast, "x"), "(a bound, without simulation): 600m cpu")
}
