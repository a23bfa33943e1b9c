package disruption_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/scheduling"
)

// TestUnknownPricesAreNeverSilent: a node the instance types cannot price gets a warning, is
// not consolidated (Karpenter refuses to price such a candidate), and a command that removes
// it anyway says its savings count it as $0; one priced from another offering of its type
// says so.
func TestUnknownPricesAreNeverSilent(t *testing.T) {
	tests := []struct {
		name     string
		mutate   func(*disruption.Node)
		warning  string
		commands []string
		note     string
		blocked  string
	}{{
		name: "an instance type no NodePool offers: drifted, and the command says it is unpriced",
		mutate: func(n *disruption.Node) {
			n.InstanceType = "x9.huge"
			n.Node.Labels["node.kubernetes.io/instance-type"] = "x9.huge"
		},
		warning:  "node a: its price is unknown: instance type x9.huge is not among the NodePools' instance types; it counts as $0/h and is not consolidated",
		commands: []string{"Drift delete [a] -> [] 0.00"},
		note:     "node a's price is unknown (instance type x9.huge is not among the NodePools' instance types): the savings count it as $0/h",
	}, {
		name:    "a capacity type the type is not offered as: not consolidated",
		mutate:  func(n *disruption.Node) { n.CapacityType = "reserved" },
		warning: "node a: its price is unknown: instance type medium has no available reserved offering; it counts as $0/h and is not consolidated",
		blocked: "its price is unknown (instance type medium has no available reserved offering), so consolidation cannot tell whether a replacement is cheaper",
	}, {
		name:     "a zone the type is not offered in: its cheapest offering of that capacity type",
		mutate:   func(n *disruption.Node) { n.Zone = "test-zone-z" },
		warning:  `node a: medium has no on-demand offering in zone "test-zone-z"; priced at its cheapest on-demand offering, $0.2000/h in test-zone-a`,
		commands: []string{"SingleNodeConsolidation delete [a] -> [] 0.20"},
	}, {
		name:     "a known offering: no warning",
		mutate:   func(n *disruption.Node) {},
		commands: []string{"SingleNodeConsolidation delete [a] -> [] 0.20"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := running("a", "default", medium, "on-demand", pod("web-0", "500m"))
			n.Price = 0 // to be looked up
			tt.mutate(n)
			d := decide(t, disruption.Input{
				NodePools: []*scheduling.NodePool{onDemand("default").Obj()},
				Nodes:     []*disruption.Node{n, running("b", "default", large, "on-demand", pod("api-0", "7"))},
			})
			if tt.warning == "" {
				assert.Empty(t, d.Warnings)
			} else {
				assert.Equal(t, []string{tt.warning}, d.Warnings)
			}
			assert.Equal(t, tt.commands, summary(d))
			if tt.note != "" {
				assert.Contains(t, d.Commands[0].Notes, tt.note)
			}
			if tt.blocked != "" {
				assert.Contains(t, blockedReason(d, "a"), tt.blocked)
			}
		})
	}
}
