package scheduling_test

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

// TestPendingOnExistingIsTheSolves checks PendingOnExisting against Simulate with no change
// on random growing clusters, plain or with pods that spread, take host ports or keep others
// away, with nodes still starting and pending pods of every size (some too large for any
// node), at times with a host port, with a zone preference or spreading over zones, and at
// times a node with a PreferNoSchedule taint: whenever it tells, it names exactly the pending
// pods the solve places on existing nodes, and where.
func TestPendingOnExistingIsTheSolves(t *testing.T) {
	// Half a second; its thresholds hold for these 120 clusters (the first 40 alone have too
	// few whose first round tells, so -short does not cut them).
	clusters := 120
	told, landed := 0, 0
	for seed := int64(1); seed <= int64(clusters); seed++ {
		r := rand.New(rand.NewSource(seed))
		grown, _ := growCluster(t, r, seed%3 == 0)
		in := grown.Input()
		in.Pods = fittingPods(r)
		for i := range r.Intn(3) {
			in.Pods = append(in.Pods, tb.Pod(fmt.Sprintf("waiting-%d", i)).CPU("16").Obj()) // fits no node
		}
		if r.Intn(4) == 0 {
			// A node pods avoid while they can, and take when they must.
			i := r.Intn(len(in.ExistingNodes))
			en := *in.ExistingNodes[i]
			node := en.Node.DeepCopy()
			node.Spec.Taints = append(node.Spec.Taints, corev1.Taint{Key: "spare", Effect: corev1.TaintEffectPreferNoSchedule})
			en.Node = node
			in.ExistingNodes = append(append(in.ExistingNodes[:i:i], &en), in.ExistingNodes[i+1:]...)
			// A pod for that node alone: no new node takes it, the node does once its taint is
			// tolerated.
			in.Pods = append(in.Pods, tb.Pod("pinned").CPU("10m").NodeSelector(corev1.LabelHostname, node.Name).Obj())
		}
		c, err := scheduling.Prepare(in)
		require.NoError(t, err)
		opts := scheduling.Options{SkipLowerBound: true}
		if r.Intn(4) == 0 {
			opts.PreferencePolicy = scheduling.PreferencesIgnore
		}
		where := fmt.Sprintf("seed %d, options %+v", seed, opts)
		plan, err := c.Simulate(scheduling.Change{}, opts)
		require.NoError(t, err, where)
		got, ok := c.PendingOnExisting(opts)
		if !ok {
			continue
		}
		told++
		pending := map[*corev1.Pod]bool{}
		for _, p := range in.Pods {
			pending[p] = true
		}
		want := []string{}
		for _, pl := range plan.Placements {
			if pending[pl.Pod] && pl.NodeClaim < 0 && pl.Node != "" {
				want = append(want, pl.Pod.Name+" "+pl.Node)
			}
		}
		gotKeys := []string{}
		for _, l := range got {
			gotKeys = append(gotKeys, l.Pod.Name+" "+l.Node)
		}
		landed += len(gotKeys)
		slices.Sort(want)
		slices.Sort(gotKeys)
		require.Empty(t, cmp.Diff(want, gotKeys), where)
	}
	t.Logf("%d of %d clusters told, %d pending pods on existing nodes", told, clusters, landed)
	require.Greater(t, told, clusters/5, "clusters whose first round tells")
	require.Greater(t, landed, clusters/4, "pending pods it places on existing nodes")
}

// fittingPods are pending pods that may fit the nodes' room (100m to 800m cpu), at times one
// with a host port, one preferring a zone (one that exists, or one that does not) or one
// spreading over zones.
func fittingPods(r *rand.Rand) []*corev1.Pod {
	var pods []*corev1.Pod
	for i := range r.Intn(6) {
		b := tb.Pod(fmt.Sprintf("small-%d", i)).CPU(fmt.Sprintf("%dm", 100*(1+r.Intn(8))))
		switch r.Intn(12) {
		case 0:
			b.HostPort(9000)
		case 1:
			b.PreferredTerm(10, corev1.NodeSelectorRequirement{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"us-west-2c"}})
		case 3:
			// A zone no node or NodePool has: placed only once the preference is dropped.
			b.PreferredTerm(10, corev1.NodeSelectorRequirement{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"us-east-1z"}})
		case 2:
			b.Label("app", "batch").ZoneSpread(1)
		}
		pods = append(pods, b.Obj())
	}
	return pods
}
