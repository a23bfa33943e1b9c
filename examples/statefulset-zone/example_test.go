// Package statefulsetzone checks the statefulset-zone example: a 20-replica StatefulSet with
// per-replica claims, kept in one zone by node affinity.
package statefulsetzone

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/cmd/nodeplan/app"
	"github.com/nodeplan/nodeplan/scheduling"
)

func TestAllInOneZone(t *testing.T) {
	res, err := app.Plan(app.Config{Paths: []string{"."}}, scheduling.Options{})
	require.NoError(t, err)
	require.Empty(t, res.Bundle.Warnings)

	// volumeClaimTemplates give each broker its claim, in the default class.
	var claims, want []string
	for i, c := range res.Bundle.PersistentVolumeClaims {
		claims = append(claims, c.Namespace+"/"+c.Name)
		want = append(want, fmt.Sprintf("streaming/data-kafka-%d", i))
		require.NotNil(t, c.Spec.StorageClassName)
		require.Equal(t, "gp3", *c.Spec.StorageClassName)
	}
	require.Len(t, want, 20)
	require.ElementsMatch(t, want, claims)

	p := res.Plan
	require.Empty(t, p.Unschedulable)
	require.Equal(t, 20, p.Summary.Placed)
	placed := 0
	for _, nc := range p.NodeClaims {
		require.Equal(t, "us-west-2c", nc.Zone, nc.Name)
		require.Equal(t, "us-west-2c", nc.Labels["topology.kubernetes.io/zone"])
		placed += len(nc.Pods)
	}
	require.Equal(t, 20, placed)
}
