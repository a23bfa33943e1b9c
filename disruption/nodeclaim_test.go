package disruption_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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

// TestNodeClaimExpireAfter: expiration reads the NodeClaim's own expireAfter, as Karpenter's
// expiration controller does; a NodePool whose expireAfter changed since has drifted (within
// the Drifted budget), it does not expire the node. Without the NodeClaim's value, the
// NodePool's applies.
func TestNodeClaimExpireAfter(t *testing.T) {
	hours := func(h int) *time.Duration { d := time.Duration(h) * time.Hour; return &d }
	tests := []struct {
		name string
		// claim is the NodeClaim's expireAfter; set says whether it is known.
		claim    *time.Duration
		set      bool
		pool     *time.Duration
		budget   string
		commands []string
		note     string
		blocked  string
	}{{
		name: "the NodeClaim's expireAfter has passed: Expiration", claim: hours(12), set: true, pool: hours(720),
		commands: []string{"Expiration replace [a] -> [on-demand/medium] 0.00"},
		note:     "the node is 24h old, past its NodeClaim's expireAfter 12h0m0s",
	}, {
		name: "a NodePool shortened after launch drifts the node, it does not expire it", claim: hours(720), set: true, pool: hours(12),
		commands: []string{"Drift replace [a] -> [on-demand/medium] 0.00"},
		note:     "drifted: NodePool default's expireAfter is now 12h0m0s, its NodeClaim's is 720h0m0s",
	}, {
		name: "that drift is budgeted", claim: hours(720), set: true, pool: hours(12), budget: "0",
		blocked: "allows no more Drifted disruptions",
	}, {
		name: "a NodeClaim that never expires under a NodePool that now does: drift", claim: nil, set: true, pool: hours(12),
		commands: []string{"Drift replace [a] -> [on-demand/medium] 0.00"},
		note:     "drifted: NodePool default's expireAfter is now 12h0m0s, its NodeClaim's is Never",
	}, {
		name: "without the NodeClaim's value the NodePool's applies", pool: hours(12),
		commands: []string{"Expiration replace [a] -> [on-demand/medium] 0.00"},
		note:     "the node is 24h old, past NodePool default's expireAfter 12h0m0s",
	}, {
		name: "the same value on both: nothing to do", claim: hours(720), set: true, pool: hours(720),
		blocked: "not less than",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			np := onDemand("default")
			if tt.pool != nil {
				np.ExpireAfter(*tt.pool)
			}
			if tt.budget != "" {
				np.Budget(tt.budget, scheduling.ReasonDrifted)
			}
			n := running("a", "default", medium, "on-demand", pod("web-0", "3"))
			n.ExpireAfter, n.ExpireAfterSet = tt.claim, tt.set
			d := decide(t, disruption.Input{NodePools: []*scheduling.NodePool{np.Obj()}, Nodes: []*disruption.Node{n}})
			assert.Equal(t, tt.commands, summary(d))
			if tt.note != "" {
				require.NotEmpty(t, d.Commands)
				assert.Equal(t, tt.note, d.Commands[0].Notes[0])
			}
			if tt.blocked != "" {
				assert.Contains(t, blockedReason(d, "a"), tt.blocked)
			}
		})
	}
}
