package topology_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

func TestPlannedAsksEachDomainOnceAndSkipsSettledNodes(t *testing.T) {
	web := map[string]string{"app": "web"}
	tr, rules := topology.NewTracker(nil), topology.NewRules()
	pod := judged(t, tr, tb.Pod("web").Label("app", "web").AntiAffinity(zone, web).Obj())
	domains := topology.NewDomains(1, tr.Groups(), func(int, string) []string { return []string{"a", "b"} })
	p := topology.PlannedPod{ID: "web-0", Active: pod.Active, Keys: topology.RuleKeys(pod.Active, pod.Matched)}
	asked := 0
	judge := func(key, value string) *topology.Group {
		asked++
		return rules.Violated(pod, topology.Node{}, key, value)
	}
	var m topology.Planned
	inA := requirements.Requirements{}
	inA.Add(requirements.New(zone, corev1.NodeSelectorOpIn, "a"))

	require.False(t, m.NodeRefuses(rules, p, domains, 0, inA, judge), "zone a is empty")
	require.False(t, m.NoneTakes(rules, p, domains, judge))
	require.Nil(t, m.Violated(rules, p, zone, "a", judge))
	require.Equal(t, 1, asked, "zone a, once; anti-affinity asks nothing of an open node")

	placedIn(rules, pod, 0, "a", "n0") // the anti-affine pod now owns zone a: the counts change
	require.True(t, m.NodeRefuses(rules, p, domains, 0, inA, judge), "a node settled in a is refused")
	require.False(t, m.NodeRefuses(rules, p, domains, 0, requirements.Requirements{}, judge), "an open node may still take b")
	require.False(t, m.NoneTakes(rules, p, domains, judge), "anti-affinity needs no domain")
	require.Equal(t, 2, asked, "zone a asked afresh after the placement")
}
