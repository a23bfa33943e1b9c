package replay_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/replay"
	"github.com/nodeplan/nodeplan/scheduling"
)

// TestDecideReusesPreparedPools checks every decision of a replay, which prepares its
// NodePools once and again after a NodePool update, against Decide preparing them itself.
func TestDecideReusesPreparedPools(t *testing.T) {
	start := startCluster(time.Minute)
	updated := *start.NodePools[0]
	updated.Requirements = append(updated.Requirements, scheduling.NodeSelectorRequirementWithMinValues{
		NodeSelectorRequirement: corev1.NodeSelectorRequirement{Key: corev1.LabelInstanceTypeStable, Operator: corev1.NodeSelectorOpIn, Values: []string{"large"}},
	})
	events := []replay.Event{
		create(0, deployment("web", 8, "1")),
		scale(10*time.Minute, "web", 2),
		{Time: at(20 * time.Minute), Type: replay.Update, Kind: replay.KindNodePool, Key: updated.Name, NodePool: &updated},
	}
	prepared := map[*disruption.Pools]bool{}
	decided := 0
	opts := replay.Options{Observe: func(o replay.Observation) {
		if o.Disruption == nil {
			return
		}
		require.NotNil(t, o.Disruption.Pools)
		prepared[o.Disruption.Pools] = true
		in := *o.Disruption
		in.Pools = nil
		requireDecidedAlike(t, in, o)
		decided++
	}}
	res, err := replay.Run(start, events, opts)
	require.NoError(t, err)
	checkInvariants(t, res)
	require.Contains(t, res.Summary.Terminated, "drift", "the update drifts the small node")
	require.Greater(t, decided, 2)
	require.Len(t, prepared, 2, "prepared at the first decision and again after the update")
}
