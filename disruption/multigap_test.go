package disruption_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

// TestMultiNodeReplacesFullNodesByOneCheaperLargerNode is the gap a replay found: full small
// nodes that no single-node consolidation can improve (each one's pods need a node at least as
// costly as itself) but that one larger node, cheaper per cpu, replaces together.
func TestMultiNodeReplacesFullNodesByOneCheaperLargerNode(t *testing.T) {
	// Prices are not linear in size: 2 cpu cost $0.10/h, 8 cpu $0.30/h. No overhead and no
	// DaemonSets, so four full 2-cpu nodes fit exactly on one 8-cpu node.
	two := testbuild.Type("two", "2", "8Gi", 30).Offer(zoneA, "on-demand", 0.10).Obj()
	eight := testbuild.Type("eight", "8", "32Gi", 110).Offer(zoneA, "on-demand", 0.30).Obj()
	types := []*instancetype.InstanceType{two, eight}
	full := func(nodes int, podsPerNode int, cpu string) []*disruption.Node {
		var out []*disruption.Node
		for i := 0; i < nodes; i++ {
			var pods []*corev1.Pod
			for j := 0; j < podsPerNode; j++ {
				pods = append(pods, pod(fmt.Sprintf("web-%d-%d", i, j), cpu))
			}
			out = append(out, running(fmt.Sprintf("n%d", i), "default", two, "on-demand", pods...))
		}
		return out
	}
	tests := []struct {
		name     string
		nodes    []*disruption.Node
		commands []string
		blocked  map[string]string
	}{{
		name:     "four nodes of two 1-cpu pods",
		nodes:    full(4, 2, "1"),
		commands: []string{"MultiNodeConsolidation replace [n0 n1 n2 n3] -> [on-demand/eight] 0.10"},
	}, {
		name:     "four nodes of one 2-cpu pod",
		nodes:    full(4, 1, "2"),
		commands: []string{"MultiNodeConsolidation replace [n0 n1 n2 n3] -> [on-demand/eight] 0.10"},
	}, {
		name:     "three nodes cost what one 8-cpu node costs: nothing to save",
		nodes:    full(3, 2, "1"),
		commands: nil,
		blocked:  map[string]string{"n0": "no cheaper way", "n1": "no cheaper way", "n2": "no cheaper way"},
	}, {
		name:     "five nodes: four go onto one 8-cpu node, the fifth's pods fit nowhere cheaper",
		nodes:    full(5, 2, "1"),
		commands: []string{"MultiNodeConsolidation replace [n0 n1 n2 n3] -> [on-demand/eight] 0.10"},
		blocked:  map[string]string{"n4": "multi-node consolidation removed other nodes in this decision"},
	}, {
		name:     "six nodes: four go onto one 8-cpu node",
		nodes:    full(6, 2, "1"),
		commands: []string{"MultiNodeConsolidation replace [n0 n1 n2 n3] -> [on-demand/eight] 0.10"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := decide(t, disruption.Input{
				NodePools: []*scheduling.NodePool{pool("default", types...).Obj()},
				Nodes:     tt.nodes,
			})
			require.Equal(t, tt.commands, summary(d))
			for node, phrase := range tt.blocked {
				require.Contains(t, blockedReason(d, node), phrase, "node %s", node)
			}
		})
	}
}
