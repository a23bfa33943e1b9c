package scheduling_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetype"
	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

// Capacity reservations: a NodePool that asks for the reserved capacity type launches into a
// reservation, next to free, only up to the instances it still takes; the node carries the
// reservation's labels. A NodePool that does not ask for it never uses it.
func TestReservedCapacity(t *testing.T) {
	m := func() *instancetype.InstanceType {
		it := tb.Type("m", "2", "8Gi", 20).Offer("us-west-2a", "on-demand", 0.10).Offer("us-west-2a", "spot", 0.04).Obj()
		it.Offerings = append(it.Offerings, instancetype.Offering{Zone: "us-west-2a", CapacityType: "reserved", Price: 0.10 / 10_000_000,
			Available: true, ReservationID: "cr-0123", ReservationCapacity: 2, ReservationType: "default"})
		return it
	}
	big := tb.Pod("big").CPU("1500m").Replicas(3)

	asking := tb.NodePool("default", m()).Requirement("karpenter.sh/capacity-type", corev1.NodeSelectorOpIn, "reserved", "on-demand").Obj()
	plan, err := scheduling.Solve(scheduling.Input{Pods: big, NodePools: pools(asking)})
	require.NoError(t, err)
	require.Equal(t, []string{
		"default-1 m us-west-2a reserved: big-0",
		"default-2 m us-west-2a reserved: big-1",
		"default-3 m us-west-2a on-demand: big-2",
	}, render(plan))
	require.Equal(t, "cr-0123", plan.NodeClaims[0].Labels["karpenter.k8s.aws/capacity-reservation-id"])
	require.Equal(t, "default", plan.NodeClaims[0].Labels["karpenter.k8s.aws/capacity-reservation-type"])
	require.NotContains(t, plan.NodeClaims[2].Labels, "karpenter.k8s.aws/capacity-reservation-id")

	plain := tb.NodePool("default", m()).Obj()
	plan, err = scheduling.Solve(scheduling.Input{Pods: big, NodePools: pools(plain)})
	require.NoError(t, err)
	for _, nc := range plan.NodeClaims {
		require.NotEqual(t, "reserved", nc.CapacityType, "the NodePool did not ask for reserved capacity")
	}
}
