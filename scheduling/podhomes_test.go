package scheduling_test

import (
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

// TestApplyKeepsWhatItIndexes applies random changes and their plans to random clusters, as
// a replay does (nodes removed and cordoned, pods evicted, removed and added, new nodes with
// their DaemonSet pods), and after each asks where pods run: running ones, pending ones and
// names no pod has, and every pod seen before (removed or moved since). The Cluster's index
// of pods, made once and kept by Apply, serves, and finds what reading every node's pods
// finds. Apply keeps the node conversions too, in place while the Cluster was not cloned
// (at times it is): one for each node, each the node's own; and the index of node names is
// the nodes'.
func TestApplyKeepsWhatItIndexes(t *testing.T) {
	clusters, steps := 12, 25
	if testing.Short() {
		clusters = 4
	}
	found, inPlace := 0, 0
	for seed := int64(1); seed <= int64(clusters); seed++ {
		r := rand.New(rand.NewSource(seed))
		c, newPod := growRandomCluster(t, r)
		// Every pod seen so far: those removed since, or moved, are looked up too.
		seen := map[string]bool{"default/no-such-pod": true, "kube-system/no-such-pod": true}
		for step := range steps {
			where := fmt.Sprintf("seed %d, step %d", seed, step)
			in := c.Input()
			for _, en := range in.ExistingNodes {
				for _, p := range en.Pods {
					seen[p.Namespace+"/"+p.Name] = true
				}
			}
			for _, p := range in.Pods {
				seen[p.Namespace+"/"+p.Name] = true
			}
			keys := slices.Sorted(maps.Keys(seen))
			got, scanned, indexed := scheduling.PodHosts(c, keys)
			require.True(t, indexed, "%s: no pod runs twice, so the index serves", where)
			require.Equal(t, scanned, got, where)
			found += len(got)

			change, opts := randomChange(r, c, newPod)
			change.Requirements = nil
			plan, err := c.Simulate(change, opts)
			require.NoError(t, err, where)
			cloned := r.Intn(5) == 0
			if cloned {
				_ = c.Clone()
			}
			owned, err := scheduling.Conversions(c)
			require.NoError(t, err, where)
			require.Equal(t, !cloned, owned, "%s: the conversions are the Cluster's alone unless it was cloned", where)
			require.NoError(t, c.Apply(change, plan), where)
			if owned {
				inPlace++
			}
		}
		owned, err := scheduling.Conversions(c)
		require.NoError(t, err)
		require.True(t, owned, "after Apply the conversions are the Cluster's")
	}
	require.Positive(t, found, "running pods were looked up")
	require.Positive(t, inPlace, "Apply updated conversions in place")
}

// TestPodHostsOfAPodOnTwoNodes: a pod given on two nodes is found on both, as reading every
// node finds it; the index, which holds one node per pod, is not used for such a cluster.
func TestPodHostsOfAPodOnTwoNodes(t *testing.T) {
	twice := tb.Pod("web-1").CPU("1").Obj()
	c, err := scheduling.Prepare(scheduling.Input{
		NodePools: pools(tb.NodePool("default", c2(), c4()).Obj()),
		ExistingNodes: nodes(
			tb.Node("a", "4", "8Gi", 20).NodePool("default").Pods(twice).Obj(),
			tb.Node("b", "4", "8Gi", 20).NodePool("default").Pods(tb.Pod("db-1").CPU("1").Obj(), twice).Obj(),
		),
	})
	require.NoError(t, err)
	got, scanned, indexed := scheduling.PodHosts(c, []string{"default/web-1", "default/db-1"})
	require.Equal(t, map[string][]int{"default/web-1": {0, 1}, "default/db-1": {1}}, scanned)
	require.Equal(t, scanned, got)
	require.False(t, indexed)
}
