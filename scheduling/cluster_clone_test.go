package scheduling_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

// cloneChanges are what-ifs that exercise every memo a Cluster keeps: removals, a cordon and
// an eviction (nodes converted anew, so running pods' requests are memoised), narrowed
// NodePools, and a pod no instance type can hold (its reason memoises compatible types).
func cloneChanges() []scheduling.Change {
	spot := []corev1.NodeSelectorRequirement{{Key: "karpenter.sh/capacity-type", Operator: corev1.NodeSelectorOpIn, Values: []string{"spot"}}}
	return []scheduling.Change{
		{},
		{RemoveNodes: []string{"n1"}},
		{RemoveNodes: []string{"n1", "n2"}, Requirements: spot},
		{Cordon: []string{"n2"}, Evict: []string{"default/web-0"}},
		{AddPods: []*corev1.Pod{tb.Pod("huge").CPU("64").Obj()}, Requirements: spot},
		{RemoveNodes: []string{"n2"}, AddPods: []*corev1.Pod{tb.Pod("huge").CPU("64").Obj()}},
	}
}

func simulateAll(t *testing.T, c *scheduling.Cluster) [][]string {
	t.Helper()
	var out [][]string
	for _, ch := range cloneChanges() {
		plan, err := c.Simulate(ch, scheduling.Options{})
		require.NoError(t, err)
		out = append(out, render(plan))
	}
	return out
}

// A clone plans as its original does, whether taken before or after the original filled its
// memos, and Apply on one leaves the other as it was.
func TestClusterClone(t *testing.T) {
	in := twoNodeCluster()
	in.DaemonSets = daemons(tb.Pod("agent").Label("app", "agent").CPU("100m").Obj())
	c, err := scheduling.Prepare(in)
	require.NoError(t, err)
	fresh := c.Clone()
	want := simulateAll(t, c)
	require.Contains(t, want[4], "unschedulable huge: Resources", "the changes reach an unschedulable pod")
	warm := c.Clone()
	require.Equal(t, want, simulateAll(t, fresh), "a clone taken before the original's solves")
	require.Equal(t, want, simulateAll(t, warm), "a clone taken after them, with narrowed NodePools")

	// Apply on the clone: the original does not see it.
	change := scheduling.Change{RemoveNodes: []string{"n1", "n2"}}
	plan, err := warm.Simulate(change, scheduling.Options{})
	require.NoError(t, err)
	require.NoError(t, warm.Apply(change, plan))
	require.Equal(t, want, simulateAll(t, c))
	_, err = warm.Simulate(scheduling.Change{RemoveNodes: []string{"n1"}}, scheduling.Options{})
	require.EqualError(t, err, `change: node "n1" is not in the cluster`)

	// Apply on the original: a clone taken before does not see it, one taken after does.
	before := c.Clone()
	require.NoError(t, c.Apply(change, plan))
	after := c.Clone()
	require.Equal(t, want, simulateAll(t, before))
	next, err := after.Simulate(scheduling.Change{AddPods: []*corev1.Pod{tb.Pod("small").CPU("100m").Obj()}}, scheduling.Options{})
	require.NoError(t, err)
	require.Equal(t, []string{"existing default-1: small"}, render(next))
}

// An original and its clones simulate concurrently, each on its own goroutine, and plan as
// one cluster does alone. Run with -race: it fails when a solve writes anything they share.
func TestClusterCloneConcurrent(t *testing.T) {
	in := twoNodeCluster()
	in.DaemonSets = daemons(tb.Pod("agent").Label("app", "agent").CPU("100m").Obj())
	alone, err := scheduling.Prepare(in)
	require.NoError(t, err)
	want := simulateAll(t, alone)
	// Cloned before any solve, so the memos are filled concurrently.
	c, err := scheduling.Prepare(in)
	require.NoError(t, err)
	clusters := []*scheduling.Cluster{c, c.Clone(), c.Clone(), c.Clone()}
	got := make([][][][]string, len(clusters))
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, cl := range clusters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start // all at once, so that their solves overlap
			for range 20 {
				var plans [][]string
				for _, ch := range cloneChanges() {
					plan, err := cl.Simulate(ch, scheduling.Options{})
					if err != nil {
						plans = append(plans, []string{err.Error()})
						continue
					}
					plans = append(plans, render(plan))
				}
				got[i] = append(got[i], plans)
			}
		}()
	}
	close(start)
	wg.Wait()
	for i := range clusters {
		for _, plans := range got[i] {
			require.Equal(t, want, plans, "cluster %d", i)
		}
	}
}
