package disruption_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

// onDemand is the scenario NodePool restricted to on-demand capacity.
func onDemand(name string) *testbuild.NodePoolBuilder {
	return pool(name).Requirement("karpenter.sh/capacity-type", corev1.NodeSelectorOpIn, "on-demand")
}

func TestPendingPodsKeepTheirRoom(t *testing.T) {
	nodes := func() []*disruption.Node {
		return []*disruption.Node{
			running("a", "default", medium, "on-demand", pod("web-0", "3")),
			running("b", "default", small, "on-demand", pod("api-0", "1")),
		}
	}
	without := decide(t, disruption.Input{NodePools: []*scheduling.NodePool{onDemand("default").Obj()}, Nodes: nodes()})
	assert.Equal(t, []string{"SingleNodeConsolidation delete [b] -> [] 0.10"}, summary(without))

	with := decide(t, disruption.Input{
		NodePools: []*scheduling.NodePool{onDemand("default").Obj()},
		Nodes:     nodes(),
		// Sorted before api-0 (more memory), the pending pod takes the room api-0 needs.
		PendingPods: []*corev1.Pod{testbuild.Pod("batch-0").CPU("1").Memory("2Gi").Obj()},
	})
	assert.Empty(t, with.Commands, "the pending pod takes the room api-0 would need on a")
	assert.Contains(t, blockedReason(with, "b"), "not less than")
}

func TestTopologySpreadKeepsANode(t *testing.T) {
	// web pods spread over zones with maxSkew 1, one per zone. Zone b keeps a full node, so
	// moving web-1 from b to zone a would leave zones a:2, b:0; the NodePool launches only
	// in zone a.
	spread := func(name string) *corev1.Pod {
		return testbuild.Pod(name).Label("app", "web").CPU("1").ZoneSpread(1).Obj()
	}
	inZone := func(n *disruption.Node, zone string) *disruption.Node {
		n.Zone = zone
		n.Node.Labels["topology.kubernetes.io/zone"] = zone
		return n
	}
	d := decide(t, disruption.Input{
		NodePools: []*scheduling.NodePool{onDemand("default").Obj()},
		Nodes: []*disruption.Node{
			running("a", "default", small, "on-demand", spread("web-0")),
			inZone(running("b", "default", small, "on-demand", spread("web-1")), "test-zone-b"),
			inZone(testbuildFull("full-b"), "test-zone-b"),
		},
	})
	assert.Empty(t, d.Commands)
	assert.Contains(t, blockedReason(d, "b"), "pod default/web-1 cannot be rescheduled")
	assert.Contains(t, blockedReason(d, "a"), "not less than", "web-0 may only go to a new node in zone a, which costs as much")
}

// keep marks a node do-not-disrupt: it only receives pods.
func keep(n *disruption.Node) *disruption.Node {
	n.Node.Annotations = map[string]string{"karpenter.sh/do-not-disrupt": "true"}
	return n
}

// testbuildFull is an unmanaged node with no room left.
func testbuildFull(name string) *disruption.Node {
	n := running(name, "", small, "on-demand", pod("full-"+name, "2"))
	delete(n.Node.Labels, "karpenter.sh/nodepool")
	return n
}

func TestPodsDoNotMoveOntoNodesStillStarting(t *testing.T) {
	starting := running("starting", "default", large, "on-demand")
	starting.Initialized = false
	d := decide(t, disruption.Input{
		NodePools: []*scheduling.NodePool{onDemand("default").Obj()},
		Nodes:     []*disruption.Node{running("b", "default", small, "on-demand", pod("web-0", "1")), starting},
	})
	assert.Empty(t, d.Commands)
	assert.Contains(t, blockedReason(d, "b"), "would move to node starting, which is not initialized yet")
	assert.Contains(t, blockedReason(d, "starting"), "not initialized")
}

