package disruption_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

// TestPreparedPools expects the same decisions, byte for byte, with NodePools prepared once
// by PreparePools as without, and with Pools prepared from other NodePools (which Decide must
// not use) as without.
func TestPreparedPools(t *testing.T) {
	fullBudget := func(in disruption.Input) disruption.Input {
		np := *in.NodePools[0]
		np.Disruption.Budgets = []scheduling.Budget{{Nodes: "100%"}}
		in.NodePools = []*scheduling.NodePool{&np}
		return in
	}
	scenarios := map[string]disruption.Input{
		"consolidation": fullBudget(syntheticCluster(40, 5)),
		"two pools": func() disruption.Input {
			in := fullBudget(syntheticCluster(120, 6))
			in.NodePools = append(in.NodePools, pool("spare").Obj())
			return in
		}(),
		"pending pod asking for a resource no type has": func() disruption.Input {
			in := fullBudget(syntheticCluster(40, 5))
			in.PendingPods = []*corev1.Pod{testbuild.Pod("widget").CPU("1").Request("example.com/widget", "1").Obj()}
			return in
		}(),
		"default consolidation policy": func() disruption.Input {
			in := fullBudget(syntheticCluster(40, 5))
			in.NodePools[0].Disruption.ConsolidationPolicy = ""
			return in
		}(),
	}
	for name, in := range scenarios {
		t.Run(name, func(t *testing.T) {
			want := decideJSON(t, in)

			pools, err := disruption.PreparePools(in)
			require.NoError(t, err)
			reused := in
			reused.Pools = pools
			for range 2 { // the preparation is left as it was for the next decision
				require.JSONEq(t, want, decideJSON(t, reused), "with the NodePools prepared once")
			}

			// Pools of other NodePools: a copy of each with fewer instance types, and another
			// NodePool altogether. Decide prepares the input's own.
			fewer := make([]*scheduling.NodePool, len(in.NodePools))
			for i, np := range in.NodePools {
				cp := *np
				cp.InstanceTypes = np.InstanceTypes[:1]
				fewer[i] = &cp
			}
			for _, other := range [][]*scheduling.NodePool{fewer, {pool("spare").Obj()}} {
				stale := in
				stale.NodePools = other
				stale.Pools, err = disruption.PreparePools(stale)
				require.NoError(t, err)
				stale.NodePools = in.NodePools
				require.JSONEq(t, want, decideJSON(t, stale), "with Pools of other NodePools")
			}
		})
	}
}

// TestPreparePoolsRejectsWhatDecideRejects expects PreparePools to refuse the NodePools
// Decide refuses.
func TestPreparePoolsRejectsWhatDecideRejects(t *testing.T) {
	twice := []*scheduling.NodePool{pool("a").Obj(), pool("a").Obj()}
	_, err := disruption.PreparePools(disruption.Input{NodePools: twice})
	require.ErrorContains(t, err, `nodepool "a" is given twice`)
	_, err = disruption.PreparePools(disruption.Input{NodePools: []*scheduling.NodePool{nil}})
	require.ErrorContains(t, err, "nodePools[0] is nil")
}

func decideJSON(t *testing.T, in disruption.Input) string {
	t.Helper()
	d, err := disruption.Decide(in)
	require.NoError(t, err)
	out, err := json.Marshal(d)
	require.NoError(t, err)
	return string(out)
}
