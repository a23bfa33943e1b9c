package disruption_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/scheduling"
)

// requireFreshNames asserts that no replacement of d takes the name of a node of the input
// (staying, deleted by a command, or already being disrupted) or of another replacement: the
// name is the node's kubernetes.io/hostname, and moves refer to nodes by it.
func requireFreshNames(t *testing.T, in disruption.Input, d disruption.Decisions) {
	t.Helper()
	taken := map[string]string{}
	for _, n := range in.Nodes {
		taken[n.Node.Name] = "an existing node"
	}
	for i, c := range d.Commands {
		for _, r := range c.Replacements {
			require.Empty(t, taken[r.Name], "command %d (%s) names a replacement %s, the name of %s", i, c.Method, r.Name, taken[r.Name])
			taken[r.Name] = "a replacement of an earlier command"
		}
	}
}

func TestReplacementsNeverTakeANodesName(t *testing.T) {
	onDemand := func(name string) *scheduling.NodePool {
		return pool(name).Requirement("karpenter.sh/capacity-type", corev1.NodeSelectorOpIn, "on-demand").Obj()
	}
	tests := []struct {
		name     string
		in       func() disruption.Input
		commands []string
	}{{
		name: "consolidation replaces one of nodes named like the planner's",
		in: func() disruption.Input {
			return disruption.Input{
				NodePools: []*scheduling.NodePool{onDemand("default")},
				Nodes: []*disruption.Node{
					running("default-1", "default", large, "on-demand", pod("web-0", "1"), pod("web-1", "500m")),
					running("default-2", "default", large, "on-demand", pod("api-0", "7")),
				},
			}
		},
		commands: []string{"SingleNodeConsolidation replace [default-1] -> [on-demand/small] 0.30"},
	}, {
		name: "drift replaces every node, one command each",
		in: func() disruption.Input {
			return disruption.Input{
				NodePools: []*scheduling.NodePool{pool("default", small, large).Requirement("karpenter.sh/capacity-type", corev1.NodeSelectorOpIn, "on-demand").Obj()},
				Nodes: []*disruption.Node{
					running("default-1", "default", medium, "on-demand", pod("web-0", "1")),
					running("default-2", "default", medium, "on-demand", pod("web-1", "1")),
					running("default-3", "default", medium, "on-demand", pod("web-2", "1")),
					running("default-4", "default", medium, "on-demand", pod("web-3", "1")),
				},
			}
		},
		commands: []string{
			"Drift replace [default-1] -> [on-demand/small] 0.10",
			"Drift replace [default-2] -> [on-demand/small] 0.10",
			"Drift replace [default-3] -> [on-demand/small] 0.10",
			"Drift replace [default-4] -> [on-demand/small] 0.10",
		},
	}, {
		name: "a node already being disrupted still runs: its name is not free",
		in: func() disruption.Input {
			leaving := running("default-1", "default", large, "on-demand")
			leaving.Disrupting = true
			return disruption.Input{
				NodePools: []*scheduling.NodePool{onDemand("default")},
				Nodes: []*disruption.Node{
					leaving,
					running("default-2", "default", large, "on-demand", pod("web-0", "1"), pod("web-1", "500m")),
				},
			}
		},
		commands: []string{"SingleNodeConsolidation replace [default-2] -> [on-demand/small] 0.30"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in()
			d := decide(t, in)
			if tc.commands != nil {
				require.Equal(t, tc.commands, summary(d))
			}
			requireFreshNames(t, in, d)
		})
	}
}