func TestVolumeZoneKeepsANode(t *testing.T) {
	// The db pod's volume lives in zone b, where the NodePool cannot launch; a has room, but
	// in zone a.
	zoneB := "test-zone-b"
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pv-data"},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:    corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")},
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			ClaimRef:    &corev1.ObjectReference{Namespace: "default", Name: "data"},
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{testbuild.In("topology.kubernetes.io/zone", zoneB)}}}}},
		},
	}
	pvc := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: "default"},
		Spec:       corev1.PersistentVolumeClaimSpec{VolumeName: "pv-data", AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}},
		Status:     corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound},
	}
	b := running("b", "default", small, "on-demand", testbuild.Pod("db-0").CPU("1").PVC("data", "data").Obj())
	b.Zone = zoneB
	b.Node.Labels["topology.kubernetes.io/zone"] = zoneB
	d := decide(t, disruption.Input{
		NodePools:              []*scheduling.NodePool{onDemand("default").Obj()},
		Nodes:                  []*disruption.Node{keep(running("a", "default", large, "on-demand", pod("web-0", "1"))), b},
		PersistentVolumes:      []*corev1.PersistentVolume{pv},
		PersistentVolumeClaims: []*corev1.PersistentVolumeClaim{pvc},
	})
	assert.Empty(t, d.Commands)
	assert.Contains(t, blockedReason(d, "b"), "pod default/db-0 cannot be rescheduled")
}

// aRanksFirst is a cluster where a ranks first but its 7-cpu pod only fits a node of its own
// type, so every prefix of the candidates fails, while b and c both fit on keeper.
func aRanksFirst(karpenterMultiNode bool) disruption.Input {
	return disruption.Input{
		NodePools: []*scheduling.NodePool{onDemand("default").Obj()},
		Nodes: []*disruption.Node{
			running("a", "default", large, "on-demand", pod("big-0", "7500m")),
			running("b", "default", medium, "on-demand", pod("web-0", "1")),
			running("c", "default", medium, "on-demand", pod("web-1", "1")),
			keep(running("keeper", "default", large, "on-demand", pod("keep-0", "6"))),
		},
		KarpenterMultiNode: karpenterMultiNode,
	}
}

func TestMultiNodeSearchBeatsSortedPrefix(t *testing.T) {
	// Growing an empty set finds that b and c both fit on keeper.
	d := decide(t, aRanksFirst(false))
	assert.Equal(t, []string{"MultiNodeConsolidation delete [b c] -> [] 0.40"}, summary(d))
	assert.ElementsMatch(t, []disruption.Move{{Pod: "default/web-0", To: "keeper"}, {Pod: "default/web-1", To: "keeper"}}, d.Commands[0].Moves)
	assert.Contains(t, blockedReason(d, "a"), "multi-node consolidation removed other nodes in this decision (b,c)")
	assert.Contains(t, blockedReason(d, "keeper"), "the node has karpenter.sh/do-not-disrupt")
}

// TestKarpenterMultiNodeTriesPrefixesOnly: Karpenter's multi-node consolidation tries the
// prefixes alone: every prefix starts with a, whose pod fits nowhere, so it removes nothing,
// and single-node consolidation then takes b, the first it can.
func TestKarpenterMultiNodeTriesPrefixesOnly(t *testing.T) {
	d := decide(t, aRanksFirst(true))
	assert.Equal(t, []string{"SingleNodeConsolidation delete [b] -> [] 0.20"}, summary(d))
	assert.Contains(t, blockedReason(d, "c"), "single-node consolidation acts on one node per decision and removed b")
}

func TestMultiNodeRespectsPDBsAcrossItsNodes(t *testing.T) {
	// Three lightly used nodes; db pods on a and b share a PDB allowing one disruption.
	d := decide(t, disruption.Input{
		NodePools: []*scheduling.NodePool{onDemand("default").Obj()},
		Nodes: []*disruption.Node{
			running("a", "default", medium, "on-demand", pod("db-0", "1")),
			running("b", "default", medium, "on-demand", pod("db-1", "1")),
			running("c", "default", medium, "on-demand", pod("web-0", "1")),
		},
		PodDisruptionBudgets: []*policyPDB{testbuild.PDB("db", map[string]string{"app": "db"}).MaxUnavailable("1").Obj()},
	})
	require.Len(t, d.Commands, 1)
	var cands []string
	for _, c := range d.Commands[0].Candidates {
		cands = append(cands, c.Node)
	}
	assert.NotSubset(t, cands, []string{"a", "b"}, "a and b together would evict two db pods")
	assert.Contains(t, blockedReason(d, "b"), "PodDisruptionBudget default/db")
}

