package replay_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/replay"
)

// A pod that comes while a consolidation's replacement starts does not take the room the
// replacement brings for the candidate's pods: provisioning plans those pods with the pending
// ones, as Karpenter's provisioner plans the pods of nodes marked for deletion, and launches
// a node for the newcomer at once. The candidate's pods then move straight to the
// replacement when it drains; no node is launched for them after the drain.
func TestReplacementRoomIsKeptForTheCandidatesPods(t *testing.T) {
	res := run(t, startCluster(time.Minute),
		create(0, deployment("web", 8, "1")),
		scale(10*time.Minute, "web", 2),
		create(11*time.Minute+20*time.Second, deployment("extra", 1, "1")))
	var launches []replay.Decision
	var disrupt replay.Decision
	for _, d := range res.Decisions {
		switch d.Kind {
		case replay.DecisionLaunch:
			launches = append(launches, d)
		case replay.DecisionDisrupt:
			disrupt = d
		}
	}
	require.Equal(t, at(11*time.Minute).Add(disruption.CommandValidationDelay), disrupt.Time, "the large node is replaced by a small one, once the command is validated")
	require.Len(t, disrupt.Replacements, 1)
	require.Len(t, launches, 2, "the first node, then one for the newcomer; none for the evicted pods")
	require.Equal(t, at(11*time.Minute+21*time.Second), launches[1].Time, "the newcomer's node is launched with its batch")
	require.Equal(t, 1, launches[1].Pods)
	require.Equal(t, 2, res.Summary.PodsEvicted)
	require.Equal(t, 61.0, res.Summary.PendingSeconds.Max, "the newcomer waits for its node; the evicted pods run on the replacement at once")
	last := res.Timeline[len(res.Timeline)-1]
	require.Equal(t, 2, last.Nodes)
	require.Equal(t, 0.20, last.HourlyCost)
	require.Zero(t, last.Pending)
}
