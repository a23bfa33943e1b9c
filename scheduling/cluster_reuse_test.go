package scheduling_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

// TestPrepareReusing expects a cluster prepared reusing an earlier one to plan every change as
// a cluster prepared anew does: with the same Pools (whose dimensions let the conversions of
// the unchanged nodes be reused) and without, when one node kept its ExistingNode value, one
// got a new value with another pod, one left, one joined, and a pod asks for a resource the
// earlier cluster never saw.
func TestPrepareReusing(t *testing.T) {
	node := func(name string, pods ...*corev1.Pod) *scheduling.ExistingNode {
		return tb.Node(name, "4", "8Gi", 20).NodePool("default").Zone("us-west-2a").Pods(pods...).Obj()
	}
	n1, n2, n3 := node("n1", webPod("web-0", "1")), node("n2", webPod("web-1", "1")), node("n3", webPod("web-2", "2"))
	earlier := scheduling.Input{
		Pods:          []*corev1.Pod{webPod("web-3", "1")},
		NodePools:     pools(tb.NodePool("default", c4(), c8()).Obj()),
		DaemonSets:    daemons(tb.Pod("logging").CPU("100m").Obj()),
		ExistingNodes: nodes(n1, n2, n3),
	}
	n2b := *n2
	n2b.Pods = append(append([]*corev1.Pod(nil), n2.Pods...), webPod("web-4", "2"))
	later := earlier
	later.Pods = []*corev1.Pod{webPod("web-5", "3")}
	later.ExistingNodes = nodes(n1, &n2b, node("n4", webPod("web-6", "500m")))
	gpu := later
	gpu.Pods = append(gpu.Pods, tb.Pod("gpu").GPU("1").Obj())
	changes := map[string]scheduling.Change{
		"none":          {},
		"n1 removed":    {RemoveNodes: []string{"n1"}},
		"n2 removed":    {RemoveNodes: []string{"n2"}, Cordon: []string{"n4"}},
		"web-0 evicted": {Evict: []string{"default/web-0"}},
	}
	for name, withPools := range map[string]bool{"with Pools": true, "without Pools": false} {
		t.Run(name, func(t *testing.T) {
			for inName, in := range map[string]scheduling.Input{"later": later, "a new resource": gpu} {
				first, then := earlier, in
				if withPools {
					prepared, err := scheduling.PreparePools(earlier)
					require.NoError(t, err)
					first.Pools, then.Pools = prepared, prepared
				}
				prev, err := scheduling.Prepare(first)
				require.NoError(t, err)
				_, err = prev.Simulate(scheduling.Change{RemoveNodes: []string{"n3"}}, scheduling.Options{})
				require.NoError(t, err)
				fresh, err := scheduling.Prepare(then)
				require.NoError(t, err)
				reusing, err := scheduling.PrepareReusing(then, prev)
				require.NoError(t, err)
				for changeName, change := range changes {
					want, err := fresh.Simulate(change, scheduling.Options{})
					require.NoError(t, err)
					got, err := reusing.Simulate(change, scheduling.Options{})
					require.NoError(t, err)
					require.Empty(t, cmp.Diff(want, got), "%s, change %s", inName, changeName)
				}
			}
		})
	}
}