func TestExpirationIsForceful(t *testing.T) {
	// The pod needs 6 cpu and the NodePool only offers small types now: the expired node goes
	// anyway and the command says the pod is left pending. do-not-disrupt does not stop it.
	old := running("old", "default", large, "on-demand", testbuild.Pod("big-0").CPU("6").Annotation("karpenter.sh/do-not-disrupt", "true").Obj())
	old.Created = now.Add(-31 * 24 * time.Hour)
	d := decide(t, disruption.Input{
		NodePools: []*scheduling.NodePool{pool("default", small).ExpireAfter(720 * time.Hour).Obj()},
		Nodes:     []*disruption.Node{old},
	})
	require.Equal(t, []string{"Expiration delete [old] -> [] 0.40"}, summary(d))
	notes := d.Commands[0].Notes
	assert.Contains(t, notes[0], "is 31d old, past NodePool default's expireAfter 720h0m0s")
	assert.Contains(t, notes, "pod default/big-0 has karpenter.sh/do-not-disrupt: that pod is evicted only when the NodePool's terminationGracePeriod runs out")
	assert.Contains(t, notes[len(notes)-1], "pod default/big-0 is left pending")
	assert.Equal(t, []string{"default/big-0"}, d.Commands[0].Evictions)
	assert.Empty(t, d.Commands[0].Moves)
}

func TestDriftFromTemplateLabel(t *testing.T) {
	d := decide(t, disruption.Input{
		NodePools: []*scheduling.NodePool{onDemand("default").Label("team", "payments").Obj()},
		Nodes:     []*disruption.Node{running("a", "default", medium, "on-demand", pod("web-0", "3"))},
	})
	require.Len(t, d.Commands, 1)
	assert.Equal(t, disruption.MethodDrift, d.Commands[0].Method)
	assert.Equal(t, "payments", d.Commands[0].Replacements[0].Labels["team"])
	assert.Contains(t, d.Commands[0].Notes[0], "NodePool default's template label team=payments is not on the node")
}

func TestEmptyNodeWithDoNotDisruptStays(t *testing.T) {
	idle := running("idle", "default", medium, "on-demand")
	idle.Node.Annotations = map[string]string{"karpenter.sh/do-not-disrupt": "true"}
	d := decide(t, disruption.Input{NodePools: []*scheduling.NodePool{pool("default").Obj()}, Nodes: []*disruption.Node{idle}})
	assert.Empty(t, d.Commands)
	assert.Equal(t, "the node has karpenter.sh/do-not-disrupt", blockedReason(d, "idle"))
}

func TestDecisionsJSON(t *testing.T) {
	d := decide(t, disruption.Input{
		NodePools: []*scheduling.NodePool{onDemand("default").Obj()},
		Nodes: []*disruption.Node{
			running("big", "default", large, "on-demand", pod("web-0", "1")),
			testbuildFull("unmanaged"),
		},
	})
	data, err := json.Marshal(d)
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(data, &doc))
	assert.ElementsMatch(t, []string{"commands", "blocked", "summary"}, keys(doc))
	cmd := doc["commands"].([]any)[0].(map[string]any)
	assert.ElementsMatch(t, []string{"method", "reason", "action", "candidates", "replacements", "evictions", "moves", "savings"}, keys(cmd))
	assert.Equal(t, map[string]any{"node": "big", "nodePool": "default", "instanceType": "large", "zone": zoneA, "capacityType": "on-demand", "price": 0.4}, cmd["candidates"].([]any)[0])
	assert.Equal(t, []any{map[string]any{"pod": "default/web-0", "to": "default-1"}}, cmd["moves"])
	web := func(cost float64) []any {
		return []any{map[string]any{"namespace": "default", "kind": "Pod", "name": "web-0", "pods": 1.0, "hourlyCost": cost}}
	}
	assert.Equal(t, map[string]any{"nodes": 1.0, "nodesAfter": 1.0, "hourlyCostBefore": 0.4, "hourlyCostAfter": 0.1,
		"costByWorkloadBefore": web(0.4), "costByWorkloadAfter": web(0.1)}, doc["summary"], "web-0 pays for its node before and for its replacement after")
	assert.Equal(t, []any{map[string]any{"node": "unmanaged", "reason": "the node is not managed by a NodePool (no karpenter.sh/nodepool label or NodeClaim)"}}, doc["blocked"])

	empty, err := json.Marshal(decide(t, disruption.Input{NodePools: []*scheduling.NodePool{pool("default").Obj()}}))
	require.NoError(t, err)
	assert.JSONEq(t, `{"commands":[],"blocked":[],"summary":{"nodes":0,"nodesAfter":0,"hourlyCostBefore":0,"hourlyCostAfter":0,"costByWorkloadBefore":[],"costByWorkloadAfter":[]}}`, string(empty))
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestUnmanagedNodesNeedNoInitializedFlag(t *testing.T) {
	// A node no NodePool launched has no NodeClaim to be initialized; pods may move onto it.
	spare := running("spare", "", large, "on-demand")
	delete(spare.Node.Labels, "karpenter.sh/nodepool")
	spare.Initialized = false
	d := decide(t, disruption.Input{
		NodePools: []*scheduling.NodePool{onDemand("default").Obj()},
		Nodes:     []*disruption.Node{running("b", "default", small, "on-demand", pod("web-0", "1")), spare},
	})
	assert.Equal(t, []string{"SingleNodeConsolidation delete [b] -> [] 0.10"}, summary(d))
	assert.Contains(t, blockedReason(d, "spare"), "not managed by a NodePool")
}

