package scheduling_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

const zoneKey = "topology.kubernetes.io/zone"
const hostKey = "kubernetes.io/hostname"

// threeZones is a catalog whose zone-a is cheapest, so an unconstrained plan would put
// everything there.
func threeZones() []*scheduling.NodePool {
	small := tb.Type("small", "2", "8Gi", 30).Offer("zone-a", "on-demand", 0.10).Offer("zone-b", "on-demand", 0.11).Offer("zone-c", "on-demand", 0.12).Obj()
	large := tb.Type("large", "16", "64Gi", 110).Offer("zone-a", "on-demand", 0.80).Offer("zone-b", "on-demand", 0.88).Offer("zone-c", "on-demand", 0.96).Obj()
	return []*scheduling.NodePool{tb.NodePool("default", small, large).Obj()}
}

// podsPerDomain counts, per value of key on the pod's new node, the pods of the plan.
func podsPerDomain(plan scheduling.Plan, key string) map[string]int {
	out := map[string]int{}
	for _, nc := range plan.NodeClaims {
		out[nc.Labels[key]] += len(nc.Pods)
	}
	return out
}

func TestTopology(t *testing.T) {
	web := map[string]string{"app": "web"}
	tests := []struct {
		name  string
		pods  []*corev1.Pod
		pools []*scheduling.NodePool
		nodes []*scheduling.ExistingNode
		check func(t *testing.T, plan scheduling.Plan)
	}{
		{
			name: "6 pods zonal spread over 3 zones land 2/2/2",
			pods: tb.Pod("web").Label("app", "web").CPU("100m").ZoneSpread(1).Replicas(6),
			check: func(t *testing.T, plan scheduling.Plan) {
				require.Equal(t, map[string]int{"zone-a": 2, "zone-b": 2, "zone-c": 2}, podsPerDomain(plan, zoneKey))
			},
		},
		{
			name: "hostname anti-affinity gives one node per pod",
			pods: tb.Pod("db").Label("app", "web").CPU("100m").AntiAffinity(hostKey, web).Replicas(4),
			check: func(t *testing.T, plan scheduling.Plan) {
				require.Len(t, plan.NodeClaims, 4)
				for _, nc := range plan.NodeClaims {
					require.Len(t, nc.Pods, 1)
				}
			},
		},
		{
			name: "zone self-affinity puts all replicas in one zone",
			pods: tb.Pod("web").Label("app", "web").CPU("1500m").Affinity(zoneKey, web).Replicas(5),
			check: func(t *testing.T, plan scheduling.Plan) {
				require.Len(t, podsPerDomain(plan, zoneKey), 1)
				require.Empty(t, plan.Unschedulable)
			},
		},
		{
			name: "inverse anti-affinity keeps pods off an existing pod's zone",
			pods: tb.Pod("web").Label("app", "web").CPU("100m").Replicas(3),
			nodes: []*scheduling.ExistingNode{
				tb.Node("guard", "1", "1Gi", 10).Zone("zone-a").Pods(tb.Pod("guard").Label("role", "guard").AntiAffinity(zoneKey, web).Obj()).Obj(),
			},
			check: func(t *testing.T, plan scheduling.Plan) {
				require.Empty(t, plan.ExistingNodes)
				require.Zero(t, podsPerDomain(plan, zoneKey)["zone-a"])
				require.Equal(t, 3, plan.Summary.Placed)
			},
		},
		{
			name: "required affinity to a missing pod is unschedulable with PodAffinity",
			pods: []*corev1.Pod{tb.Pod("lonely").CPU("100m").Affinity(zoneKey, map[string]string{"app": "nothere"}).Obj()},
			check: func(t *testing.T, plan scheduling.Plan) {
				require.Len(t, plan.Unschedulable, 1)
				require.Equal(t, scheduling.ConstraintPodAffinity, plan.Unschedulable[0].Constraint)
				require.Contains(t, plan.Unschedulable[0].Reason, "pod affinity on topology.kubernetes.io/zone")
			},
		},
		{
			name: "dependent chain: a pod needing another's zone waits until it is placed",
			pods: []*corev1.Pod{
				tb.Pod("a-client").CPU("2").Affinity(zoneKey, map[string]string{"app": "server"}).Obj(),
				tb.Pod("b-server").Label("app", "server").CPU("100m").NodeSelector(zoneKey, "zone-b").Obj(),
			},
			check: func(t *testing.T, plan scheduling.Plan) {
				require.Empty(t, plan.Unschedulable)
				require.Equal(t, map[string]int{"zone-b": 2}, podsPerDomain(plan, zoneKey))
			},
		},
		{
			name: "preferred zone anti-affinity is relaxed when zones run out",
			pods: tb.Pod("web").Label("app", "web").CPU("100m").PreferredAntiAffinity(100, zoneKey, web).Replicas(5),
			check: func(t *testing.T, plan scheduling.Plan) {
				require.Empty(t, plan.Unschedulable)
				require.Len(t, podsPerDomain(plan, zoneKey), 3)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pools := tt.pools
			if pools == nil {
				pools = threeZones()
			}
			plan, err := scheduling.Solve(scheduling.Input{Pods: tt.pods, NodePools: pools, ExistingNodes: tt.nodes})
			require.NoError(t, err)
			tt.check(t, plan)
		})
	}
}
