// Package layeredconstraints checks the layered-constraints example: a broad NodePool and a
// workload pinned to one offering.
package layeredconstraints

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/cmd/nodeplan/app"
	"github.com/nodeplan/nodeplan/scheduling"
)

// planWith plans the NodePool with inflate.yaml edited by the replacer, as
// "sed … inflate.yaml | nodeplan plan -f nodepool.yaml -f -" would.
func planWith(t *testing.T, replacer *strings.Replacer) scheduling.Plan {
	t.Helper()
	inflate, err := os.ReadFile("inflate.yaml")
	require.NoError(t, err)
	res, err := app.Plan(app.Config{Paths: []string{"nodepool.yaml", "-"}, Stdin: strings.NewReader(replacer.Replace(string(inflate)))}, scheduling.Options{})
	require.NoError(t, err)
	require.Equal(t, "us-west-2", res.Catalog.Region, "the zone in the nodeSelector names the region")
	return res.Plan
}

// Every node is exactly the pinned offering, although the NodePool allows hundreds.
func TestPinnedOffering(t *testing.T) {
	res, err := app.Plan(app.Config{Paths: []string{"."}}, scheduling.Options{})
	require.NoError(t, err)
	p := res.Plan
	require.Empty(t, p.Unschedulable)
	require.Equal(t, 6, p.Summary.Placed)
	require.Len(t, p.NodeClaims, 2, "an m7g.xlarge has room for 3 pods of 1 cpu")
	for _, nc := range p.NodeClaims {
		require.Equal(t, "m7g.xlarge", nc.InstanceType)
		require.Equal(t, "spot", nc.CapacityType)
		require.Equal(t, "us-west-2c", nc.Zone)
		require.Equal(t, "arm64", nc.Labels["kubernetes.io/arch"])
		require.Equal(t, []string{"m7g.xlarge"}, nc.InstanceTypeOptions)
		require.Len(t, nc.Pods, 3)
	}
}

// A pin the NodePool does not allow (m5 is generation 5; the NodePool wants Gt 5) leaves the
// pods unschedulable on node affinity rather than launching something else.
func TestPinOutsideNodePool(t *testing.T) {
	p := planWith(t, strings.NewReplacer("m7g.xlarge", "m5.xlarge", "arch: arm64", "arch: amd64", "replicas: 6", "replicas: 2"))
	require.Empty(t, p.NodeClaims)
	require.Len(t, p.Unschedulable, 2)
	for _, u := range p.Unschedulable {
		require.Equal(t, scheduling.ConstraintNodeAffinity, u.Constraint)
		require.Contains(t, u.Reason, "m5.xlarge")
	}
}

// limits.cpu 1000 caps the NodePool at 250 such nodes (4 vCPUs each): of 1000 replicas, 750
// are placed and the rest are unschedulable on Limits.
func TestNodePoolLimits(t *testing.T) {
	p := planWith(t, strings.NewReplacer("replicas: 6", "replicas: 1000"))
	require.Equal(t, 750, p.Summary.Placed)
	require.Len(t, p.NodeClaims, 250)
	require.Len(t, p.Unschedulable, 250)
	for _, u := range p.Unschedulable {
		require.Equal(t, scheduling.ConstraintLimits, u.Constraint)
	}
}
