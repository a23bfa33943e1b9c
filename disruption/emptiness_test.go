package disruption_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/scheduling"
)

// TestEmptinessIssuesOneCommand: Emptiness deletes every empty node the budgets allow in a
// single command, over NodePools, each within its own Empty budget; the nodes left over say
// which budget keeps them.
func TestEmptinessIssuesOneCommand(t *testing.T) {
	tests := []struct {
		name     string
		pools    []*scheduling.NodePool
		commands []string
		blocked  map[string]string
	}{{
		name:     "every empty node in one command, most expensive first",
		pools:    []*scheduling.NodePool{pool("a").Obj(), pool("b").Obj()},
		commands: []string{"Emptiness delete [a-0 b-0 a-1] -> [] 0.50"},
	}, {
		name:     "each NodePool's budget bounds its share",
		pools:    []*scheduling.NodePool{onDemand("a").Budget("1").Obj(), onDemand("b").Obj()},
		commands: []string{"Emptiness delete [a-0 b-0] -> [] 0.40"},
		blocked:  map[string]string{"a-1": "NodePool a's disruption budget allows no more Empty disruptions"},
	}, {
		name: "a static NodePool's nodes are never consolidated, empty or not",
		pools: []*scheduling.NodePool{func() *scheduling.NodePool {
			np := pool("a").Obj()
			replicas := int64(2)
			np.Replicas = &replicas
			return np
		}(), pool("b").Obj()},
		commands: []string{"Emptiness delete [b-0] -> [] 0.20"},
		blocked:  map[string]string{"a-0": "NodePool a is static (replicas 2): its nodes are never consolidated"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := decide(t, disruption.Input{
				NodePools: tt.pools,
				Nodes: []*disruption.Node{
					running("a-0", "a", medium, "on-demand"),
					running("a-1", "a", small, "on-demand"),
					running("b-0", "b", medium, "on-demand"),
				},
			})
			assert.Equal(t, tt.commands, summary(d))
			for node, phrase := range tt.blocked {
				assert.Contains(t, blockedReason(d, node), phrase, "node %s", node)
			}
		})
	}
}

// A v1alpha5 Provisioner's node goes ttlSecondsAfterEmpty after Karpenter marked it empty
// (karpenter.sh/emptiness-timestamp), not after its creation; an empty node not marked yet is
// being marked now.
func TestV1alpha5EmptinessTimestamp(t *testing.T) {
	ttl := 30 * time.Second
	np := pool("legacy").Obj()
	np.Disruption = scheduling.Disruption{ConsolidationPolicy: scheduling.ConsolidationWhenEmpty, ConsolidateAfter: &ttl, Budgets: np.Disruption.Budgets}
	legacy := func(name string, marked time.Time, pods ...*corev1.Pod) *disruption.Node {
		n := running(name, "legacy", medium, "on-demand", pods...)
		n.V1alpha5, n.EmptinessTimestamp = true, marked
		return n
	}
	d := decide(t, disruption.Input{
		NodePools: []*scheduling.NodePool{np},
		Nodes: []*disruption.Node{
			legacy("marked-long-ago", now.Add(-time.Minute)),
			legacy("marked-just-now", now.Add(-10*time.Second)),
			legacy("not-marked", time.Time{}),
			legacy("busy", time.Time{}, pod("web-0", "1")),
		},
	})
	assert.Equal(t, []string{"Emptiness delete [marked-long-ago] -> [] 0.20"}, summary(d))
	assert.Equal(t, "ttlSecondsAfterEmpty (30s) has not passed since Karpenter marked the node empty (karpenter.sh/emptiness-timestamp 2025-06-02T11:59:50Z, 10s ago)", blockedReason(d, "marked-just-now"))
	assert.Equal(t, "the node is empty but has no karpenter.sh/emptiness-timestamp yet: Karpenter marks it now and deletes it ttlSecondsAfterEmpty (30s) later", blockedReason(d, "not-marked"))
	assert.Contains(t, blockedReason(d, "busy"), "consolidates only empty nodes")
}
