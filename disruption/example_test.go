package disruption_test

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

// A web Deployment scaled down left one node with little to do: its last pod fits on the
// other node, so single-node consolidation deletes it. The default budget (10% of the
// NodePool's nodes, rounded up) lets one node go per decision.
func Example() {
	m5large := testbuild.Type("m5.large", "2", "8Gi", 29).Offer("us-west-2a", "on-demand", 0.096).Obj()
	m5xlarge := testbuild.Type("m5.xlarge", "4", "16Gi", 58).Offer("us-west-2a", "on-demand", 0.192).Obj()
	now := time.Date(2025, 6, 2, 12, 0, 0, 0, time.UTC)
	node := func(name string, pods ...*corev1.Pod) *disruption.Node {
		for _, p := range pods {
			p.Spec.NodeName = name
		}
		return &disruption.Node{
			Node:         testbuild.KarpenterNode(name, "default", m5xlarge, "us-west-2a", "on-demand"),
			Pods:         pods,
			Price:        0.192,
			Created:      now.Add(-48 * time.Hour),
			LastPodEvent: now.Add(-time.Hour),
			Initialized:  true,
		}
	}
	decisions, err := disruption.Decide(disruption.Input{
		NodePools: []*scheduling.NodePool{
			testbuild.NodePool("default", m5large, m5xlarge).ConsolidateAfter(30 * time.Second).Obj(),
		},
		Nodes: []*disruption.Node{
			node("ip-10-0-1-7", testbuild.Pod("api-0").CPU("2").Obj(), testbuild.Pod("api-1").CPU("1").Obj()),
			node("ip-10-0-1-9", testbuild.Pod("web-0").CPU("1").Obj()),
		},
		Now: now,
	})
	if err != nil {
		panic(err)
	}
	for _, c := range decisions.Commands {
		fmt.Printf("%s: %s %s, saving $%.3f/h\n", c.Method, c.Action, c.Candidates[0].Node, c.Savings)
		for _, m := range c.Moves {
			fmt.Printf("  %s -> %s\n", m.Pod, m.To)
		}
	}
	for _, b := range decisions.Blocked {
		fmt.Printf("%s stays: %s\n", b.Node, b.Reason)
	}
	fmt.Printf("$%.3f/h -> $%.3f/h\n", decisions.Summary.HourlyCostBefore, decisions.Summary.HourlyCostAfter)
	// Output:
	// SingleNodeConsolidation: delete ip-10-0-1-9, saving $0.192/h
	//   default/web-0 -> ip-10-0-1-7
	// ip-10-0-1-7 stays: NodePool default's disruption budget allows no more Underutilized disruptions now (budget nodes: "10%" allows 1 of its 2 nodes; 1 already disrupting, NotReady or taken by earlier commands)
	// $0.384/h -> $0.192/h
}

// Fifteen seconds after a consolidation command was decided, Karpenter validates it against
// the cluster as it is then. Here a pod landed meanwhile on the node the candidate's pod was
// to move to: the candidate could now only be replaced by a node no cheaper, and the command
// is abandoned.
func ExampleValidate() {
	m5xlarge := testbuild.Type("m5.xlarge", "4", "16Gi", 58).Offer("us-west-2a", "on-demand", 0.192).Obj()
	now := time.Date(2025, 6, 2, 12, 0, 0, 0, time.UTC)
	node := func(name string, pods ...*corev1.Pod) *disruption.Node {
		for _, p := range pods {
			p.Spec.NodeName = name
		}
		return &disruption.Node{
			Node:        testbuild.KarpenterNode(name, "default", m5xlarge, "us-west-2a", "on-demand"),
			Pods:        pods,
			Price:       0.192,
			Created:     now.Add(-48 * time.Hour),
			Initialized: true,
		}
	}
	in := disruption.Input{
		NodePools: []*scheduling.NodePool{testbuild.NodePool("default", m5xlarge).ConsolidateAfter(0).Budget("100%").Obj()},
		Nodes: []*disruption.Node{
			node("ip-10-0-1-7", testbuild.Pod("api-0").CPU("1").Obj(), testbuild.Pod("api-1").CPU("1").Obj()),
			node("ip-10-0-1-9", testbuild.Pod("web-0").CPU("1").Obj()),
		},
		Now: now,
	}
	decisions, err := disruption.Decide(in)
	if err != nil {
		panic(err)
	}
	cmd := decisions.Commands[0]
	fmt.Println(cmd.Method, cmd.Action, cmd.Candidates[0].Node)

	in.Now = now.Add(disruption.CommandValidationDelay)
	in.Nodes[0] = node("ip-10-0-1-7", testbuild.Pod("api-0").CPU("1").Obj(), testbuild.Pod("api-1").CPU("1").Obj(), testbuild.Pod("api-2").CPU("1500m").Obj())
	if _, why, err := disruption.Validate(in, cmd); err == nil && why != "" {
		fmt.Println("abandoned:", why)
	}
	// Output:
	// SingleNodeConsolidation delete ip-10-0-1-9
	// abandoned: replacing it needs on-demand m5.xlarge ($0.1920/h) costing $0.1920/h, not less than the $0.1920/h it costs now
}
