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

// TestExistingFirstChangesNoPlan checks that placing a what-if's pods on existing nodes
// before planning any new node (which the solver does when no pod's fate on an existing node
// can depend on the new ones) plans exactly what placing them one by one plans, or stops at
// the same pod: on random clusters of plain pods (some pinned to a zone, some tolerating a
// tainted NodePool, some with a preferred zone or a NodePool with a PreferNoSchedule taint,
// which turn it off), nodes still starting, NodePool limits, and random what-ifs with and
// without StopOnUninitialized.
func TestExistingFirstChangesNoPlan(t *testing.T) {
	clusters, changes := 40, 30
	if testing.Short() {
		clusters = 10
	}
	engaged, stopped := 0, 0
	grow := func(_ int64, r *rand.Rand) (*scheduling.Cluster, func() *corev1.Pod) { return growPlainCluster(t, r) }
	eachRandomWhatIf(clusters, changes, grow, func(r *rand.Rand, c *scheduling.Cluster, change scheduling.Change, opts scheduling.Options, where string) {
		opts.StopOnUninitialized = r.Intn(2) == 0
		where = fmt.Sprintf("%s, options %+v", where, opts)
		first, err := scheduling.ExistingFirst(c, change, opts)
		want, wantErr := c.Simulate(change, scheduling.Interleaved(opts))
		got, gotErr := c.Simulate(change, opts)
		var uninit *scheduling.UninitializedError
		if errors.As(wantErr, &uninit) {
			require.Equal(t, wantErr, gotErr, where)
			stopped++
			return
		}
		require.NoError(t, wantErr, where)
		require.NoError(t, err, where)
		require.NoError(t, gotErr, where)
		require.Empty(t, cmp.Diff(want, got), where)
		if first {
			engaged++
		}
	})
	t.Logf("%d what-ifs placed existing first, %d stopped for a starting node", engaged, stopped)
	require.Greater(t, engaged, clusters*changes/4, "the clusters exercise existing-first placement")
	require.Greater(t, stopped, clusters, "and simulations that stop early")
}

// eachRandomWhatIf grows clusters clusters (seeded 1, 2, …) with grow and calls check with
// changes random what-ifs of each (randomChange, without narrowed requirements), the seed's
// random source, and where to say they failed.
func eachRandomWhatIf(clusters, changes int, grow func(seed int64, r *rand.Rand) (*scheduling.Cluster, func() *corev1.Pod),
	check func(r *rand.Rand, c *scheduling.Cluster, change scheduling.Change, opts scheduling.Options, where string)) {
	for seed := int64(1); seed <= int64(clusters); seed++ {
		r := rand.New(rand.NewSource(seed))
		c, newPod := grow(seed, r)
		for step := range changes {
			change, opts := randomChange(r, c, newPod)
			change.Requirements = nil
			check(r, c, change, opts, fmt.Sprintf("seed %d, step %d, change %+v", seed, step, change))
		}
	}
}

// westZones are the zones of zonePricedType's offerings.
var westZones = []string{"us-west-2a", "us-west-2b", "us-west-2c"}

// zonePricedType is an instance type sold on-demand in westZones, at price in the first and
// 1% dearer in each next one.
func zonePricedType(name, cpu, mem string, pods int64, price float64) *tb.TypeBuilder {
	b := tb.Type(name, cpu, mem, pods)
	for i, z := range westZones {
		b.Offer(z, "on-demand", price*(1+0.01*float64(i)))
	}
	return b
}

// growPlainCluster grows a cluster of plain pods a few at a time, leaving the nodes of some
// batches starting; it returns it with the pod maker its what-ifs add pods with.
func growPlainCluster(t *testing.T, r *rand.Rand) (*scheduling.Cluster, func() *corev1.Pod) {
	return growCluster(t, r, false)
}

// growCluster is growPlainCluster, with, when mixed, some pods that are not plain (a zone or
// hostname spread, a host port, a required anti-affinity) or that a spread counts.
func growCluster(t *testing.T, r *rand.Rand, mixed bool) (*scheduling.Cluster, func() *corev1.Pod) {
	zones := westZones
	typ := zonePricedType
	types := []*tb.TypeBuilder{typ("c.large", "2", "4Gi", 29, 0.085), typ("m.large", "2", "8Gi", 29, 0.096),
		typ("c.xlarge", "4", "8Gi", 58, 0.17), typ("m.2xlarge", "8", "32Gi", 58, 0.384), typ("r.xlarge", "4", "32Gi", 58, 0.252)}
	general := tb.NodePool("general")
	tainted := tb.NodePool("tainted").Taint("team", "batch", corev1.TaintEffectNoSchedule).Weight(10)
	for _, ty := range types {
		general.Types(ty.Obj())
		tainted.Types(ty.Obj())
	}
	if r.Intn(2) == 0 {
		general.Limit(corev1.ResourceCPU, fmt.Sprintf("%d", 24+r.Intn(40))) // often reached
	}
	soft := r.Intn(5) == 0
	if soft {
		tainted.Taint("spare", "true", corev1.TaintEffectPreferNoSchedule)
	}
	c, err := scheduling.Prepare(scheduling.Input{NodePools: []*scheduling.NodePool{general.Obj(), tainted.Obj()}})
	require.NoError(t, err)
	count := 0
	preferences := r.Intn(3) == 0
	newPod := func() *corev1.Pod {
		b := tb.Pod(fmt.Sprintf("p-%d", count)).CPU(fmt.Sprintf("%dm", 100*(1+r.Intn(20)))).Memory(fmt.Sprintf("%dMi", 256*(1+r.Intn(16))))
		count++
		switch r.Intn(6) {
		case 0:
			b.NodeSelector(requirements.LabelTopologyZone, zones[r.Intn(len(zones))])
		case 1:
			b.Toleration("team", "batch", corev1.TaintEffectNoSchedule)
		case 2:
			if preferences {
				b.PreferredTerm(10, tb.In(requirements.LabelTopologyZone, zones[r.Intn(len(zones))]))
			}
		}
		if mixed {
			switch r.Intn(12) {
			case 0:
				b.Label("app", "web").ZoneSpread(1)
			case 1:
				b.Label("app", "web").HostnameSpread(1)
			case 2:
				b.HostPort(8080)
			case 3:
				b.Label("app", "db").AntiAffinity(corev1.LabelHostname, map[string]string{"app": "db"})
			case 4:
				b.Label("app", "web")
			}
		}
		return b.Obj()
	}
	growInBatches(t, r, c, newPod, 6+r.Intn(10), 10)
	return c, newPod
}
