package scheduling_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

// Four 1-cpu pods: four small nodes cost less in instance prices than one large node, but not
// once each node also pays its root volume.
func TestNodeCost(t *testing.T) {
	small := tb.Type("small", "1", "4Gi", 8).Offer("us-west-2a", "on-demand", 0.010).Obj()
	large := tb.Type("large", "4", "16Gi", 8).Offer("us-west-2a", "on-demand", 0.045).Obj()
	for _, tc := range []struct {
		name     string
		nodeCost float64
		want     []string
		fixed    float64
	}{
		{"instance prices alone", -1, []string{"default-1 small", "default-2 small", "default-3 small", "default-4 small"}, 0},
		{"the default root volume", 0, []string{"default-1 large"}, 0.002192},
		{"a root volume and a public IPv4 address", 0.0072, []string{"default-1 large"}, 0.0072},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := scheduling.Solve(scheduling.Input{
				Pods:      tb.Pod("inflate").CPU("1").Replicas(4),
				NodePools: pools(tb.NodePool("default", small, large).Obj()),
				Options:   scheduling.Options{NodeCost: tc.nodeCost},
			})
			require.NoError(t, err)
			var got []string
			for _, nc := range plan.NodeClaims {
				got = append(got, nc.Name+" "+nc.InstanceType)
			}
			require.Equal(t, tc.want, got)
			require.InDelta(t, tc.fixed*float64(len(got)), plan.Summary.NodeFixedCost, 1e-6)
		})
	}
}
