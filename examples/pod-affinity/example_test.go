// Package podaffinity checks the pod-affinity example: required zonal affinity gathers
// replicas in one zone, preferred zonal anti-affinity spreads them.
package podaffinity

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/cmd/nodeplan/app"
	"github.com/nodeplan/nodeplan/scheduling"
)

// zonesOf maps each pod of a workload (namespace/name prefix) to the zone of its new node.
func zonesOf(p scheduling.Plan, prefix string) map[string]string {
	zones := map[string]string{}
	for _, nc := range p.NodeClaims {
		for _, pod := range nc.Pods {
			if strings.HasPrefix(pod, prefix) {
				zones[pod] = nc.Zone
			}
		}
	}
	return zones
}

func distinct(m map[string]string) map[string]bool {
	out := map[string]bool{}
	for _, v := range m {
		out[v] = true
	}
	return out
}

func plan(t *testing.T, cfg app.Config) scheduling.Plan {
	t.Helper()
	res, err := app.Plan(cfg, scheduling.Options{})
	require.NoError(t, err)
	require.Empty(t, res.Plan.Unschedulable)
	return res.Plan
}

func TestAffinityAndAntiAffinity(t *testing.T) {
	p := plan(t, app.Config{Paths: []string{"."}})
	require.Equal(t, 7, p.Summary.Placed)

	cache := zonesOf(p, "default/cache-")
	require.Len(t, cache, 4)
	require.Len(t, distinct(cache), 1, "required zonal affinity: every cache replica in one zone: %v", cache)

	api := zonesOf(p, "default/api-")
	require.Len(t, api, 3)
	require.Len(t, distinct(api), 3, "preferred zonal anti-affinity: one api replica per zone: %v", api)
}

// With more replicas than us-west-2's four zones, the preference spreads the first four and
// is relaxed for the rest instead of leaving them pending.
func TestAntiAffinityRelaxed(t *testing.T) {
	manifests, err := os.ReadFile("workloads.yaml")
	require.NoError(t, err)
	p := plan(t, app.Config{Paths: []string{"-"}, Stdin: strings.NewReader(strings.Replace(string(manifests), "replicas: 3", "replicas: 6", 1))})
	api := zonesOf(p, "default/api-")
	require.Len(t, api, 6)
	require.Len(t, distinct(api), 4, "every zone of us-west-2 gets an api replica: %v", api)
}
