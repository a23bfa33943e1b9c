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

	ranked := func(active []topology.Term, matched []*topology.Group, key string, domains ...string) []string {
		topology.RankDomains(active, matched, key, domains)
		return domains
	}
	require.Equal(t, []string{"c", "b", "a"}, ranked(spread, nil, zone, "a", "b", "c"), "spread: least populated first")
	require.Equal(t, []string{"a", "b", "c"}, ranked(affine, nil, zone, "c", "b", "a"), "affinity: most populated first")
	require.Equal(t, []string{"c", "b", "a"}, ranked(nil, []*topology.Group{spread[0].Group}, zone, "a", "b", "c"), "counted by a spread only: balance it")
	require.Equal(t, []string{"b", "a", "c"}, ranked(spread, nil, hostname, "b", "a", "c"), "no rule on the key: as given")

	require.Equal(t, []string{zone}, topology.RuleKeys(affine, []*topology.Group{spread[0].Group}))
	require.True(t, topology.RequiresKey(spread, zone))
	require.Nil(t, topology.FirstOn(spread, hostname))
}

func TestNarrowFixesTheDomainThePodIsCountedIn(t *testing.T) {
	web := map[string]string{"app": "web"}
	tr, rules := topology.NewTracker(nil), topology.NewRules()
	pod := judged(t, tr, tb.Pod("web").Label("app", "web").SpreadSelecting(zone, 1, corev1.DoNotSchedule, web).Obj())
	domains := topology.NewDomains(1, tr.Groups(), func(int, string) []string { return []string{"a", "b", "c"} })
	keys := topology.RuleKeys(pod.Active, pod.Matched)
	judge := func(key, v string) *topology.Group { return rules.Violated(pod, topology.Node{}, key, v) }
	anywhere := func(requirements.Requirements, string, string) bool { return true }
	notC := func(_ requirements.Requirements, _ string, v string) bool { return v != "c" }
	placedIn(rules, pod, 0, "a", "n0")
	placedIn(rules, pod, 1, "b", "n1")
	open := requirements.Requirements{}

	reqs, refused := domains.Narrow(pod.Active, pod.Matched, keys, open, topology.Joining{Name: "n2"}, judge, anywhere, false)
	require.Nil(t, refused.Group)
	require.Equal(t, []string{"c"}, reqs[zone].Values(), "the empty zone: a and b are a pod ahead")
	require.Empty(t, open, "the input is not changed")

	_, refused = domains.Narrow(pod.Active, pod.Matched, keys, open, topology.Joining{Name: "n2"}, judge, notC, true)
	require.Equal(t, pod.Active[0].Group, refused.Group, "c is the only allowed zone and nothing launches there")
	require.Equal(t, []string{"c"}, refused.Domains)

	_, refused = domains.Narrow(pod.Active, pod.Matched, keys, open, topology.Joining{Name: "n0", Existing: true, Labels: map[string]string{zone: "a"}}, judge, anywhere, true)
	require.Equal(t, pod.Active[0].Group, refused.Group, "an existing node in zone a would put a two pods ahead of c")
	require.Equal(t, "a", refused.Domain)
}

func TestRecordJoinedCountsThePodWhereTheNodeIs(t *testing.T) {
	web := map[string]string{"app": "web"}
	tr, rules := topology.NewTracker(nil), topology.NewRules()
	pod := judged(t, tr, tb.Pod("web").Label("app", "web").SpreadSelecting(zone, 1, corev1.DoNotSchedule, web).Obj())
	g := pod.Active[0].Group
	domains := topology.NewDomains(1, tr.Groups(), func(int, string) []string { return []string{"a", "b"} })
	inB := requirements.Requirements{}
	inB.Add(requirements.New(zone, corev1.NodeSelectorOpIn, "b"))

	domains.RecordJoined(rules, pod, topology.Joining{Name: "new-0"}, inB, 0)
	domains.RecordJoined(rules, pod, topology.Joining{Name: "old", Existing: true, Labels: map[string]string{zone: "a"}}, nil, -1)
	require.Equal(t, 1, g.Count("a"), "the existing node's label")
	require.Equal(t, 1, g.Count("b"), "the new node's single zone")
	require.Equal(t, 2, rules.Epoch())
}
