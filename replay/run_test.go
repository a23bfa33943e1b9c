package replay_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/nodeplan/nodeplan/disruption"
	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/replay"
	"github.com/nodeplan/nodeplan/scheduling"
)

// A node is ready a minute after launch; its pods wait for the batch (1 s idle) and the
// startup, and the node is paid for from its launch.
func TestProvisioningTimings(t *testing.T) {
	res := run(t, startCluster(time.Hour), create(0, deployment("web", 2, "1")))
	require.Equal(t, []replay.Decision{{Time: at(time.Second), Kind: replay.DecisionLaunch, Nodes: []string{"default-1"}, Pods: 2}}, res.Decisions)
	require.Equal(t, replay.Percentiles{P50: 61, P95: 61, Max: 61}, res.Summary.PendingSeconds)
	require.Equal(t, at(61*time.Second), res.End, "the replay stops once the cluster is at rest")
	require.Equal(t, []replay.Point{
		{Time: at(0), Pods: 2, Pending: 2},
		{Time: at(time.Second), Nodes: 1, Pods: 2, Pending: 2, HourlyCost: 0.10},
		{Time: at(61 * time.Second), Nodes: 1, Pods: 2, HourlyCost: 0.10},
	}, res.Timeline)
	require.InDelta(t, 0.10*60/3600, res.Summary.TotalCost, 1e-6)
}

// Pods created within the idle window share a batch; the batch closes after at most 10 s.
func TestBatching(t *testing.T) {
	var events []replay.Event
	for i := range 15 { // one pod every 800 ms: never idle for 1 s, so the 10 s cap closes the batch
		events = append(events, create(time.Duration(i)*800*time.Millisecond, deployment("w"+string(rune('a'+i)), 1, "100m")))
	}
	res := run(t, startCluster(time.Hour), events...)
	var launches []replay.Decision
	for _, d := range res.Decisions {
		if d.Kind == replay.DecisionLaunch {
			launches = append(launches, d)
		}
	}
	require.Len(t, launches, 1, "the last two pods fit on the node launched for the first batch")
	require.Equal(t, at(10*time.Second), launches[0].Time, "the first batch is cut at 10 s")
	require.Equal(t, 13, launches[0].Pods)
	last := res.Timeline[len(res.Timeline)-1]
	require.Equal(t, replay.Point{Time: at(70 * time.Second), Nodes: 1, Pods: 15, HourlyCost: 0.10}, last,
		"every pod runs once the node is ready: the later ones were counted onto it while it launched")
}

// A trace that only scales up ends where a plan of the same pods from scratch would, once
// consolidation has had its say.
func TestScaleUpEndsWherePlanWould(t *testing.T) {
	res := run(t, startCluster(time.Minute),
		create(0, deployment("a", 1, "1500m")),
		create(5*time.Minute, deployment("b", 3, "1")),
		scale(5*time.Minute, "b", 6))
	require.Equal(t, map[string]int{"underutilized": 1}, res.Summary.Terminated, "the first node's pod moved to the larger one")
	pods := []*corev1.Pod{tb.Pod("a").CPU("1500m").Obj()}
	for i := range 6 {
		pods = append(pods, tb.Pod("b"+string(rune('0'+i))).CPU("1").Obj())
	}
	plan, err := scheduling.Solve(scheduling.Input{Pods: pods, NodePools: startCluster(time.Minute).NodePools})
	require.NoError(t, err)
	last := res.Timeline[len(res.Timeline)-1]
	require.Equal(t, plan.Summary.HourlyCost, last.HourlyCost)
	require.Equal(t, len(plan.NodeClaims), last.Nodes)
	require.Zero(t, last.Pending)
}

// Deleting every workload leaves no NodePool node once consolidateAfter has passed.
func TestDeletingEverythingEmptiesTheCluster(t *testing.T) {
	res := run(t, startCluster(3*time.Minute),
		create(0, deployment("a", 4, "1")),
		create(time.Minute, deployment("b", 3, "500m")),
		remove(20*time.Minute, replay.KindDeployment, "a"),
		scale(21*time.Minute, "b", 0))
	last := res.Timeline[len(res.Timeline)-1]
	require.Zero(t, last.Nodes)
	require.Zero(t, last.HourlyCost)
	require.Equal(t, at(24*time.Minute).Add(disruption.CommandValidationDelay), res.End, "the last node goes consolidateAfter after its last pod left, on the 10 s cadence, once the command is validated")
	deleted := 0
	for _, n := range res.Summary.Terminated {
		deleted += n
	}
	require.Equal(t, res.Summary.Launched, deleted)
	require.Equal(t, 7, res.Summary.Pods.Deleted)
}

