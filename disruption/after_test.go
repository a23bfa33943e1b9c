package disruption_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/scheduling"
)

// When a command fails its validation, Karpenter's loop goes on with the methods after its
// own in the same pass (Input.After): the methods before are not tried, and the nodes only
// they would take say so.
func TestDecideAfterAMethod(t *testing.T) {
	cluster := func(after string) disruption.Input {
		return disruption.Input{
			Now:       now,
			After:     after,
			NodePools: []*scheduling.NodePool{onDemand("a").Obj()},
			Nodes: []*disruption.Node{
				running("a-0", "a", mediumOnDemand, "on-demand", pod("web-0", "1")),
				running("a-1", "a", mediumOnDemand, "on-demand", pod("web-1", "1")),
				running("a-2", "a", mediumOnDemand, "on-demand", pod("web-2", "1")),
				running("e-0", "a", smallOnDemand, "on-demand"),
			},
		}
	}
	for _, tc := range []struct {
		after    string
		commands []string
		blocked  map[string]string
	}{{
		commands: []string{"Emptiness delete [e-0] -> [] 0.10"},
	}, {
		after:    disruption.MethodEmptiness,
		commands: []string{"MultiNodeConsolidation replace [a-0 a-1 a-2] -> [on-demand/small] 0.50"},
		blocked:  map[string]string{"e-0": "the node is empty, but Emptiness is not tried again in this pass, which goes on after a command of Emptiness failed its validation"},
	}, {
		after:    disruption.MethodMultiNodeConsolidation,
		commands: []string{"SingleNodeConsolidation delete [a-0] -> [] 0.20"},
		blocked:  map[string]string{"e-0": "the node is empty, but Emptiness is not tried again"},
	}} {
		t.Run("after "+tc.after, func(t *testing.T) {
			d := decide(t, cluster(tc.after))
			require.Equal(t, tc.commands, summary(d))
			for node, phrase := range tc.blocked {
				require.Contains(t, blockedReason(d, node), phrase)
			}
		})
	}
	_, err := disruption.Decide(cluster("Consolidation"))
	require.EqualError(t, err, `after: unknown method "Consolidation" (use one of Emptiness, Expiration, Drift, MultiNodeConsolidation, SingleNodeConsolidation)`)
}
