package disruption_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/scheduling"
)

// TestMemo decides a sequence of slowly changing clusters with one Memo, as a replay does,
// and expects every decision, byte for byte, to be the one Decide makes without it: when the
// cluster is unchanged (the Memo's results are reused, a consolidation's command too), when
// only the time moves on, when a pod leaves a node, when a pod finishes in place (its phase
// changed on the same object, as a replay changes it), and without prepared Pools.
func TestMemo(t *testing.T) {
	fullBudget := func(in disruption.Input) disruption.Input {
		np := *in.NodePools[0]
		np.Disruption.Budgets = []scheduling.Budget{{Nodes: "100%"}}
		in.NodePools = []*scheduling.NodePool{&np}
		return in
	}
	type step struct {
		name   string
		change func(in *disruption.Input)
	}
	unchanged := step{"unchanged", func(*disruption.Input) {}}
	later := step{"a minute later", func(in *disruption.Input) { in.Now = in.Now.Add(time.Minute) }}
	podLeaves := step{"a pod leaves a node", func(in *disruption.Input) {
		in.Nodes = append([]*disruption.Node(nil), in.Nodes...)
		for i, n := range in.Nodes {
			if len(n.Pods) > 2 {
				cp := *n
				cp.Pods = append(append([]*corev1.Pod(nil), n.Pods[:1]...), n.Pods[2:]...)
				in.Nodes[i] = &cp
				return
			}
		}
	}}
	// Drift read from a node's facts changes with them, on the same Node object, and back.
	retyped := func(instanceType string) step {
		return step{"the first node launched as " + instanceType, func(in *disruption.Input) {
			in.Nodes = append([]*disruption.Node(nil), in.Nodes...)
			cp := *in.Nodes[0]
			cp.InstanceType = instanceType
			in.Nodes[0] = &cp
		}}
	}
	scenarios := map[string]struct {
		in    disruption.Input
		steps []step
	}{
		// A node's type leaves its NodePool's list and comes back: the drift the Memo kept
		// for the node object must follow its facts.
		"drift follows the facts": {syntheticCluster(12, 4), []step{unchanged, retyped("no-such-type"), unchanged, retyped("m6-4x"), unchanged}},
		// Consolidation acts: the command found on the first decision is reused on the second.
		"consolidation": {fullBudget(syntheticCluster(40, 5)), []step{unchanged, unchanged, later, podLeaves, unchanged}},
		// Only some nodes consolidate under the default budget, spot nodes among them.
		"default budget": {syntheticCluster(60, 6), []step{unchanged, later, podLeaves, unchanged}},
		// Nothing consolidates: every candidate is simulated, then reused.
		"packed": {packedFleet(30, false).build(), []step{unchanged, later, podLeaves, unchanged}},
		// A pod that finishes in place frees the room that lets a node go.
		"a pod finishes in place": {finishingJob(), []step{unchanged, {"the job finishes", func(in *disruption.Input) {
			for _, n := range in.Nodes {
				for _, p := range n.Pods {
					if p.Name == "job-1" {
						p.Status.Phase = corev1.PodSucceeded
					}
				}
			}
		}}, unchanged}},
	}
	for name, sc := range scenarios {
		t.Run(name, func(t *testing.T) {
			in := sc.in
			pools, err := disruption.PreparePools(in)
			require.NoError(t, err)
			in.Pools, in.Memo = pools, &disruption.Memo{}
			for i := -1; i < len(sc.steps); i++ {
				what := "first decision"
				if i >= 0 {
					sc.steps[i].change(&in)
					what = sc.steps[i].name
				}
				fresh := in
				fresh.Pools, fresh.Memo = nil, nil
				want := decideJSON(t, fresh)
				require.JSONEq(t, want, decideJSON(t, in), "step %d (%s) with the Memo", i+1, what)
				withoutPools := in
				withoutPools.Pools = nil
				require.JSONEq(t, want, decideJSON(t, withoutPools), "step %d (%s) with the Memo but no Pools", i+1, what)
			}
		})
	}
}

// finishingJob is two medium nodes of a NodePool that launches only medium nodes: neither
// node's pods fit on the other until the job pod on node b finishes, and no replacement is
// cheaper, so nothing consolidates before and node b's pods move to node a after.
func finishingJob() disruption.Input {
	job := pod("job-1", "2")
	return disruption.Input{
		NodePools: []*scheduling.NodePool{pool("default", medium).Obj()},
		Nodes: []*disruption.Node{
			running("node-a", "default", medium, "on-demand", pod("web-1", "1500m")),
			running("node-b", "default", medium, "on-demand", pod("api-1", "1500m"), job),
		},
		Now: now,
	}
}

// TestMemoNamesChanges has the caller name the node whose pod it changed in place, as a
// replay does, instead of the Memo checking every pod: the job that finishes in place on
// node-b frees the room that lets node-b go, as without a Memo.
func TestMemoNamesChanges(t *testing.T) {
	in := finishingJob()
	pools, err := disruption.PreparePools(in)
	require.NoError(t, err)
	before := decideJSON(t, in)
	in.Pools, in.Memo = pools, &disruption.Memo{NamesChanges: true}
	require.JSONEq(t, before, decideJSON(t, in))
	for _, p := range in.Nodes[1].Pods {
		if p.Name == "job-1" {
			p.Status.Phase = corev1.PodSucceeded
		}
	}
	in.Memo.PodsChangedInPlace("node-b")
	after := decideJSON(t, in)
	fresh := in
	fresh.Pools, fresh.Memo = nil, nil
	require.JSONEq(t, decideJSON(t, fresh), after)
	require.NotEqual(t, before, after, "node-b goes once its job is done")
}
