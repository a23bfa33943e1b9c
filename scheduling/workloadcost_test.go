package scheduling_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

func ownedBy(b *tb.PodBuilder, kind, name string, controller bool) *corev1.Pod {
	p := b.Obj()
	p.OwnerReferences = append(p.OwnerReferences, metav1.OwnerReference{Kind: kind, Name: name, Controller: &controller})
	return p
}

func TestPodWorkload(t *testing.T) {
	tests := []struct {
		name string
		pod  *corev1.Pod
		want scheduling.Workload
	}{
		{"no owner: the pod itself", tb.Pod("solo").Namespace("ops").Obj(), scheduling.Workload{Namespace: "ops", Kind: "Pod", Name: "solo"}},
		{"a generated pod names its workload", ownedBy(tb.Pod("web-0"), "Deployment", "web", true), scheduling.Workload{Namespace: "default", Kind: "Deployment", Name: "web"}},
		{"a Deployment's ReplicaSet counts as the Deployment", ownedBy(tb.Pod("web-7d9f8-abcde").Label("pod-template-hash", "7d9f8"), "ReplicaSet", "web-7d9f8", true),
			scheduling.Workload{Namespace: "default", Kind: "Deployment", Name: "web"}},
		{"a ReplicaSet not named after the hash stays one", ownedBy(tb.Pod("rs-abcde").Label("pod-template-hash", "7d9f8"), "ReplicaSet", "rs", true),
			scheduling.Workload{Namespace: "default", Kind: "ReplicaSet", Name: "rs"}},
		{"a ReplicaSet without the hash label stays one", ownedBy(tb.Pod("web-7d9f8-abcde"), "ReplicaSet", "web-7d9f8", true),
			scheduling.Workload{Namespace: "default", Kind: "ReplicaSet", Name: "web-7d9f8"}},
		{"the controller reference wins", ownedBy(tb.Pod("db-0").Label("x", "y"), "StatefulSet", "db", true), scheduling.Workload{Namespace: "default", Kind: "StatefulSet", Name: "db"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, scheduling.PodWorkload(tt.pod))
		})
	}
	// With an owner that is not the controller first, the controller still counts.
	yes := true
	p := ownedBy(tb.Pod("x"), "ConfigMap", "cfg", false)
	p.OwnerReferences = append(p.OwnerReferences, metav1.OwnerReference{Kind: "Job", Name: "batch", Controller: &yes})
	require.Equal(t, scheduling.Workload{Namespace: "default", Kind: "Job", Name: "batch"}, scheduling.PodWorkload(p))
}

// A node's price is split by cpu share + memory share of its allocatable; the shares add up
// to the plan's hourly cost.
func TestCostByWorkload(t *testing.T) {
	// c2 (2 cpu, 4Gi) spot in us-west-2a costs 0.04. big requests 1 cpu + 2Gi (weight 1.0),
	// small 500m + 1Gi twice (0.5 each): big takes half, each small a quarter.
	plan, err := scheduling.Solve(scheduling.Input{
		Pods: pods(
			ownedBy(tb.Pod("big-0").CPU("1").Memory("2Gi"), "StatefulSet", "big", true),
			ownedBy(tb.Pod("small-0").CPU("500m").Memory("1Gi"), "Deployment", "small", true),
			ownedBy(tb.Pod("small-1").CPU("500m").Memory("1Gi"), "Deployment", "small", true),
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
	require.Equal(t, []scheduling.WorkloadCost{
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

func sumCosts(ws []scheduling.WorkloadCost) float64 {
	s := 0.0
	for _, w := range ws {
		s += w.HourlyCost
	}
	return s
}
