package scheduling_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/workloadcost"
)

func TestCostByWorkload(t *testing.T) {
	// c2 (2 cpu, 4Gi) spot in us-west-2a costs 0.04. big requests 1 cpu + 2Gi (weight 1.0),
	// small 500m + 1Gi twice (0.5 each): big takes half, each small a quarter.
	plan, err := scheduling.Solve(scheduling.Input{
		Pods: pods(
			tb.Pod("big-0").CPU("1").Memory("2Gi").OwnedBy("StatefulSet", "big", true).Obj(),
			tb.Pod("small-0").CPU("500m").Memory("1Gi").OwnedBy("Deployment", "small", true).Obj(),
			tb.Pod("small-1").CPU("500m").Memory("1Gi").OwnedBy("Deployment", "small", true).Obj(),
		),
		NodePools: []*scheduling.NodePool{tb.NodePool("default", c2()).Obj()},
		Options:   scheduling.Options{NodeCost: -1},
	})
	require.NoError(t, err)
	require.Len(t, plan.NodeClaims, 1)
	alloc := plan.NodeClaims[0].Allocatable
	// Allocatable is below capacity (overhead), so compute the expected weights from it.
	cpu, mem := float64(alloc.Cpu().MilliValue()), alloc.Memory().AsApproximateFloat64()
	wBig := 1000/cpu + float64(2<<30)/mem
	wSmall := 500/cpu + float64(1<<30)/mem
	round := func(v float64) float64 { return math.Round(v*1e6) / 1e6 }
	require.Equal(t, []workloadcost.Cost{
		{Namespace: "default", Kind: "Deployment", Name: "small", Pods: 2, HourlyCost: round(0.04 * 2 * wSmall / (wBig + 2*wSmall))},
		{Namespace: "default", Kind: "StatefulSet", Name: "big", Pods: 1, HourlyCost: round(0.04 * wBig / (wBig + 2*wSmall))},
	}, plan.Summary.CostByWorkload)
	require.InDelta(t, plan.Summary.HourlyCost, sumCosts(plan.Summary.CostByWorkload), 1e-6)
}

// Pods requesting nothing share their node's price equally; ties in cost sort by namespace,
// kind and name; a plan without new nodes has an empty (not null) list.
func TestCostByWorkloadEqualSharesAndEmpty(t *testing.T) {
	plan, err := scheduling.Solve(scheduling.Input{
		Pods:      pods(tb.Pod("b").Namespace("x"), tb.Pod("a").Namespace("y"), tb.Pod("a").Namespace("x")),
		NodePools: []*scheduling.NodePool{tb.NodePool("default", c2()).Obj()},
	})
	require.NoError(t, err)
	var names []string
	for _, w := range plan.Summary.CostByWorkload {
		names = append(names, w.Namespace+"/"+w.Name)
		require.InDelta(t, plan.Summary.HourlyCost/3, w.HourlyCost, 1e-6)
	}
	require.Equal(t, []string{"x/a", "x/b", "y/a"}, names)

	plan, err = scheduling.Solve(scheduling.Input{NodePools: []*scheduling.NodePool{defaultPool()}})
	require.NoError(t, err)
	require.NotNil(t, plan.Summary.CostByWorkload)
	require.Empty(t, plan.Summary.CostByWorkload)
}

// On a larger mixed plan the workload costs still add up to the hourly cost.
func TestCostByWorkloadAddsUp(t *testing.T) {
	var in []any
	for i, cpu := range []string{"100m", "250m", "1", "1500m", "3", "700m"} {
		in = append(in, tb.Pod(string(rune('a'+i))).CPU(cpu).Memory("300Mi").Replicas(3+i))
	}
	plan, err := scheduling.Solve(scheduling.Input{Pods: pods(in...), NodePools: []*scheduling.NodePool{defaultPool()}})
	require.NoError(t, err)
	require.Greater(t, len(plan.NodeClaims), 1)
	pods := 0
	for _, w := range plan.Summary.CostByWorkload {
		pods += w.Pods
	}
	require.Equal(t, plan.Summary.Placed, pods)
	require.InDelta(t, plan.Summary.HourlyCost, sumCosts(plan.Summary.CostByWorkload), 1e-6*float64(len(plan.Summary.CostByWorkload)))
}

func sumCosts(ws []workloadcost.Cost) float64 {
	s := 0.0
	for _, w := range ws {
		s += w.HourlyCost
	}
	return s
}
