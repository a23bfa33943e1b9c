package disruption_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/internal/testbuild"
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

// TestReplacementsAtWorstLaunchPrice: a replacement may launch in any zone its NodePool
// allows, so it must be cheaper than the candidate at its dearest offering there
// (Karpenter's worst launch price), not only at the cheapest.
func TestReplacementsAtWorstLaunchPrice(t *testing.T) {
	big := testbuild.Type("big", "8", "32Gi", 110).Offer(zoneA, "on-demand", 0.50).Offer("test-zone-b", "on-demand", 0.50).Obj()
	// flaky is cheap as spot in zone a only.
	flaky := testbuild.Type("flaky", "2", "8Gi", 30).Offer(zoneA, "spot", 0.20).Offer("test-zone-b", "spot", 1.00).Obj()
	tests := []struct {
		name     string
		pool     *testbuild.NodePoolBuilder
		commands []string
		blocked  string
	}{{
		name:    "a type dearer than the node in one allowed zone is no replacement",
		pool:    pool("default", big, flaky),
		blocked: "cost up to $1.0000/h there, not less than the $0.5000/h it costs now",
	}, {
		name:     "where the NodePool allows only the cheap zone, it is",
		pool:     pool("default", big, flaky).Requirement("topology.kubernetes.io/zone", corev1.NodeSelectorOpIn, zoneA),
		commands: []string{"SingleNodeConsolidation replace [a] -> [spot/flaky] 0.30"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := decide(t, disruption.Input{
				NodePools: []*scheduling.NodePool{tt.pool.Obj()},
				Nodes:     []*disruption.Node{running("a", "default", big, "on-demand", pod("web-0", "1"))},
			})
			assert.Equal(t, tt.commands, summary(d))
			if tt.blocked != "" {
				assert.Contains(t, blockedReason(d, "a"), tt.blocked)
			}
		})
	}
}

// TestSpotStaysSpot: when every candidate is spot and the NodePool allows spot, the
// replacement is spot (Karpenter pins it, and then applies the spot-to-spot rule); a cheaper
// on-demand node is no replacement.
func TestSpotStaysSpot(t *testing.T) {
	bigSpot := testbuild.Type("big", "8", "32Gi", 110).Offer(zoneA, "spot", 0.50).Offer(zoneA, "on-demand", 1.00).Obj()
	// odDeal is cheaper on-demand than spot.
	odDeal := testbuild.Type("od-deal", "2", "8Gi", 30).Offer(zoneA, "on-demand", 0.10).Offer(zoneA, "spot", 0.60).Obj()
	tests := []struct {
		name         string
		capacityType string
		commands     []string
		blocked      string
	}{{
		name:         "a spot node is not replaced by on-demand",
		capacityType: "spot",
		blocked:      "spot nodes are replaced only by spot",
	}, {
		name:         "an on-demand node may be",
		capacityType: "on-demand",
		commands:     []string{"SingleNodeConsolidation replace [a] -> [on-demand/od-deal] 0.90"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := decide(t, disruption.Input{
				NodePools: []*scheduling.NodePool{pool("default", bigSpot, odDeal).Obj()},
				Nodes:     []*disruption.Node{running("a", "default", bigSpot, tt.capacityType, pod("web-0", "1"))},
			})
			assert.Equal(t, tt.commands, summary(d))
			if tt.blocked != "" {
				assert.Contains(t, blockedReason(d, "a"), tt.blocked)
			}
		})
	}
}
