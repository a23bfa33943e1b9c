package replay_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/replay"
)

// A consolidation command starts once it is validated, 15 s after it was decided, as
// Karpenter's does; one the cluster outdated meanwhile is abandoned with the reason, and the
// loop decides again at once.
func TestConsolidationIsValidatedBeforeItStarts(t *testing.T) {
	decided := at(11 * time.Minute) // consolidateAfter (1 m) after the scale-down
	for _, tc := range []struct {
		name    string
		back    time.Duration // when the Deployment scales up again, 0 for never
		kinds   []string
		abandon string
	}{
		{name: "still valid", kinds: []string{replay.DecisionDisrupt}},
		{name: "pods came back meanwhile", back: 11*time.Minute + 5*time.Second, kinds: []string{replay.DecisionAbandon},
			abandon: "node default-1 is no longer a consolidation candidate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			events := []replay.Event{create(0, deployment("web", 8, "1")), scale(10*time.Minute, "web", 2)}
			if tc.back > 0 {
				events = append(events, scale(tc.back, "web", 8))
			}
			res := run(t, startCluster(time.Minute), events...)
			var got []replay.Decision
			for _, d := range res.Decisions {
				if d.Kind == replay.DecisionDisrupt || d.Kind == replay.DecisionAbandon {
					got = append(got, d)
				}
			}
			require.NotEmpty(t, got)
			require.Equal(t, decided.Add(disruption.CommandValidationDelay), got[0].Time)
			require.Equal(t, tc.kinds[0], got[0].Kind)
			require.Equal(t, disruption.MethodSingleNodeConsolidation, got[0].Method)
			require.Equal(t, []string{"default-1"}, got[0].Nodes)
			started := 0
			for _, d := range got {
				if d.Kind == replay.DecisionDisrupt {
					started++
				}
			}
			require.Equal(t, replay.CommandCounts{Started: started, Abandoned: len(got) - started}, res.Summary.Commands)
			if tc.abandon != "" {
				require.Equal(t, 1, res.Summary.Commands.Abandoned)
				require.Contains(t, got[0].Reason, tc.abandon)
				require.Equal(t, 0, res.Summary.PodsEvicted, "nothing was disrupted")
			}
		})
	}
}
