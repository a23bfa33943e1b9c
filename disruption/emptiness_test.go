package disruption_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

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
