package suite

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/conformance/check"
	"github.com/nodeplan/nodeplan/scheduling"
)

// maxListed bounds the failures a test prints.
const maxListed = 20

// requireValid solves in, checks the plan and fails the test on any failing check, listing the
// first few. It logs a summary either way.
func requireValid(t *testing.T, in scheduling.Input) scheduling.Plan {
	t.Helper()
	start := time.Now()
	plan, err := scheduling.Solve(in)
	require.NoError(t, err)
	solved := time.Since(start)
	requirePlanValid(t, in, plan, solved)
	return plan
}

func requirePlanValid(t *testing.T, in scheduling.Input, plan scheduling.Plan, solved time.Duration) {
	t.Helper()
	start := time.Now()
	res, err := check.Plan(in, plan)
	require.NoError(t, err)
	t.Logf("%d pods: %d placed, %d unschedulable, %d new nodes, $%.3f/h; solve %v, check %v; %s",
		plan.Summary.Pods, plan.Summary.Placed, len(plan.Unschedulable), plan.Summary.NewNodes, plan.Summary.HourlyCost,
		solved.Round(time.Millisecond), time.Since(start).Round(time.Millisecond), res.Summary())
	if len(res.Failures) > 0 {
		var b strings.Builder
		for i, f := range res.Failures {
			if i == maxListed {
				fmt.Fprintf(&b, "  … and %d more\n", len(res.Failures)-maxListed)
				break
			}
			fmt.Fprintf(&b, "  %s\n", f)
		}
		t.Errorf("%d failing checks:\n%s", len(res.Failures), b.String())
	}
}