// A scale-down removes pods not yet on a node first, then the most recently started.
func TestScaleDownOrder(t *testing.T) {
	t.Run("pending first", func(t *testing.T) {
		res := run(t, startCluster(time.Hour), create(0, deployment("web", 2, "1")),
			scale(5*time.Minute, "web", 4), scale(5*time.Minute, "web", 2))
		require.Len(t, res.Decisions, 1, "the two new pods were removed before any node was launched for them")
		require.Equal(t, 2, res.Summary.Pods.Running)
	})
	t.Run("newest first", func(t *testing.T) {
		// WhenEmpty: only an emptied node goes, so the deleted node shows which pods went.
		start := startCluster(time.Minute)
		start.NodePools[0].Disruption.ConsolidationPolicy = scheduling.ConsolidationWhenEmpty
		res := run(t, start, create(0, deployment("web", 2, "1")),
			scale(5*time.Minute, "web", 4), scale(10*time.Minute, "web", 2))
		var deleted []string
		for _, d := range res.Decisions {
			if d.Kind == replay.DecisionDelete {
				deleted = append(deleted, d.Nodes...)
			}
		}
		require.Equal(t, []string{"default-2"}, deleted, "the pods started at 5 m go, emptying their node")
	})
}

// An underutilized node is replaced by a cheaper one: the replacement is ready before the
// node drains, the evicted pods run on it, and the node is deleted after their grace period.
func TestConsolidationReplaces(t *testing.T) {
	res := run(t, startCluster(time.Minute), create(0, deployment("web", 8, "1")), scale(10*time.Minute, "web", 2))
	require.Equal(t, map[string]int{"underutilized": 1}, res.Summary.Terminated)
	require.Equal(t, 2, res.Summary.PodsEvicted)
	var disrupt, deleted replay.Decision
	for _, d := range res.Decisions {
		switch d.Kind {
		case replay.DecisionDisrupt:
			disrupt = d
		case replay.DecisionDelete:
			deleted = d
		}
	}
	require.Equal(t, "underutilized", disrupt.Reason)
	require.Equal(t, []string{"default-1"}, disrupt.Nodes)
	require.Len(t, disrupt.Replacements, 1)
	require.Equal(t, at(11*time.Minute).Add(disruption.CommandValidationDelay), disrupt.Time, "consolidateAfter (1 m) after the scale-down, and validated 15 s later")
	require.Equal(t, disrupt.Time.Add(60*time.Second+30*time.Second), deleted.Time, "replacement ready 60 s later, then the pods' 30 s grace")
	last := res.Timeline[len(res.Timeline)-1]
	require.Equal(t, 1, last.Nodes)
	require.Equal(t, 0.10, last.HourlyCost)
	require.Zero(t, last.Pending)
}

// A PodDisruptionBudget paces a drain: one eviction at a time, the next once the evicted pod
// runs again, on the disruption cadence.
func TestDrainRespectsPDBs(t *testing.T) {
	start := startCluster(time.Minute)
	one := intstr.FromInt32(1)
	start.PodDisruptionBudgets = []*policyv1.PodDisruptionBudget{{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec:       policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &one, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
	}}
	res := run(t, start, create(0, deployment("web", 8, "1")), scale(10*time.Minute, "web", 2))
	require.Equal(t, 2, res.Summary.PodsEvicted)
	var deleted replay.Decision
	for _, d := range res.Decisions {
		if d.Kind == replay.DecisionDelete {
			deleted = d
		}
	}
	require.Equal(t, at(11*time.Minute+disruption.CommandValidationDelay+60*time.Second+10*time.Second+30*time.Second), deleted.Time, "the second eviction waits one drain step")
}

// Jobs run for activeDeadlineSeconds, else the event's duration, else JobDuration; their
// pods finish and their node empties.
func TestJobDurations(t *testing.T) {
	deadline := job("deadline", 1, "1")
	deadline.Spec.ActiveDeadlineSeconds = ptr(int64(300))
	withDuration := create(0, job("timed", 1, "1"))
	withDuration.Duration = 20 * time.Minute
	res, err := replay.Run(startCluster(time.Minute), []replay.Event{create(0, deadline), withDuration, create(0, job("plain", 2, "1"))},
		replay.Options{JobDuration: 7 * time.Minute})
	require.NoError(t, err)
	checkInvariants(t, res)
	require.Equal(t, replay.PodCounts{Created: 4, Finished: 4}, res.Summary.Pods)
	require.Zero(t, res.Timeline[len(res.Timeline)-1].Nodes)
	// The longest job ends 61 s + 20 m in; its node goes a minute later (on the cadence), once
	// the command is validated.
	require.Equal(t, at(61*time.Second+20*time.Minute+time.Minute).Add(9*time.Second+disruption.CommandValidationDelay), res.End)
}

