package disruption

import (
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

// TestMemoReusesSimulations expects a Memo to hand a decision on an unchanged cluster the
// consolidations the last decision simulated, not simulated again (the outcomes share their
// plans), and to drop them when a pod changes, in place too.
func TestMemoReusesSimulations(t *testing.T) {
	now := time.Date(2025, 6, 2, 12, 0, 0, 0, time.UTC)
	medium := testbuild.Type("medium", "4", "16Gi", 60).Offer("test-zone-a", "on-demand", 0.20).Obj()
	node := func(name string, pods ...*corev1.Pod) *Node { return memoNode(name, medium, now, pods...) }
	job := testbuild.Pod("job-1").CPU("2").Memory("1Gi").Obj()
	in := Input{
		NodePools: mediumPool(medium),
		Nodes: []*Node{
			node("node-a", testbuild.Pod("web-1").CPU("1500m").Memory("1Gi").Obj()),
			node("node-b", testbuild.Pod("api-1").CPU("1500m").Memory("1Gi").Obj(), job),
		},
		Now: now,
	}
	pools, err := PreparePools(in)
	require.NoError(t, err)
	memo := &Memo{}
	in.Pools, in.Memo = pools, memo

	decide := func() Decisions {
		d, err := Decide(in)
		require.NoError(t, err)
		return d
	}
	first := decide()
	require.Empty(t, first.Commands, "neither node's pods fit on the other")
	found, shown := memo.consolidated, maps.Clone(memo.shown) // keep fills the same map again
	require.NotEmpty(t, found, "the simulated consolidations are kept")

	in.Now = now.Add(time.Minute)
	require.Equal(t, first.Commands, decide().Commands)
	require.Equal(t, keysOf(found), keysOf(memo.consolidated))
	for key, c := range memo.consolidated {
		require.Same(t, &found[key].o.plan.Placements[0], &c.o.plan.Placements[0], "%s is reused, not simulated again", key)
	}
	for name, n := range memo.shown {
		require.Same(t, shown[name].view, n.view, "node %s is shown as before", name)
	}

	job.Status.Phase = corev1.PodSucceeded // in place, as a replay finishes a pod
	after := decide()
	require.NotEmpty(t, after.Commands, "node-b's pods fit on node-a once the job is done")
	again := 0
	for key, c := range memo.consolidated {
		if was, ok := found[key]; ok {
			require.NotSame(t, &was.o.plan.Placements[0], &c.o.plan.Placements[0], "%s is simulated again", key)
			again++
		}
	}
	require.NotZero(t, again)
	require.Same(t, shown["node-a"].view, memo.shown["node-a"].view, "node-a is unchanged")
	require.NotSame(t, shown["node-b"].view, memo.shown["node-b"].view, "node-b's job finished")
}

func keysOf(m map[string]consolidation) []string { return sortedMapKeys(m) }

// TestMemoDropsWhatIsGone decides again and again on nodes whose objects and pods are new
// each time, as a long replay's are, and expects the Memo to hold the entries of a few
// decisions rather than of every node and pod it saw, while deciding as Decide does without
// it.
func TestMemoDropsWhatIsGone(t *testing.T) {
	now := time.Date(2025, 6, 2, 12, 0, 0, 0, time.UTC)
	medium := testbuild.Type("medium", "4", "16Gi", 60).Offer("test-zone-a", "on-demand", 0.20).Obj()
	nodes := func(round int) []*Node {
		var out []*Node
		for _, name := range []string{"node-a", "node-b", "node-c"} {
			p := testbuild.Pod(fmt.Sprintf("%s-web-%d", name, round)).CPU("1500m").Memory("1Gi").Obj()
			p.Spec.NodeName = name
			out = append(out, &Node{Node: testbuild.KarpenterNode(name, "default", medium, "test-zone-a", "on-demand"), Pods: []*corev1.Pod{p},
				NodePool: "default", InstanceType: "medium", Zone: "test-zone-a", CapacityType: "on-demand", Price: 0.20,
				Created: now.Add(-24 * time.Hour), Initialized: true})
		}
		return out
	}
	in, pools := memoInput(t, medium, now)
	memo := &Memo{}
	limit := 2*3 + 64
	for round := range 3 * limit {
		in.Nodes = nodes(round)
		decideWithMemo(t, in, pools, memo, "round %d", round)
		require.LessOrEqual(t, len(memo.sorted), limit+3, "round %d: pod lists", round)
		require.LessOrEqual(t, len(memo.nodes), limit+3, "round %d: node entries", round)
		for _, n := range in.Nodes {
			require.NotNil(t, memo.sorted[n.Pods[0]], "round %d: %s's pods are kept for the next decision", round, n.Node.Name)
			require.NotNil(t, memo.nodes[n.Node], "round %d: %s's entry is kept for the next decision", round, n.Node.Name)
		}
	}
}

// TestMemoKeepsPendingCopies expects the pods of a node being disrupted, which every decision
// simulates as pending again, to be shown to the scheduler as the same copies from one
// decision to the next (so their conversions are kept too), and as a new copy once the pod
// changed in place; copies no decision shows are dropped.
func TestMemoKeepsPendingCopies(t *testing.T) {
	now := time.Date(2025, 6, 2, 12, 0, 0, 0, time.UTC)
	medium := testbuild.Type("medium", "4", "16Gi", 60).Offer("test-zone-a", "on-demand", 0.20).Obj()
	node := func(name string, disrupting bool, pods ...*corev1.Pod) *Node {
		n := memoNode(name, medium, now, pods...)
		n.Disrupting = disrupting
		return n
	}
	web, api := testbuild.Pod("web-1").CPU("1").Memory("1Gi").Obj(), testbuild.Pod("api-1").CPU("1").Memory("1Gi").Obj()
	in, pools := memoInput(t, medium, now)
	in.Nodes = []*Node{node("node-a", true, web, api), node("node-b", false)}
	memo := &Memo{}
	decide := func() { t.Helper(); decideWithMemo(t, in, pools, memo) }

	decide()
	require.Len(t, memo.copies, 2, "both pods of node-a are simulated as pending")
	webCopy, apiCopy := memo.copies[web].copy, memo.copies[api].copy
	require.Empty(t, webCopy.Spec.NodeName)
	require.Equal(t, "node-a", web.Spec.NodeName, "the pod itself is not modified")

	in.Now = now.Add(10 * time.Second)
	decide()
	require.Same(t, webCopy, memo.copies[web].copy, "an unchanged pod is shown as the same copy")
	require.Same(t, apiCopy, memo.copies[api].copy)

	api.Status.Phase = corev1.PodRunning // in place, as a replay starts a pod
	decide()
	require.Same(t, webCopy, memo.copies[web].copy)
	require.NotSame(t, apiCopy, memo.copies[api].copy, "a pod changed in place is copied again")
	require.Equal(t, corev1.PodRunning, memo.copies[api].copy.Status.Phase)

	in.Nodes = []*Node{node("node-b", false)}
	limit := 2*1 + 64
	for range limit + 2 {
		in.Now = in.Now.Add(10 * time.Second)
		in.Nodes = append(in.Nodes[:1], node("node-c", true, testbuild.Pod("job-"+in.Now.Format("150405")).CPU("1").Obj()))
		decide()
	}
	require.LessOrEqual(t, len(memo.copies), limit+2, "copies of pods gone are dropped")
	require.NotContains(t, memo.copies, web)
}

// TestMemoStillRefusesANilPod decides with a Memo, then on a node list holding a nil pod:
// the Memo skips looking again only at lists it holds, so the nil pod is still refused.
func TestMemoStillRefusesANilPod(t *testing.T) {
	now := time.Date(2025, 6, 2, 12, 0, 0, 0, time.UTC)
	medium := testbuild.Type("medium", "4", "16Gi", 60).Offer("test-zone-a", "on-demand", 0.20).Obj()
	web := testbuild.Pod("web-1").CPU("1").Memory("1Gi").Obj()
	node := memoNode("node-a", medium, now, web)
	in := Input{
		NodePools: mediumPool(medium),
		Nodes:     []*Node{node},
		Now:       now,
	}
	pools, err := PreparePools(in)
	require.NoError(t, err)
	in.Pools, in.Memo = pools, &Memo{}
	_, err = Decide(in)
	require.NoError(t, err)
	require.NotNil(t, in.Memo.heldList(node.Pods), "the list is held")

	withNil := *node
	withNil.Pods = []*corev1.Pod{web, nil}
	in.Nodes = []*Node{&withNil}
	_, err = Decide(in)
	require.EqualError(t, err, "node node-a: pods[1] is nil")
}

// TestMemoNodeStatesSpareTheKeptOnes expects a decision's node states never to be written
// into the array whose nodes the memo's kept consolidations name, whatever happened in
// between (a decision that failed before keeping anything, say), and decisions on the same
// nodes given in another order to rebind the kept consolidations to the right nodes.
func TestMemoNodeStatesSpareTheKeptOnes(t *testing.T) {
	m := &Memo{}
	a, ia := m.nodeStates(2)
	b, ib := m.nodeStates(2)
	require.Equal(t, ia, ib, "nothing kept: any array will do")
	require.Same(t, &a[0], &b[0])
	m.consolidated, m.named = map[string]consolidation{"x": {}}, ib
	c, ic := m.nodeStates(3)
	require.NotEqual(t, ib, ic)
	require.NotSame(t, &b[0], &c[0])
	d, id := m.nodeStates(1) // the decision that took c failed: the kept ones are still b's
	require.Equal(t, ic, id)
	require.NotSame(t, &b[0], &d[0])

	now := time.Date(2025, 6, 2, 12, 0, 0, 0, time.UTC)
	medium := testbuild.Type("medium", "4", "16Gi", 60).Offer("test-zone-a", "on-demand", 0.20).Obj()
	node := func(name string, pods ...*corev1.Pod) *Node { return memoNode(name, medium, now, pods...) }
	na := node("node-a", testbuild.Pod("web-1").CPU("1500m").Memory("1Gi").Obj())
	nb := node("node-b", testbuild.Pod("api-1").CPU("3").Memory("1Gi").Obj())
	in, pools := memoInput(t, medium, now)
	memo := &Memo{}
	for round, nodes := range [][]*Node{{na, nb}, {nb, na}, {na, nb}, {nb, na}} {
		in.Nodes = nodes
		decideWithMemo(t, in, pools, memo, "round %d", round)
		require.NotEmpty(t, memo.consolidated, "round %d", round)
	}
}

// memoNode is a running on-demand node of type medium in test-zone-a, in the default
// NodePool, created a day before now, with pods bound to it.
func memoNode(name string, medium *instancetype.InstanceType, now time.Time, pods ...*corev1.Pod) *Node {
	for _, p := range pods {
		p.Spec.NodeName = name
	}
	return &Node{Node: testbuild.KarpenterNode(name, "default", medium, "test-zone-a", "on-demand"), Pods: pods,
		NodePool: "default", InstanceType: "medium", Zone: "test-zone-a", CapacityType: "on-demand", Price: 0.20,
		Created: now.Add(-24 * time.Hour), Initialized: true}
}

// mediumPool is the memo tests' NodePool of type medium, consolidating at once, every node at
// a time.
func mediumPool(medium *instancetype.InstanceType) []*scheduling.NodePool {
	return []*scheduling.NodePool{testbuild.NodePool("default", medium).ConsolidateAfter(0).Budget("100%").Obj()}
}

// memoInput is the memo tests' input on NodePools of type medium at now, and those NodePools
// prepared, for a Memo.
func memoInput(t *testing.T, medium *instancetype.InstanceType, now time.Time) (Input, *Pools) {
	t.Helper()
	in := Input{NodePools: mediumPool(medium), Now: now}
	pools, err := PreparePools(in)
	require.NoError(t, err)
	return in, pools
}

// decideWithMemo decides on in with pools and memo, and expects the decision Decide makes
// without them.
func decideWithMemo(t *testing.T, in Input, pools *Pools, memo *Memo, msgAndArgs ...any) Decisions {
	t.Helper()
	in.Pools, in.Memo = nil, nil
	want, err := Decide(in)
	require.NoError(t, err)
	in.Pools, in.Memo = pools, memo
	got, err := Decide(in)
	require.NoError(t, err)
	require.Equal(t, want, got, msgAndArgs...)
	return got
}
