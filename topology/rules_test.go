package topology_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/topology"
)

const hostname = "kubernetes.io/hostname"

// judged is a pod as Rules see it: its terms, the groups (of those given) counting it.
func judged(t *testing.T, tr *topology.Tracker, pod *corev1.Pod, groups ...*topology.Group) topology.Pod {
	terms, err := tr.Terms(pod)
	require.NoError(t, err)
	p := topology.Pod{Active: terms, Eligible: func(*topology.Group) []string { return []string{"a", "b", "c"} }}
	for _, term := range terms {
		groups = append(groups, term.Group)
	}
	for _, g := range groups {
		if g.Matches(pod) && !containsGroup(p.Matched, g) {
			p.Matched = append(p.Matched, g)
		}
	}
	return p
}

func containsGroup(gs []*topology.Group, g *topology.Group) bool {
	for _, x := range gs {
		if x == g {
			return true
		}
	}
	return false
}

// placedIn records p on planned node number node, in zone and on hostname host.
func placedIn(rules *topology.Rules, p topology.Pod, node int, zoneValue, host string) {
	rules.Record(p, topology.Placement{
		Node: node,
		Domain: func(key string) (string, bool) {
			if key == hostname {
				return host, true
			}
			return zoneValue, true
		},
		Counts: func(*topology.Group) bool { return true },
	})
}

func TestRulesKeepPlacedPodsRules(t *testing.T) {
	web := map[string]string{"app": "web"}
	t.Run("a placed pod's required anti-affinity keeps matching pods out of its domain", func(t *testing.T) {
		tr, rules := topology.NewTracker(nil), topology.NewRules()
		owner := judged(t, tr, tb.Pod("owner").AntiAffinity(zone, web).Obj())
		placedIn(rules, owner, 0, "a", "n0")
		web := judged(t, tr, tb.Pod("web").Label("app", "web").Obj(), owner.Active[0].Group)
		require.NotNil(t, rules.Violated(web, topology.Node{}, zone, "a"), "kube-scheduler's inverse check")
		require.Nil(t, rules.Violated(web, topology.Node{}, zone, "b"))
	})
	t.Run("a self-affine group's first pod waits for AllowSeeds, then the others join its domain", func(t *testing.T) {
		tr, rules := topology.NewTracker(nil), topology.NewRules()
		first := judged(t, tr, tb.Pod("first").Label("app", "web").Affinity(zone, web).Obj())
		require.NotNil(t, rules.Violated(first, topology.Node{}, zone, "a"), "no seed before a round without progress")
		require.True(t, rules.AllowSeeds())
		require.False(t, rules.AllowSeeds(), "allowed once")
		require.Nil(t, rules.Violated(first, topology.Node{}, zone, "a"))
		placedIn(rules, first, 0, "a", "n0")
		plain := judged(t, tr, tb.Pod("plain").Label("app", "web").Obj(), first.Active[0].Group)
		require.NotNil(t, rules.Violated(plain, topology.Node{}, zone, "b"), "the seed must not be left alone")
		require.Nil(t, rules.Violated(plain, topology.Node{}, zone, "a"))
		plain.Loose = true
		require.Nil(t, rules.Violated(plain, topology.Node{}, zone, "b"), "a loose pod may leave the seed alone")
	})
	t.Run("a fresh node's DaemonSet pods count against anti-affinity", func(t *testing.T) {
		tr, rules := topology.NewTracker(nil), topology.NewRules()
		p := judged(t, tr, tb.Pod("p").AntiAffinity(zone, web).Obj())
		rules.AddFreshDaemon(p.Active[0].Group, []bool{false, true}) // runs on every node of pool 1
		require.Nil(t, rules.Violated(p, topology.Node{Fresh: true, Pool: 0}, zone, "a"))
		require.NotNil(t, rules.Violated(p, topology.Node{Fresh: true, Pool: 1}, zone, "a"))
		require.Nil(t, rules.Violated(p, topology.Node{}, zone, "a"), "a planned node's daemon pods are counted already")
	})
}

func TestRulesHostnameSkip(t *testing.T) {
	web := map[string]string{"app": "web"}
	tr, rules := topology.NewTracker(nil), topology.NewRules()
	anti := judged(t, tr, tb.Pod("web-0").Label("app", "web").AntiAffinity(hostname, web).Obj())
	require.Nil(t, rules.HostnameSkip(anti), "nothing placed: nothing to skip")
	placedIn(rules, anti, 0, "a", "n0")
	placedIn(rules, judged(t, tr, tb.Pod("other").Obj()), 1, "a", "n1")
	placedIn(rules, anti, 2, "a", "n2")
	skip := rules.HostnameSkip(anti)
	require.NotNil(t, skip)
	require.Equal(t, 1, skip.Find(0), "nodes 0 and 2 hold a pod of the group")
	require.Equal(t, 3, skip.Find(2))
	before := rules.Epoch()
	rules.RecordDaemonPod(anti.Active[0].Group, "n3", 3)
	require.Greater(t, rules.Epoch(), before, "counts changed")
	require.Equal(t, 4, skip.Find(3), "a counted DaemonSet pod closes its node too")
}
