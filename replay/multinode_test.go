package replay_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/disruption"
	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/replay"
	"github.com/nodeplan/nodeplan/scheduling"
)

// The replay's multi-node consolidation is Karpenter's, which searches prefixes of the ranked
// candidates; NodeplanMultiNode makes it nodeplan consolidate's, which grows sets beyond them.
// Node a ranks first, and its 7.5-cpu pod fits no other node, so every prefix fails:
// Karpenter's search removes b alone, by single-node consolidation; growing finds b and c
// together.
func TestReplayMultiNodeIsKarpentersUnlessAsked(t *testing.T) {
	start := startCluster(0)
	// Every node may go at once: the default budget of 10% would let multi-node
	// consolidation take one node only.
	start.NodePools[0].Disruption.Budgets = []scheduling.Budget{{Nodes: "100%"}}
	node := func(name string, it string, cpu string, keep bool) *disruption.Node {
		typ, price := small(), 0.10
		if it == "large" {
			typ, price = large(), 0.28
		}
		n := tb.KarpenterNode(name, "default", typ, "us-west-2a", "on-demand")
		if keep {
			n.Annotations = map[string]string{"karpenter.sh/do-not-disrupt": "true"}
		}
		p := tb.Pod(name + "-pod").CPU(cpu).Obj()
		p.Spec.NodeName, p.Status.Phase = name, corev1.PodRunning
		return &disruption.Node{Node: n, Pods: []*corev1.Pod{p}, NodePool: "default", InstanceType: it, Zone: "us-west-2a",
			CapacityType: "on-demand", Price: price, Created: t0.Add(-time.Hour), Initialized: true}
	}
	start.Nodes = []*disruption.Node{
		node("a", "large", "7500m", false),
		node("b", "small", "1", false),
		node("c", "small", "1", false),
		node("keeper", "large", "6", true),
	}
	firstCommand := func(opts replay.Options) replay.Decision {
		t.Helper()
		res, err := replay.Run(start, nil, opts)
		require.NoError(t, err)
		checkInvariants(t, res)
		for _, d := range res.Decisions {
			if d.Kind == replay.DecisionDisrupt {
				return d
			}
		}
		t.Fatal("no command")
		return replay.Decision{}
	}
	karpenter := firstCommand(replay.Options{})
	require.Equal(t, disruption.MethodSingleNodeConsolidation, karpenter.Method)
	require.Equal(t, []string{"b"}, karpenter.Nodes)
	grown := firstCommand(replay.Options{NodeplanMultiNode: true})
	require.Equal(t, disruption.MethodMultiNodeConsolidation, grown.Method)
	require.Equal(t, []string{"b", "c"}, grown.Nodes)
}
