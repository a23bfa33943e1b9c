package scheduling_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

// TestInputPools expects the same plan with NodePools prepared by PreparePools as without,
// whether the Pools were prepared from the input's NodePools (and used) or from other
// NodePools, DaemonSets or resources (and ignored).
func TestInputPools(t *testing.T) {
	pool := defaultPool()
	in := scheduling.Input{
		Pods:       pods(tb.Pod("web-0").CPU("1"), tb.Pod("web-1").CPU("3"), tb.Pod("batch").CPU("6")),
		NodePools:  pools(pool),
		DaemonSets: daemons(tb.Pod("logging").CPU("500m").Obj()),
	}
	others := map[string]scheduling.Input{
		"the same":               in,
		"other NodePools":        {NodePools: pools(tb.NodePool("default", c2()).Obj())},
		"a copy of the NodePool": {NodePools: pools(tb.NodePool("default", c2(), c4(), c8()).Obj()), DaemonSets: in.DaemonSets},
		"no DaemonSets":          {NodePools: in.NodePools},
		"other resources":        {NodePools: in.NodePools, DaemonSets: in.DaemonSets, Pods: pods(tb.Pod("gpu").GPU("1"))},
	}
	want, err := scheduling.Solve(in)
	require.NoError(t, err)
	for name, from := range others {
		t.Run(name, func(t *testing.T) {
			prepared, err := scheduling.PreparePools(from)
			require.NoError(t, err)
			with := in
			with.Pools = prepared
			for range 2 {
				got, err := scheduling.Solve(with)
				require.NoError(t, err)
				require.Equal(t, render(want), render(got))
				require.Empty(t, cmp.Diff(want, got))
			}
		})
	}
}
