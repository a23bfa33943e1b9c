package disruption_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

// inZone moves a scenario node to another zone (the NodePool still launches in zone a only).
func inZone(n *disruption.Node, zone string) *disruption.Node {
	n.Zone = zone
	n.Node.Labels[corev1.LabelTopologyZone] = zone
	return n
}

// A staying pod's required zonal affinity keeps its last partner in the zone: moving cache-0
// from b to a (the only room, in zone a) would leave web-0 in zone b with no cache pod, a state
// kube-scheduler would not admit web-0 into again.
func TestStayingPodKeepsItsAffinityPartner(t *testing.T) {
	const zoneB = "test-zone-b"
	web := testbuild.Pod("web-0").Label("app", "web").CPU("1").Affinity(corev1.LabelTopologyZone, map[string]string{"app": "cache"}).Obj()
	in := func(partnerStays bool) disruption.Input {
		nodes := []*disruption.Node{
			keep(running("a", "default", large, "on-demand", pod("api-0", "1"))),
			inZone(running("b", "default", small, "on-demand", pod("cache-0", "1")), zoneB),
			inZone(keep(running("w", "default", small, "on-demand", web, pod("full-0", "1"))), zoneB),
		}
		if partnerStays {
			nodes[2].Pods[1] = pod("cache-1", "1")
			nodes[2].Pods[1].Spec.NodeName = "w"
		}
		return disruption.Input{NodePools: []*scheduling.NodePool{onDemand("default").Obj()}, Nodes: nodes}
	}

	d := decide(t, in(false))
	assert.Empty(t, d.Commands)
	assert.Equal(t, "moving default/cache-0 leaves default/web-0 on w without the pods its required affinity needs", blockedReason(d, "b"))

	// With another cache pod next to web-0, cache-0 may go.
	d = decide(t, in(true))
	require.Equal(t, []string{"SingleNodeConsolidation delete [b] -> [] 0.10"}, summary(d))
	assert.Equal(t, []disruption.Move{{Pod: "default/cache-0", To: "a"}}, d.Commands[0].Moves)
}

// The inverse rule: a moved pod never lands where a staying pod's required anti-affinity
// forbids it. web-0 would fit on a, but loner-0 there repels app=web, so it goes to c.
func TestMovedPodRespectsStayingAntiAffinity(t *testing.T) {
	loner := testbuild.Pod("loner-0").Label("app", "loner").CPU("1").AntiAffinity(corev1.LabelHostname, map[string]string{"app": "web"}).Obj()
	nodes := func(withC bool) []*disruption.Node {
		out := []*disruption.Node{
			keep(running("a", "default", large, "on-demand", loner)),
			running("b", "default", small, "on-demand", pod("web-0", "1")),
		}
		if withC {
			out = append(out, keep(running("c", "default", large, "on-demand", pod("api-0", "1"))))
		}
		return out
	}
	d := decide(t, disruption.Input{NodePools: []*scheduling.NodePool{onDemand("default").Obj()}, Nodes: nodes(false)})
	assert.Empty(t, d.Commands, "web-0 may not join loner-0, and a new node would cost as much as b")

	d = decide(t, disruption.Input{NodePools: []*scheduling.NodePool{onDemand("default").Obj()}, Nodes: nodes(true)})
	require.Len(t, d.Commands, 1)
	assert.Equal(t, []disruption.Move{{Pod: "default/web-0", To: "c"}}, d.Commands[0].Moves)
}

// In multi-node consolidation the node whose removal would strand web-0 stays out of the set,
// and its explanation says why.
func TestMultiNodeSetLeavesOutTheNodeThatStrandsAPod(t *testing.T) {
	const zoneB = "test-zone-b"
	web := testbuild.Pod("web-0").Label("app", "web").CPU("1").Affinity(corev1.LabelTopologyZone, map[string]string{"app": "cache"}).Obj()
	d := decide(t, disruption.Input{NodePools: []*scheduling.NodePool{onDemand("default").Obj()}, Nodes: []*disruption.Node{
		keep(running("a", "default", large, "on-demand", pod("api-0", "1"))),
		inZone(running("b", "default", small, "on-demand", pod("cache-0", "1")), zoneB),
		running("c", "default", small, "on-demand", pod("batch-0", "1")),
		running("d", "default", small, "on-demand", pod("batch-1", "1")),
		inZone(keep(running("w", "default", small, "on-demand", web, pod("full-0", "1"))), zoneB),
	}})
	require.Equal(t, []string{"MultiNodeConsolidation delete [c d] -> [] 0.20"}, summary(d))
	assert.Equal(t, "multi-node consolidation removed other nodes in this decision (c,d); removing this one: "+
		"moving default/cache-0 leaves default/web-0 on w without the pods its required affinity needs", blockedReason(d, "b"))
}
