package topology_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

func TestDomainsNarrowToWhatANewNodeCanTake(t *testing.T) {
	tr := topology.NewTracker(nil)
	web := map[string]string{"app": "web"}
	_, err := tr.Terms(tb.Pod("web").Label("app", "web").SpreadSelecting(zone, 1, corev1.DoNotSchedule, web).HostnameSpread(1).Obj())
	require.NoError(t, err)
	zones := [][]string{{"a", "b"}, {"b", "c"}}
	d := topology.NewDomains(2, tr.Groups(), func(pool int, key string) []string {
		require.Equal(t, zone, key, "hostname is every node's own domain, never listed")
		return zones[pool]
	})
	onlyC := requirements.Requirements{}
	onlyC.Add(requirements.New(zone, corev1.NodeSelectorOpIn, "c"))

	require.Equal(t, 2, d.Pools())
	require.Equal(t, []string{"b", "c"}, d.Of(1, zone))
	require.Equal(t, []string{"a", "b"}, d.Within(0, zone, requirements.Requirements{}), "open key: every value of the pool")
	require.Empty(t, d.Within(0, zone, onlyC), "the pool offers no c")
	require.Equal(t, []string{"c"}, d.Within(1, zone, onlyC))
	require.Equal(t, []string{"a", "b", "c"}, d.Anywhere(zone, requirements.Requirements{}))
	require.Equal(t, []string{"c"}, d.Anywhere(zone, onlyC))
}

func TestRankDomainsTriesTheDomainTheRuleFavoursFirst(t *testing.T) {
	web := map[string]string{"app": "web"}
	tr := topology.NewTracker(nil)
	spreadPod := tb.Pod("spread").Label("app", "web").SpreadSelecting(zone, 1, corev1.DoNotSchedule, web).Obj()
	spread, err := tr.Terms(spreadPod)
	require.NoError(t, err)
	affine, err := tr.Terms(tb.Pod("affine").Affinity(zone, web).Obj())
	require.NoError(t, err)
	for _, v := range []string{"a", "a", "b"} {
		tr.Record(spreadPod, spread, func(string) (string, bool) { return v, true })
	}
	allowed := []string{"a", "b", "c"}

	require.Equal(t, []string{"c", "b", "a"}, topology.RankDomains(spread, nil, zone, allowed), "spread: least populated first")
	require.Equal(t, []string{"a", "b", "c"}, topology.RankDomains(affine, nil, zone, []string{"c", "b", "a"}), "affinity: most populated first")
	require.Equal(t, []string{"c", "b", "a"}, topology.RankDomains(nil, []*topology.Group{spread[0].Group}, zone, allowed), "counted by a spread only: balance it")
	require.Equal(t, []string{"a", "b", "c"}, topology.RankDomains(spread, nil, hostname, allowed), "no rule on the key: as given")
	require.Equal(t, []string{"a", "b", "c"}, allowed, "the input is not reordered")

	require.Equal(t, []string{zone}, topology.RuleKeys(affine, []*topology.Group{spread[0].Group}))
	require.True(t, topology.RequiresKey(spread, zone))
	require.Nil(t, topology.FirstOn(spread, hostname))
}
