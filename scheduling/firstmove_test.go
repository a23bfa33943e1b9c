package scheduling_test

import (
	"fmt"
	"math/rand"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

// TestFirstMoveStopsWhereTheSolveStops checks Simulate's shortcut for what-ifs that stop at
// their first displaced pod against a solve from scratch: on random growing clusters, plain or
// with some pods that spread, take a host port or keep others of their app away, with nodes
// still starting, pending pods that fit no node (which leave the shortcut on), one that fits
// or that spreads (which turn it off), and what-ifs removing one to several nodes. Every
// what-if plans or stops as the solve does, also after its first round was asked, and the
// shortcut answers many of them.
func TestFirstMoveStopsWhereTheSolveStops(t *testing.T) {
	clusters, changes := 40, 25
	if testing.Short() {
		clusters = 12
	}
	answered, stopped, final := 0, 0, 0
	for seed := int64(1); seed <= int64(clusters); seed++ {
		r := rand.New(rand.NewSource(seed))
		grown, _ := growCluster(t, r, seed%3 == 0)
		in := grown.Input()
		in.Pods = pendingPods(r)
		c, err := scheduling.Prepare(in)
		require.NoError(t, err)
		nodes := in.ExistingNodes
		for step := range changes {
			var change scheduling.Change
			remove := 1 + r.Intn(2)
			if r.Intn(5) == 0 {
				remove = 1 + r.Intn(len(nodes))
			}
			for range remove {
				change.RemoveNodes = append(change.RemoveNodes, nodes[r.Intn(len(nodes))].Node.Name) // a name twice at times
			}
			opts := scheduling.Options{StopOnUninitialized: r.Intn(6) > 0, SkipLowerBound: true}
			if r.Intn(4) == 0 {
				opts.PreferencePolicy = scheduling.PreferencesIgnore
			}
			where := fmt.Sprintf("seed %d, step %d, change %+v, options %+v", seed, step, change, opts)
			want, wantErr := scheduling.SimulateFresh(c, change, opts)
			// The first round first, as consolidation asks it: the Cluster keeps its walk for the
			// stop and the simulation of the same change that follow.
			round, roundOK := c.FirstRound(change, opts)
			short := scheduling.FirstMoveStop(c, change, opts)
			got, gotErr := c.Simulate(change, opts)
			require.Equal(t, wantErr, gotErr, where)
			require.Empty(t, cmp.Diff(want, got), where)
			if short != nil {
				require.Equal(t, wantErr, short, where)
				answered++
			}
			if wantErr != nil {
				stopped++
			}
			if roundOK && round.Final {
				require.Empty(t, cmp.Diff(leftToNewNodes(want, nodes, change), podKeys(round.Waiting)), where)
				final++
			}
		}
	}
	t.Logf("%d what-ifs stopped at a starting node, %d of them answered without a solve; %d first rounds final", stopped, answered, final)
	require.Greater(t, final, clusters, "first rounds that tell which pods need new nodes")
	require.Greater(t, answered, clusters*changes/20, "the shortcut answers what-ifs")
	require.Greater(t, stopped, answered, "and leaves others to the solve")
}

// leftToNewNodes are the keys, sorted, of the pods of the change's removed nodes that the
// plan puts on new nodes or leaves unschedulable (none when it stopped).
func leftToNewNodes(plan scheduling.Plan, nodes []*scheduling.ExistingNode, change scheduling.Change) []string {
	removed := map[string]bool{}
	for _, en := range nodes {
		if slices.Contains(change.RemoveNodes, en.Node.Name) {
			for _, p := range en.Pods {
				removed[p.Namespace+"/"+p.Name] = true
			}
		}
	}
	out := []string{}
	for _, pl := range plan.Placements {
		if k := pl.Pod.Namespace + "/" + pl.Pod.Name; removed[k] && (pl.NodeClaim >= 0 || pl.Node == "") {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// podKeys are the pods' namespace/name, sorted.
func podKeys(pods []*corev1.Pod) []string {
	out := []string{}
	for _, p := range pods {
		out = append(out, p.Namespace+"/"+p.Name)
	}
	slices.Sort(out)
	return out
}

// pendingPods are pods waiting for nodes: none, or some too large for any node's room (16
// cpus), with at times one that may fit a node, queued before most displaced pods (2 to 3.5
// cpus), or one that spreads over zones with the web pods, or one that keeps them out of its
// zone.
func pendingPods(r *rand.Rand) []*corev1.Pod {
	var pods []*corev1.Pod
	if r.Intn(4) == 0 {
		return nil
	}
	for i := range 1 + r.Intn(3) {
		pods = append(pods, tb.Pod(fmt.Sprintf("waiting-%d", i)).CPU("16").Obj())
	}
	switch r.Intn(5) {
	case 0:
		pods = append(pods, tb.Pod("fitting").CPU(fmt.Sprintf("%dm", 2000+100*r.Intn(16))).Obj())
	case 1:
		pods = append(pods, tb.Pod("spread").CPU("16").Label("app", "web").ZoneSpread(1).Obj()) // counts the web pods
	case 2:
		// Too large for any node's room but not for a new node: planned before the displaced
		// pods, it keeps the web pods out of its zone.
		pods = append(pods, tb.Pod("guard").CPU("7500m").AntiAffinity(corev1.LabelTopologyZone, map[string]string{"app": "web"}).Obj())
	}
	return pods
}

// TestFirstMoveLeavesTheRestToTheSolve: a what-if whose displaced pod lands on a node still
// starting in the solve's first round is answered without a solve when what is placed before
// it is known: pending pods that take room where they land as the cluster is, or without the
// removed node when they are plain, and displaced pods that take a ready node's room. Not when
// a pending pod with a host port must find another node, when a pending pod's rule keeps it
// out of a zone, when the displaced pod spreads, nor when its name is given twice. Each case
// plans or stops as the solve from scratch does.
func TestFirstMoveLeavesTheRestToTheSolve(t *testing.T) {
	node := func(name, zone string, pods ...*corev1.Pod) *tb.NodeBuilder {
		return tb.Node(name, "4", "8Gi", 20).NodePool("default").Zone(zone).Pods(pods...)
	}
	spreadWeb := func(name string) *corev1.Pod {
		return tb.Pod(name).Label("app", "web").CPU("1").HostnameSpread(1).Obj()
	}
	for _, tc := range []struct {
		name string
		// filler is what a-full's pod asks, 3900m unless said.
		filler  string
		pending []*corev1.Pod
		// leaving runs on b-leaving (web-1 of 1 cpu unless said), starting on c-starting;
		// alsoLeaving, when set, on e-leaving, which leaves too.
		leaving, starting, alsoLeaving []*corev1.Pod
		// stopped is the stop's pod and node, "" when the what-if plans to the end.
		stopped  string
		answered bool // by the shortcut
	}{{
		name:     "nothing else moves: the first node with room, still starting",
		stopped:  "default/web-1 c-starting",
		answered: true,
	}, {
		name:     "a pending pod, queued first, takes that node's room",
		pending:  []*corev1.Pod{tb.Pod("big").CPU("3500m").Obj()},
		stopped:  "default/web-1 d-starting",
		answered: true,
	}, {
		name:    "a pending pod queued after it takes no room from it",
		filler:  "2900m",
		pending: []*corev1.Pod{tb.Pod("late").CPU("500m").Obj()},
	}, {
		name:     "a pending pod like the displaced one, queued first by its name, takes the room",
		filler:   "2900m",
		pending:  []*corev1.Pod{webPod("web-0", "1")},
		stopped:  "default/web-1 c-starting",
		answered: true,
	}, {
		name:    "one queued after it by its name leaves it the room",
		filler:  "2900m",
		pending: []*corev1.Pod{webPod("web-2", "1")},
	}, {
		name:     "a pending pod queued first lands on the removed node as the cluster is, elsewhere without it",
		pending:  []*corev1.Pod{tb.Pod("mid").CPU("2").Obj()},
		stopped:  "default/web-1 c-starting",
		answered: true,
	}, {
		name:    "the same with a host port: where it lands without the node is left to the solve",
		pending: []*corev1.Pod{tb.Pod("porter").CPU("2").HostPort(8080).Obj()},
		stopped: "default/web-1 c-starting",
	}, {
		name:     "a displaced pod that fits a ready node takes its room from the next",
		filler:   "2900m",
		leaving:  []*corev1.Pod{webPod("web-1", "1"), webPod("web-2", "1")},
		stopped:  "default/web-2 c-starting",
		answered: true,
	}, {
		name:     "displaced pods of one class fill a ready node's room one after the other",
		filler:   "1900m",
		leaving:  []*corev1.Pod{webPod("web-1", "1"), webPod("web-2", "1"), webPod("web-3", "1")},
		stopped:  "default/web-3 c-starting",
		answered: true,
	}, {
		name: "a pending pod planned first keeps web pods out of its zone",
		pending: []*corev1.Pod{tb.Pod("guard").CPU("6").NodeSelector(corev1.LabelTopologyZone, "us-west-2a").
			AntiAffinity(corev1.LabelTopologyZone, map[string]string{"app": "web"}).Obj()},
		stopped: "default/web-1 d-starting",
	}, {
		name:     "a pending pod queued after that lands elsewhere than it would have",
		filler:   "2900m",
		pending:  []*corev1.Pod{tb.Pod("p500").CPU("500m").Obj()},
		leaving:  []*corev1.Pod{webPod("web-1", "1"), webPod("web-3", "300m")},
		starting: []*corev1.Pod{tb.Pod("busy").CPU("3500m").Obj()},
		stopped:  "default/web-3 d-starting",
		answered: true,
	}, {
		name:     "the displaced pod spreads over nodes and skips the one that runs a pod like it",
		leaving:  []*corev1.Pod{spreadWeb("web-1")},
		starting: []*corev1.Pod{spreadWeb("web-0")},
		stopped:  "default/web-1 d-starting",
	}, {
		name:    "a pending pod of the same name: the displaced one is refused",
		pending: []*corev1.Pod{tb.Pod("web-1").CPU("16").Obj()},
	}, {
		name:        "two displaced pods of one name: the second in input order is refused",
		leaving:     []*corev1.Pod{webPod("web-1", "1")},
		alsoLeaving: []*corev1.Pod{tb.Pod("web-1").Label("app", "web").CPU("1").NodeSelector(corev1.LabelTopologyZone, "us-west-2b").Obj()},
		stopped:     "default/web-1 c-starting",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			filler, leaving := tc.filler, tc.leaving
			if filler == "" {
				filler = "3900m"
			}
			if leaving == nil {
				leaving = []*corev1.Pod{webPod("web-1", "1")}
			}
			existing := nodes(
				node("a-full", "us-west-2a", tb.Pod("filler").CPU(filler).Obj()).Obj(),
				node("b-leaving", "us-west-2b", leaving...).Obj(),
				node("c-starting", "us-west-2a", tc.starting...).Uninitialized().Obj(),
				node("d-starting", "us-west-2b").Uninitialized().Obj(),
			)
			change, opts := scheduling.Change{RemoveNodes: []string{"b-leaving"}}, scheduling.Options{StopOnUninitialized: true}
			if tc.alsoLeaving != nil {
				existing = append(existing, node("e-leaving", "us-west-2b", tc.alsoLeaving...).Obj())
				change.RemoveNodes = append(change.RemoveNodes, "e-leaving")
			}
			c, err := scheduling.Prepare(scheduling.Input{Pods: tc.pending, NodePools: pools(defaultPool()), ExistingNodes: existing})
			require.NoError(t, err)
			wantPlan, want := scheduling.SimulateFresh(c, change, opts)
			if tc.stopped == "" {
				require.NoError(t, want)
			} else {
				var stop *scheduling.UninitializedError
				require.ErrorAs(t, want, &stop)
				require.Equal(t, tc.stopped, stop.Pod+" "+stop.Node)
			}
			short := scheduling.FirstMoveStop(c, change, opts)
			if tc.answered {
				require.Equal(t, want, short)
			} else {
				require.NoError(t, short)
			}
			plan, got := c.Simulate(change, opts)
			require.Equal(t, want, got)
			require.Empty(t, cmp.Diff(wantPlan, plan))
		})
	}
}

// TestFirstMovesOnClonesConcurrently runs what-ifs that stop early on clones of one cluster at
// once: they share the nodes' conversions, where firstMoves memoises what leaves with each
// node, and must answer as a solve from scratch does (go test -race sees a write to what they
// share).
func TestFirstMovesOnClonesConcurrently(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	grown, _ := growCluster(t, r, false)
	in := grown.Input()
	in.Pods = []*corev1.Pod{tb.Pod("waiting").CPU("16").Obj(), tb.Pod("fitting").CPU("2").Obj()}
	c, err := scheduling.Prepare(in)
	require.NoError(t, err)
	opts := scheduling.Options{StopOnUninitialized: true, SkipLowerBound: true}
	var changes []scheduling.Change
	var want []error
	for i := 0; i < len(in.ExistingNodes); i += 2 {
		change := scheduling.Change{RemoveNodes: []string{in.ExistingNodes[i].Node.Name}}
		if i+1 < len(in.ExistingNodes) && i%4 == 0 {
			change.RemoveNodes = append(change.RemoveNodes, in.ExistingNodes[i+1].Node.Name)
		}
		_, err := scheduling.SimulateFresh(c, change, opts)
		changes, want = append(changes, change), append(want, err)
	}
	got := make([][]error, 4)
	var wg sync.WaitGroup
	for w := range got {
		clone := c.Clone()
		got[w] = make([]error, len(changes))
		wg.Go(func() {
			for range 2 {
				for i, change := range changes {
					_, got[w][i] = clone.Simulate(change, opts)
				}
			}
		})
	}
	wg.Wait()
	for w := range got {
		require.Equal(t, want, got[w], "clone %d", w)
	}
	answered := 0
	for _, change := range changes {
		if scheduling.FirstMoveStop(c, change, opts) != nil {
			answered++
		}
	}
	require.Positive(t, answered, "the clones answered what-ifs without a solve")
}

// TestFirstRoundWaitingIsFinal: the displaced pods no existing node takes in the first round
// are those left to new nodes only when nothing can be relaxed. With a PreferNoSchedule taint
// or a preference, a pod that waits, and finds no new node (the NodePool's limits), comes back
// to an existing node: the round is not final.
func TestFirstRoundWaitingIsFinal(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ready *tb.NodeBuilder
		web   *tb.PodBuilder
		final bool
	}{{
		name:  "a ready node too small: the pod waits for good",
		ready: tb.Node("a-ready", "4", "8Gi", 20).Pods(tb.Pod("filler").CPU("3500m").Obj()),
		web:   tb.Pod("web-1").CPU("1"),
		final: true,
	}, {
		name:  "a ready node with a PreferNoSchedule taint takes it once it tolerates that",
		ready: tb.Node("a-ready", "4", "8Gi", 20).Taint("spare", "true", corev1.TaintEffectPreferNoSchedule),
		web:   tb.Pod("web-1").CPU("1"),
	}, {
		name:  "a pod preferring another zone takes the ready node once it gives that up",
		ready: tb.Node("a-ready", "4", "8Gi", 20),
		web:   tb.Pod("web-1").CPU("1").PreferredTerm(10, tb.In(corev1.LabelTopologyZone, "us-west-2b")),
	}} {
		t.Run(tc.name, func(t *testing.T) {
			existing := nodes(
				tc.ready.NodePool("default").Zone("us-west-2a").Obj(),
				tb.Node("b-leaving", "4", "8Gi", 20).NodePool("default").Zone("us-west-2a").Pods(tc.web.Obj()).Obj(),
			)
			pool := tb.NodePool("default", c2(), c4(), c8()).Limit(corev1.ResourceCPU, "4") // full without b-leaving too: no new node
			c, err := scheduling.Prepare(scheduling.Input{NodePools: pools(pool.Obj()), ExistingNodes: existing})
			require.NoError(t, err)
			change, opts := scheduling.Change{RemoveNodes: []string{"b-leaving"}}, scheduling.Options{StopOnUninitialized: true}
			round, ok := c.FirstRound(change, opts)
			require.True(t, ok)
			require.Nil(t, round.Stopped)
			require.Equal(t, []string{"default/web-1"}, podKeys(round.Waiting))
			require.Equal(t, tc.final, round.Final)
			plan, err := scheduling.SimulateFresh(c, change, opts)
			require.NoError(t, err)
			if tc.final {
				require.Equal(t, podKeys(round.Waiting), leftToNewNodes(plan, existing, change))
			} else {
				require.Empty(t, leftToNewNodes(plan, existing, change), "the pod ends on the ready node")
			}
		})
	}
}

// TestFirstMoveFollowsPendingPodsThatMove: a displaced pod takes the room a pending pod lands
// on as the cluster is, so that pending pod lands on the next node, and the one queued after
// it, which took that node as the cluster is, moves on to the last ready node; the displaced
// pod queued last then finds no ready node with room and stops at the one starting. The
// first round's walk follows the pending pods that move (and only then the ones after them),
// and stops where the solve stops.
func TestFirstMoveFollowsPendingPodsThatMove(t *testing.T) {
	node := func(name, cpu string, pods ...*corev1.Pod) *tb.NodeBuilder {
		return tb.Node(name, cpu, "32Gi", 20).NodePool("default").Zone("us-west-2a").Pods(pods...)
	}
	existing := nodes(
		node("a-ready", "4").Obj(),
		node("b-ready", "4", tb.Pod("b-filler").CPU("1").Obj()).Obj(),
		node("c-ready", "4", tb.Pod("c-filler").CPU("2").Obj()).Obj(),
		node("d-starting", "4").Uninitialized().Obj(),
		node("r-leaving", "8", tb.Pod("d1").CPU("3500m").Obj(), tb.Pod("d2").CPU("1500m").Obj()).Obj(),
	)
	pending := []*corev1.Pod{tb.Pod("p1").CPU("3").Obj(), tb.Pod("p2").CPU("2").Obj()}
	c, err := scheduling.Prepare(scheduling.Input{Pods: pending, NodePools: pools(defaultPool()), ExistingNodes: existing})
	require.NoError(t, err)
	change, opts := scheduling.Change{RemoveNodes: []string{"r-leaving"}}, scheduling.Options{StopOnUninitialized: true}
	_, want := scheduling.SimulateFresh(c, change, opts)
	var stop *scheduling.UninitializedError
	require.ErrorAs(t, want, &stop)
	require.Equal(t, "default/d2 d-starting", stop.Pod+" "+stop.Node)
	require.Equal(t, want, scheduling.FirstMoveStop(c, change, opts), "answered by the shortcut")
}