// A spot interruption drains the node at once and the instance goes two minutes later; a
// failed node goes at once. Their pods run again on new nodes.
func TestInterruptionAndFailure(t *testing.T) {
	for _, tc := range []struct {
		kind   replay.EventType
		reason string
		gone   time.Duration
	}{{replay.Interrupt, "interruption", 2 * time.Minute}, {replay.Fail, "failure", 0}} {
		t.Run(string(tc.kind), func(t *testing.T) {
			ev := replay.Event{Time: at(10 * time.Minute), Type: tc.kind, Kind: replay.KindNode, Key: "default-1", Source: "test"}
			res := run(t, startCluster(time.Hour), create(0, deployment("web", 2, "1")), ev)
			require.Equal(t, map[string]int{tc.reason: 1}, res.Summary.Terminated)
			require.Equal(t, "default-1", res.Nodes[0].Name)
			require.Equal(t, at(10*time.Minute+tc.gone), res.Nodes[0].Deleted)
			require.Equal(t, 2, res.Summary.Launched)
			require.Equal(t, 2, res.Summary.Pods.Running)
		})
	}
}

// The same input gives the same result, byte for byte.
func TestDeterminism(t *testing.T) {
	events := []replay.Event{create(0, deployment("a", 6, "700m")), create(time.Minute, job("j", 3, "1")),
		scale(15*time.Minute, "a", 1), create(16*time.Minute, deployment("b", 9, "300m"))}
	first, err := json.Marshal(run(t, startCluster(2*time.Minute), events...))
	require.NoError(t, err)
	for range 3 {
		again, err := json.Marshal(run(t, startCluster(2*time.Minute), events...))
		require.NoError(t, err)
		require.Equal(t, string(first), string(again))
	}
}

// Events naming what is not there are warnings, not failures; events before the start
// are errors.
func TestBadEvents(t *testing.T) {
	res := run(t, startCluster(time.Hour), scale(0, "ghost", 3),
		replay.Event{Time: at(time.Minute), Type: replay.Interrupt, Kind: replay.KindNode, Key: "nowhere", Source: "events.yaml: events[1]"})
	require.Equal(t, []string{
		"test: Deployment default/ghost does not exist (scale without create); ignored",
		"events.yaml: events[1]: node nowhere is not in the cluster at 2026-01-12T09:01:00Z; ignored",
	}, res.Warnings)
	_, err := replay.Run(startCluster(time.Hour), []replay.Event{scale(-time.Minute, "web", 1)}, replay.Options{})
	require.EqualError(t, err, "test: at 2026-01-12T08:59:00Z, before the start 2026-01-12T09:00:00Z")
}

func ptr[T any](v T) *T { return &v }

// A pod that fits nowhere waits, with its reason, until room is freed: a NodePool limit
// allows one node, and the pod runs once another workload is deleted.
func TestPendingUntilRoomIsFreed(t *testing.T) {
	start := startCluster(time.Hour)
	start.NodePools[0] = tb.NodePool("default", small()).Limit("cpu", "2").ConsolidateAfter(time.Hour).Obj()
	res := run(t, start, create(0, deployment("a", 2, "1")), create(time.Minute, deployment("b", 1, "1")))
	require.Len(t, res.Summary.Unschedulable, 1)
	require.Equal(t, "default/b-0", res.Summary.Unschedulable[0].Pod)
	require.NotEmpty(t, res.Summary.Unschedulable[0].Reason)

	res = run(t, start, create(0, deployment("a", 2, "1")), create(time.Minute, deployment("b", 1, "1")), scale(10*time.Minute, "a", 1))
	require.Empty(t, res.Summary.Unschedulable)
	require.Equal(t, 3, res.Summary.Pods.Created)
	require.Equal(t, replay.Percentiles{P50: 61, P95: 9*60 + 1, Max: 9*60 + 1}, res.Summary.PendingSeconds, "b-0 runs 1 s (a batch) after a-1 left at 10 m")
}
