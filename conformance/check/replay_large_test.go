package check_test

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/conformance/check"
	"github.com/nodeplan/nodeplan/internal/replaytrace"
	"github.com/nodeplan/nodeplan/replay"
)

// largeTraceHours is how much of replaytrace's day (5,000 pods at its peak)
// TestReplayLargeTraceConformsSampled replays: its first six hours, 824 events, where the
// Deployments shrink to their night level and grow again while Jobs come and go, so the
// sample holds launches, consolidations and evictions (about 1,400 steps, 1,900 pods
// created, 147 nodes at the peak). That takes about 17 s of CPU; eight hours take four times
// as much. NODEPLAN_REPLAY_HOURS changes it (24 for the whole day).
const largeTraceHours = 6

// Every 50th provisioning or disruption step of a large generated trace passes
// kube-scheduler's filters in the state it leaves, each pod checked with itself removed, and
// the plan's or decisions' accounting; at the end every created pod is running, pending with
// a reason, finished or deleted, and the cost is the timeline's integral and the nodes'
// lifetimes times their prices.
func TestReplayLargeTraceConformsSampled(t *testing.T) {
	if testing.Short() {
		t.Skip("replays hours of a 5,000-pod day")
	}
	hours := largeTraceHours
	if h := os.Getenv("NODEPLAN_REPLAY_HOURS"); h != "" {
		var err error
		hours, err = strconv.Atoi(h)
		require.NoError(t, err, "NODEPLAN_REPLAY_HOURS")
	}
	t0 := time.Date(2026, 1, 12, 0, 0, 0, 0, time.UTC)
	end := t0.Add(time.Duration(hours) * time.Hour)
	events := replaytrace.NewDay(t0, 1).Until(end)
	start, err := replaytrace.Cluster(t0)
	require.NoError(t, err)

	const every = 50
	var steps, checked, provisioning, disruption int
	var failures []string
	var checkErr error
	observe := func(o replay.Observation) {
		steps++
		if steps%every != 0 || checkErr != nil {
			return
		}
		var res check.Result
		switch {
		case o.Plan != nil:
			res, checkErr = check.Plan(*o.Cluster, *o.Plan)
			provisioning++
		case o.Decisions != nil:
			res, checkErr = check.Decisions(*o.Disruption, *o.Decisions)
			disruption++
		}
		checked++
		for _, f := range res.Failures {
			failures = append(failures, fmt.Sprintf("step %d at %s: %+v", steps, o.Time.Format(time.RFC3339), f))
		}
	}
	began := time.Now()
	res, err := replay.Run(start, events, replay.Options{Until: end, Observe: observe})
	require.NoError(t, err)
	require.NoError(t, checkErr)
	t.Logf("%d events over %d h: %d steps, %d checked (%d provisioning, %d disruption); peak %d nodes, %d pods created, %d evicted; %s",
		len(events), hours, steps, checked, provisioning, disruption, res.Summary.PeakNodes, res.Summary.Pods.Created, res.Summary.PodsEvicted, time.Since(began).Round(time.Second))
	require.Greater(t, provisioning, 0, "the sample holds provisioning steps")
	require.Greater(t, disruption, 0, "the sample holds disruption steps")
	require.Empty(t, failures)

	pods := res.Summary.Pods
	require.Equal(t, pods.Created, pods.Running+pods.Pending+pods.Finished+pods.Deleted, "every created pod is running, pending, finished or deleted")
	require.Len(t, res.Summary.Unschedulable, pods.Pending, "every pending pod is listed with its reason")
	for _, u := range res.Summary.Unschedulable {
		require.NotEmpty(t, u.Reason, "pending pod %s has a reason", u.Pod)
	}
	lifetimes := 0.0
	for _, n := range res.Nodes {
		lifetimes += n.Hours(res.End) * n.Price
	}
	require.InDelta(t, lifetimes, res.Summary.TotalCost, 1e-5, "cost is the sum of lifetime × price")
	require.InDelta(t, replay.Integral(res.Timeline, res.End), res.Summary.TotalCost, 1e-5, "cost is the timeline's integral")
}
