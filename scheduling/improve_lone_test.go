package scheduling_test

import (
	"errors"
	"fmt"
	"math/rand"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduling"
)

// TestLoneNodeRepackChangesNoPlan checks that leaving a lone new node of a group unrepacked
// when no repacking can beat it (one bin launches at no less, two cost at least twice the
// group's cheapest type) plans exactly what repacking it plans: on random clusters whose
// NodePool offers types of one size (where the rule holds for most what-ifs' replacement) or
// of several sizes (where two small nodes may beat one large), with zones priced apart (so a
// bin could launch cheaper than the greedy node in another zone), and random what-ifs. The
// greedy plan grows a node only while that costs no more than the pod alone, so a repack
// rarely beats a lone node here; the rule's two conditions are what make it exact anywhere.
func TestLoneNodeRepackChangesNoPlan(t *testing.T) {
	clusters, changes := 30, 30
	if testing.Short() {
		clusters = 8
	}
	skipped, repacked := 0, 0
	grow := func(seed int64, r *rand.Rand) (*scheduling.Cluster, func() *corev1.Pod) {
		return growSizedCluster(t, r, seed%2 == 0)
	}
	eachRandomWhatIf(clusters, changes, grow, func(_ *rand.Rand, c *scheduling.Cluster, change scheduling.Change, opts scheduling.Options, where string) {
		where = fmt.Sprintf("%s, options %+v", where, opts)
		skips := 0
		want, wantErr := c.Simulate(change, scheduling.RepackAlways(opts))
		got, gotErr := c.Simulate(change, scheduling.CountingRepackSkips(opts, &skips))
		var uninit *scheduling.UninitializedError
		if wantErr != nil && errors.As(wantErr, &uninit) {
			require.Equal(t, wantErr, gotErr, where)
			return
		}
		require.NoError(t, wantErr, where)
		require.NoError(t, gotErr, where)
		require.Empty(t, cmp.Diff(want, got), where)
		skipped += skips
		if skips == 0 && len(got.NodeClaims) > 0 {
			repacked++
		}
	})
	t.Logf("%d lone nodes left unrepacked, %d what-ifs with new nodes repacked", skipped, repacked)
	require.Greater(t, skipped, clusters*changes/10, "the clusters exercise the rule")
	require.Greater(t, repacked, clusters, "and what-ifs it does not hold for")
}

// growSizedCluster grows a cluster of plain pods on a NodePool of 4-cpu types (oneSize) or of
// 2- to 8-cpu types, each priced 1% apart by zone, a few pods at a time; it returns it with
// the pod maker its what-ifs add pods with.
func growSizedCluster(t *testing.T, r *rand.Rand, oneSize bool) (*scheduling.Cluster, func() *corev1.Pod) {
	zones := westZones
	mk := func(name, cpu, mem string, price float64) *tb.TypeBuilder {
		return zonePricedType(name, cpu, mem, 58, price)
	}
	types := []*tb.TypeBuilder{mk("c.xlarge", "4", "8Gi", 0.17), mk("m.xlarge", "4", "16Gi", 0.192), mk("r.xlarge", "4", "32Gi", 0.252)}
	if !oneSize {
		types = append(types, mk("c.large", "2", "4Gi", 0.085), mk("m.2xlarge", "8", "32Gi", 0.384))
	}
	pool := tb.NodePool("default")
	for _, ty := range types {
		pool.Types(ty.Obj())
	}
	c, err := scheduling.Prepare(scheduling.Input{NodePools: []*scheduling.NodePool{pool.Obj()}})
	require.NoError(t, err)
	count := 0
	newPod := func() *corev1.Pod {
		b := tb.Pod(fmt.Sprintf("p-%d", count)).CPU(fmt.Sprintf("%dm", 100*(1+r.Intn(12)))).Memory(fmt.Sprintf("%dMi", 256*(1+r.Intn(24))))
		count++
		if r.Intn(6) == 0 {
			b.NodeSelector(requirements.LabelTopologyZone, zones[r.Intn(len(zones))])
		}
		return b.Obj()
	}
	growInBatches(t, r, c, newPod, 6+r.Intn(10), 10)
	return c, newPod
}
