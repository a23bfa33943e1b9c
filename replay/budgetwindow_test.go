package replay_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/disruption"
	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/replay"
	"github.com/nodeplan/nodeplan/scheduling"
)

// A budget that allows no disruption from 09:00 to 17:00 UTC holds the consolidation the
// scale-down at 09:10 makes possible (at 09:11, consolidateAfter 1 m) until its window
// closes. Nothing else changes in between: the replay decides at 09:11, then not again
// until 17:00, when the large node is replaced at once.
func TestBudgetWindowClosingWhileIdle(t *testing.T) {
	require.Equal(t, 9, t0.Hour(), "the start is inside the window")
	for _, tc := range []struct {
		name    string
		budget  bool
		replace time.Duration
	}{
		{name: "no budget", replace: 11 * time.Minute},
		{name: "closed 09:00-17:00", budget: true, replace: 8 * time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := tb.NodePool("default", small(), large()).ConsolidateAfter(time.Minute).ConsolidationPolicy(scheduling.ConsolidationWhenEmptyOrUnderutilized)
			if tc.budget {
				b.ScheduledBudget("0", "0 9 * * *", 8*time.Hour)
			}
			var decided []time.Time
			opts := replay.Options{Observe: func(o replay.Observation) {
				if o.Disruption != nil {
					decided = append(decided, o.Time)
				}
			}}
			res, err := replay.Run(disruption.Input{NodePools: []*scheduling.NodePool{b.Obj()}, Now: t0},
				[]replay.Event{create(0, deployment("web", 8, "1")), scale(10*time.Minute, "web", 2)}, opts)
			require.NoError(t, err)
			checkInvariants(t, res)
			var disrupt []replay.Decision
			for _, d := range res.Decisions {
				if d.Kind == replay.DecisionDisrupt {
					disrupt = append(disrupt, d)
				}
			}
			require.Len(t, disrupt, 1)
			require.Equal(t, at(tc.replace).Add(disruption.CommandValidationDelay), disrupt[0].Time, "started once validated")
			require.Equal(t, "underutilized", disrupt[0].Reason)
			for _, d := range decided {
				if d.After(at(11*time.Minute)) && d.Before(at(tc.replace)) {
					t.Errorf("Decide ran at %s, while nothing changed", d.Format(time.TimeOnly))
				}
			}
			require.Contains(t, decided, at(11*time.Minute), "the consolidation is first looked at when consolidateAfter has passed")
		})
	}
}