func TestPodsListedOnANodeRunThere(t *testing.T) {
	// web-0 is listed on a without spec.nodeName (a hand-written manifest): it still takes
	// a's room, so b's pod cannot move there.
	a := running("a", "default", small, "on-demand", pod("web-0", "1500m"))
	a.Pods[0].Spec.NodeName = ""
	d := decide(t, disruption.Input{
		NodePools: []*scheduling.NodePool{onDemand("default").Obj()},
		Nodes:     []*disruption.Node{a, running("b", "default", small, "on-demand", pod("web-1", "1"))},
	})
	assert.Empty(t, d.Commands)
	assert.Empty(t, a.Pods[0].Spec.NodeName, "the input is not modified")
}

func TestDriftFromNewTaint(t *testing.T) {
	// The NodePool now taints its nodes dedicated=gpu:NoSchedule; the pod tolerates it.
	d := decide(t, disruption.Input{
		NodePools: []*scheduling.NodePool{onDemand("default").Taint("dedicated", "gpu", corev1.TaintEffectNoSchedule).Obj()},
		Nodes: []*disruption.Node{running("a", "default", medium, "on-demand",
			testbuild.Pod("train-0").CPU("3").Toleration("dedicated", "gpu", corev1.TaintEffectNoSchedule).Obj())},
	})
	require.Len(t, d.Commands, 1)
	assert.Equal(t, "drifted: NodePool default's taint dedicated=gpu:NoSchedule is not on the node", d.Commands[0].Notes[0])
	assert.Equal(t, []corev1.Taint{{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}}, d.Commands[0].Replacements[0].Taints)
}

func TestPodsDoNotMoveOntoNodesAlreadyDisrupting(t *testing.T) {
	// leaving has room for web-0 but is already being deleted: b is replaced by a smaller
	// node instead. leaving's own pod needs room too (more than b has, or b would be
	// nominated for it), so that room is not promised away.
	leaving := running("leaving", "default", large, "on-demand", pod("api-0", "3500m"))
	leaving.Disrupting = true
	d := decide(t, disruption.Input{
		NodePools: []*scheduling.NodePool{onDemand("default").Obj()},
		Nodes:     []*disruption.Node{running("b", "default", medium, "on-demand", pod("web-0", "1")), leaving},
	})
	require.Len(t, d.Commands, 1)
	for _, m := range d.Commands[0].Moves {
		assert.NotEqual(t, "leaving", m.To, "pod %s moves onto a node being deleted", m.Pod)
	}
	assert.Equal(t, []string{"SingleNodeConsolidation replace [b] -> [on-demand/small] 0.10"}, summary(d))
}

func TestDoNotDisruptOnATerminatingPodIsIgnored(t *testing.T) {
	// Karpenter ignores karpenter.sh/do-not-disrupt on terminating and finished pods.
	leaving := testbuild.Pod("batch-0").CPU("1").Annotation("karpenter.sh/do-not-disrupt", "true").Obj()
	leaving.DeletionTimestamp = &metav1.Time{Time: now.Add(-time.Minute)}
	done := testbuild.Pod("batch-1").CPU("1").Annotation("karpenter.sh/do-not-disrupt", "true").Obj()
	done.Status.Phase = corev1.PodSucceeded
	d := decide(t, disruption.Input{
		NodePools: []*scheduling.NodePool{onDemand("default").Obj()},
		Nodes:     []*disruption.Node{running("idle", "default", medium, "on-demand", leaving, done)},
	})
	assert.Equal(t, []string{"Emptiness delete [idle] -> [] 0.20"}, summary(d))
}
