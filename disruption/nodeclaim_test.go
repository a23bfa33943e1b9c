package disruption_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/scheduling"
)

// TestNodeClaimDriftedCondition: a NodeClaim's Drifted=True condition is drift Decide cannot
// see in the input (a new AMI, a changed node class); it drives Drift like computed drift,
// within the Drifted budget and behind do-not-disrupt.
func TestNodeClaimDriftedCondition(t *testing.T) {
	tests := []struct {
		name     string
		node     func() *disruption.Node
		pool     func() *scheduling.NodePool
		commands []string
		blocked  string
	}{{
		name: "Drifted=True replaces the node",
		node: func() *disruption.Node {
			n := running("a", "default", medium, "on-demand", pod("web-0", "3"))
			n.Drifted = "NodeClassDrift"
			return n
		},
		pool:     func() *scheduling.NodePool { return onDemand("default").Obj() },
		commands: []string{"Drift replace [a] -> [on-demand/medium] 0.00"},
	}, {
		name: "without the condition the same node stays",
		node: func() *disruption.Node {
			return running("a", "default", medium, "on-demand", pod("web-0", "3"))
		},
		pool:    func() *scheduling.NodePool { return onDemand("default").Obj() },
		blocked: "not less than",
	}, {
		name: "the Drifted budget still applies",
		node: func() *disruption.Node {
			n := running("a", "default", medium, "on-demand", pod("web-0", "3"))
			n.Drifted = "NodeClassDrift"
			return n
		},
		pool:    func() *scheduling.NodePool { return onDemand("default").Budget("0", scheduling.ReasonDrifted).Obj() },
		blocked: "allows no more Drifted disruptions",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := decide(t, disruption.Input{NodePools: []*scheduling.NodePool{tt.pool()}, Nodes: []*disruption.Node{tt.node()}})
			assert.Equal(t, tt.commands, summary(d))
			if tt.blocked != "" {
				assert.Contains(t, blockedReason(d, "a"), tt.blocked)
			}
			if len(d.Commands) > 0 {
				assert.Equal(t, "drifted: its NodeClaim's Drifted condition is True (NodeClassDrift)", d.Commands[0].Notes[0])
			}
		})
	}
}
