package scheduling_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetype/aws"
	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

// Karpenter's inflate example under a NodePool limited to 1000 cpu: while a node is being
// planned it holds the largest type it could still become, but once its type is chosen only
// that type counts, so every replica fits.
func TestLimitsCountTheLaunchedType(t *testing.T) {
	cat, err := aws.Catalog("us-west-2")
	require.NoError(t, err)
	pool := tb.NodePool("default", cat.InstanceTypes...).Limit(corev1.ResourceCPU, "1000").Obj()
	plan, err := scheduling.Solve(scheduling.Input{Pods: tb.Pod("inflate").CPU("1").Replicas(10), NodePools: []*scheduling.NodePool{pool}})
	require.NoError(t, err)
	require.Empty(t, plan.Unschedulable)
	require.Equal(t, 10, plan.Summary.Placed)
	cpu := int64(0)
	for _, nc := range plan.NodeClaims {
		q := nc.Capacity[corev1.ResourceCPU]
		cpu += q.MilliValue()
	}
	require.LessOrEqual(t, cpu, int64(1000_000), "the launched types stay within the limit")
}
