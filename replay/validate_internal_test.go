package replay

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/disruption"
	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

// After a validation the loop decides again at once, as Karpenter's requeues: after an
// abandoned Emptiness or multi-node command with the methods after it; after an abandoned
// single-node command, its last method, it polls again a DisruptionInterval later.
func TestLoopAfterValidation(t *testing.T) {
	t0 := time.Date(2026, 1, 12, 9, 0, 0, 0, time.UTC)
	small := tb.Type("small", "2", "4Gi", 20).Offer("us-west-2a", "on-demand", 0.10).Obj()
	for _, tc := range []struct {
		method string
		next   time.Duration
		after  string
	}{
		{disruption.MethodSingleNodeConsolidation, DefaultDisruptionInterval, ""},
		{disruption.MethodMultiNodeConsolidation, 0, disruption.MethodMultiNodeConsolidation},
		{disruption.MethodEmptiness, 0, disruption.MethodEmptiness},
	} {
		t.Run(tc.method, func(t *testing.T) {
			start := disruption.Input{NodePools: []*scheduling.NodePool{tb.NodePool("default", small).Obj()}, Now: t0}
			s, err := newSim(start, nil, Options{}.withDefaults())
			require.NoError(t, err)
			s.now = t0.Add(time.Minute)
			// A command on a node the cluster no longer has is abandoned.
			s.held = &heldCommands{commands: []disruption.Command{{Method: tc.method, Candidates: []disruption.Candidate{{Node: "gone"}}}}, version: -1}
			require.NoError(t, s.validate())
			require.Len(t, s.decisions, 1)
			require.Equal(t, DecisionAbandon, s.decisions[0].Kind)
			require.Equal(t, s.now.Add(tc.next), s.disruptAt)
			require.True(t, s.disruptDirty)
			require.Equal(t, tc.after, s.resumeAfter)
		})
	}
}
