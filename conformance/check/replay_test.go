package check_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/cmd/nodeplan/app"
	"github.com/nodeplan/nodeplan/conformance/check"
	"github.com/nodeplan/nodeplan/replay"
)

// Every provisioning and disruption step of the replay examples passes kube-scheduler's
// filters in the state it leaves, each pod checked with itself removed, and accounts for
// every pod.
func TestReplayStepsConform(t *testing.T) {
	for _, tc := range []struct {
		dir   string
		until time.Time
	}{
		{"replay-stateful-ebs", time.Time{}},
		{"replay-node-expiry", time.Date(2026, 1, 12, 13, 0, 0, 0, time.UTC)},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			dir := "../../examples/" + tc.dir
			steps := 0
			var failures []string
			observe := func(o replay.Observation) {
				var res check.Result
				var err error
				switch {
				case o.Plan != nil:
					res, err = check.Plan(*o.Cluster, *o.Plan)
				case o.Decisions != nil:
					res, err = check.Decisions(*o.Disruption, *o.Decisions)
				}
				require.NoError(t, err)
				steps++
				for _, f := range res.Failures {
					failures = append(failures, fmt.Sprintf("%s: %+v", o.Time.Format(time.RFC3339), f))
				}
			}
			_, err := app.Replay(app.Config{Paths: []string{dir + "/cluster"}}, dir+"/events.yaml", time.Time{}, replay.Options{Until: tc.until, Observe: observe})
			require.NoError(t, err)
			require.NotZero(t, steps)
			require.Empty(t, failures)
		})
	}
}
