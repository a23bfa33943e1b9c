package scheduling_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

// TestPodConversionsReused expects the pods a Cluster converted once (pending, displaced, added,
// invalid, with preferences followed or ignored) to plan, when a later simulation, a clone or
// a cluster prepared reusing it meets them again, as a cluster prepared anew plans them.
func TestPodConversionsReused(t *testing.T) {
	zoneA := corev1.NodeSelectorRequirement{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"us-west-2a"}}
	zoneB := corev1.NodeSelectorRequirement{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"us-west-2b"}}
	node := func(name, zone string, pods ...*corev1.Pod) *scheduling.ExistingNode {
		return tb.Node(name, "4", "8Gi", 20).NodePool("default").Zone(zone).Pods(pods...).Obj()
	}
	noContainers := tb.Pod("broken").Obj()
	noContainers.Spec.Containers = nil
	added := tb.Pod("added").CPU("1").PreferredTerm(10, zoneA).Obj()
	in := scheduling.Input{
		Pods: []*corev1.Pod{
			tb.Pod("pending").CPU("1500m").PreferredTerm(50, zoneB).Obj(),
			tb.Pod("pinned").CPU("1").RequiredTerm(zoneA).Obj(),
			noContainers,
		},
		NodePools: pools(tb.NodePool("default", c4(), c8()).Obj()),
		ExistingNodes: nodes(
			node("n1", "us-west-2a", tb.Pod("web-0").CPU("2").PreferredTerm(10, zoneB).Obj(), tb.Pod("web-1").CPU("1").Obj()),
			node("n2", "us-west-2b", tb.Pod("web-2").CPU("3").RequiredTerm(zoneB).Obj()),
			node("n3", "us-west-2a", tb.Pod("web-3").CPU("500m").HostPort(8080).Obj()),
		),
	}
	changes := []scheduling.Change{
		{},
		{RemoveNodes: []string{"n1"}},
		{RemoveNodes: []string{"n1"}, AddPods: []*corev1.Pod{added}},
		{RemoveNodes: []string{"n2", "n3"}, Cordon: []string{"n1"}},
		{Evict: []string{"default/web-0"}, AddPods: []*corev1.Pod{added}},
		{RemoveNodes: []string{"n1"}, Requirements: []corev1.NodeSelectorRequirement{zoneA}},
	}
	policies := []scheduling.PreferencePolicy{scheduling.PreferencesRespect, scheduling.PreferencesIgnore}
	check := func(t *testing.T, name string, c *scheduling.Cluster, in scheduling.Input, changes []scheduling.Change) {
		t.Helper()
		for round := range 2 { // the second round meets every pod converted
			for i, change := range changes {
				for _, policy := range policies {
					opts := scheduling.Options{PreferencePolicy: policy}
					fresh, err := scheduling.Prepare(in)
					require.NoError(t, err)
					want, err := fresh.Simulate(change, opts)
					require.NoError(t, err)
					got, err := c.Simulate(change, opts)
					require.NoError(t, err)
					require.Empty(t, cmp.Diff(want, got), "%s, round %d, change %d, policy %s", name, round, i, policy)
				}
			}
		}
	}
	c, err := scheduling.Prepare(in)
	require.NoError(t, err)
	check(t, "cluster", c, in, changes)
	check(t, "clone", c.Clone(), in, changes)

	// A later cluster keeps n2's and n3's pods and adds many nodes: the memo is shared.
	later := in
	later.ExistingNodes = nodes(in.ExistingNodes[1], in.ExistingNodes[2])
	for i := range 4 {
		later.ExistingNodes = append(later.ExistingNodes, node(fmt.Sprintf("m%d", i), "us-west-2b", tb.Pod(fmt.Sprintf("api-%d", i)).CPU("1").Obj()))
	}
	reusing, err := scheduling.PrepareReusing(later, c)
	require.NoError(t, err)
	check(t, "reusing", reusing, later, []scheduling.Change{
		{},
		{RemoveNodes: []string{"n2"}, AddPods: []*corev1.Pod{added}},
		{RemoveNodes: []string{"n3", "m0"}, Cordon: []string{"m1"}},
	})

	// Then only one node and no pending pod are left: the memo keeps the present pods only.
	last := later
	last.Pods = nil
	last.ExistingNodes = nodes(in.ExistingNodes[1])
	pruned, err := scheduling.PrepareReusing(last, reusing)
	require.NoError(t, err)
	check(t, "pruned", pruned, last, []scheduling.Change{{}, {RemoveNodes: []string{"n2"}, AddPods: []*corev1.Pod{added}}})
}
