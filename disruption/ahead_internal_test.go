package disruption

import (
	"math/rand"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/scheduling"
)

// The prefix search's worker, with no chain to follow, simulates the single-node
// consolidations of the decision's candidates on its own cluster: what it memoises for each
// candidate no bound rules out is what consolidating that node alone finds on the simulator's
// cluster, and single-node consolidation, which tries them next, finds them memoised.
func TestLookaheadMemoisesWhatSingleNodeConsolidationFinds(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	spared := 0
	for seed := 1; seed <= 40; seed++ {
		in := boundCluster(rand.New(rand.NewSource(int64(seed))))
		d, err := newDecider(in)
		require.NoError(t, err, "seed %d", seed)
		singles := d.singleCandidates()
		a := d.newAhead(singles)
		require.NotNil(t, a)
		a.follow(nil) // no chain: the worker takes the singles at once
		if a.finished != nil {
			<-a.finished
		}
		require.GreaterOrEqual(t, a.spared.Load(), int64(len(singles)), "seed %d: every single is taken", seed)
		a.end()

		fresh, err := newDecider(in)
		require.NoError(t, err, "seed %d", seed)
		for _, c := range singles {
			set := []*nodeState{c}
			got, memoised := d.sim.consolidated.get(orderedNames(set))
			if d.singleNodeBound(c, d.roomIndex()) != "" {
				require.False(t, memoised, "seed %d: %s is bounded, not simulated", seed, c.name)
				continue
			}
			require.True(t, memoised, "seed %d: %s is memoised", seed, c.name)
			spared++
			want, why := fresh.consolidate(fresh.sim.cluster, []*nodeState{fresh.byName[c.name]})
			require.Equal(t, why, got.why, "seed %d: %s", seed, c.name)
			require.Equal(t, describeReplacements(want), describeReplacements(got.o), "seed %d: %s", seed, c.name)
		}
	}
	require.Greater(t, spared, 40, "too few singles simulated ahead to mean anything")
}

// The singles the worker simulates are the candidates single-node consolidation tries, in its
// order: those the budgets and PodDisruptionBudgets allow, in rank order.
func TestSingleCandidatesAreSingleNodeConsolidationsCandidates(t *testing.T) {
	for seed := 1; seed <= 40; seed++ {
		in := boundCluster(rand.New(rand.NewSource(int64(seed))))
		d, err := newDecider(in)
		require.NoError(t, err, "seed %d", seed)
		var want []*nodeState
		for _, c := range d.consolidationCandidates() {
			if d.budgetAllows(c, scheduling.ReasonUnderutilized) && d.pdbsAllow(c) {
				want = append(want, c)
			}
		}
		require.Equal(t, orderedNames(want), orderedNames(d.singleCandidates()), "seed %d", seed)
	}
}
