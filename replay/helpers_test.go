package replay_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/internal/replaytrace"
	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/replay"
	"github.com/nodeplan/nodeplan/scheduling"
)

var t0 = time.Date(2026, 1, 12, 9, 0, 0, 0, time.UTC)

// small and large are two on-demand types in one zone: a large is cheaper than three smalls.
func small() *instancetype.InstanceType {
	return tb.Type("small", "2", "4Gi", 20).Offer("us-west-2a", "on-demand", 0.10).Obj()
}

func large() *instancetype.InstanceType {
	return tb.Type("large", "8", "16Gi", 50).Offer("us-west-2a", "on-demand", 0.28).Obj()
}

// startCluster is an empty cluster whose one NodePool consolidates after consolidateAfter.
func startCluster(consolidateAfter time.Duration) disruption.Input {
	np := tb.NodePool("default", small(), large()).ConsolidateAfter(consolidateAfter).Obj()
	np.Disruption.ConsolidationPolicy = scheduling.ConsolidationWhenEmptyOrUnderutilized
	return disruption.Input{NodePools: []*scheduling.NodePool{np}, Now: t0}
}

// The generated day's workload builders, at hand for the scenarios here.
var (
	deployment = replaytrace.Deployment
	job        = replaytrace.Job
)

func at(d time.Duration) time.Time { return t0.Add(d) }

func create(d time.Duration, obj any) replay.Event {
	ev := replay.Event{Time: at(d), Type: replay.Create, Source: "test"}
	switch o := obj.(type) {
	case *appsv1.Deployment:
		ev.Kind, ev.Key, ev.Deployment = replay.KindDeployment, o.Namespace+"/"+o.Name, o
	case *batchv1.Job:
		ev.Kind, ev.Key, ev.Job = replay.KindJob, o.Namespace+"/"+o.Name, o
	}
	return ev
}

func scale(d time.Duration, name string, replicas int32) replay.Event {
	return replay.Event{Time: at(d), Type: replay.Scale, Kind: replay.KindDeployment, Key: "default/" + name, Replicas: replicas, Source: "test"}
}

func remove(d time.Duration, kind, name string) replay.Event {
	return replay.Event{Time: at(d), Type: replay.Delete, Kind: kind, Key: "default/" + name, Source: "test"}
}

func run(t *testing.T, start disruption.Input, events ...replay.Event) replay.Result {
	t.Helper()
	res, err := replay.Run(start, events, replay.Options{})
	require.NoError(t, err)
	checkInvariants(t, res)
	return res
}

// checkInvariants holds for every replay: the total cost is the timeline's integral and the
// sum of the nodes' lifetimes times their prices; every created pod is accounted for.
func checkInvariants(t testing.TB, res replay.Result) {
	t.Helper()
	lifetimes := 0.0
	for _, n := range res.Nodes {
		lifetimes += n.Hours(res.End) * n.Price
	}
	require.InDelta(t, lifetimes, res.Summary.TotalCost, 1e-5, "cost is the sum of lifetime × price")
	require.InDelta(t, replay.Integral(res.Timeline, res.End), res.Summary.TotalCost, 1e-5, "cost is the timeline's integral")
	c := res.Summary.Pods
	require.Equal(t, c.Created, c.Running+c.Pending+c.Finished+c.Deleted, "every created pod is running, pending, finished or deleted")
	require.Len(t, res.Summary.Unschedulable, c.Pending, "every pending pod is listed with its reason")
	for i := 1; i < len(res.Timeline); i++ {
		require.True(t, res.Timeline[i-1].Time.Before(res.Timeline[i].Time), "timeline in time order")
	}
}

// requireDecidedAlike decides in afresh and requires the replay's decisions at that step to be
// the same, byte for byte; it returns the fresh ones.
func requireDecidedAlike(t *testing.T, in disruption.Input, o replay.Observation) disruption.Decisions {
	t.Helper()
	want, err := disruption.Decide(in)
	require.NoError(t, err)
	wantJSON, err := json.Marshal(want)
	require.NoError(t, err)
	gotJSON, err := json.Marshal(o.Decisions)
	require.NoError(t, err)
	require.Equal(t, string(wantJSON), string(gotJSON), "at %s", o.Time)
	return want
}
