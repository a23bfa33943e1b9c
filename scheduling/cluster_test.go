package scheduling_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

// twoNodeCluster has two existing c4-sized nodes of the default NodePool, each running one
// web replica, and one pending replica.
func twoNodeCluster() scheduling.Input {
	web := func(name string) *corev1.Pod { return tb.Pod(name).Label("app", "web").CPU("1").Obj() }
	return scheduling.Input{
		Pods:      []*corev1.Pod{web("web-2")},
		NodePools: pools(tb.NodePool("default", c4()).Obj()),
		ExistingNodes: nodes(
			tb.Node("n1", "4", "8Gi", 20).NodePool("default").Zone("us-west-2a").Pods(web("web-0")).Obj(),
			tb.Node("n2", "4", "8Gi", 20).NodePool("default").Zone("us-west-2a").Pods(web("web-1")).Obj(),
		),
	}
}

func TestSimulate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change scheduling.Change
		want   []string
	}{{
		name: "no change is Solve",
		want: []string{"existing n1: web-2"},
	}, {
		name:   "a removed node's pods are placed again",
		change: scheduling.Change{RemoveNodes: []string{"n1"}},
		want:   []string{"existing n2: web-0 web-2"},
	}, {
		name:   "a cordoned node takes no pod",
		change: scheduling.Change{Cordon: []string{"n1"}},
		want:   []string{"existing n2: web-2"},
	}, {
		name:   "evicted and added pods are placed with the pending ones, largest first",
		change: scheduling.Change{Evict: []string{"default/web-1"}, AddPods: []*corev1.Pod{tb.Pod("big").CPU("3500m").Obj()}, Cordon: []string{"n1"}},
		want:   []string{"default-1 c4 us-west-2a spot: web-1 web-2", "existing n2: big"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			in := twoNodeCluster()
			c, err := scheduling.Prepare(in)
			require.NoError(t, err)
			before, err := c.Simulate(scheduling.Change{}, scheduling.Options{})
			require.NoError(t, err)
			plan, err := c.Simulate(tc.change, scheduling.Options{})
			require.NoError(t, err)
			require.Equal(t, tc.want, render(plan))
			for _, pl := range plan.Placements {
				require.NotEmpty(t, pl.Node, "every pod of these changes is placed")
				require.Equal(t, "default/"+pl.Pod.Name, pl.Key)
				if pl.NodeClaim >= 0 {
					require.Contains(t, plan.NodeClaims[pl.NodeClaim].Pods, "default/"+pl.Pod.Name)
				}
			}
			again, err := c.Simulate(tc.change, scheduling.Options{})
			require.NoError(t, err)
			require.Equal(t, plan, again, "the same change gives the same plan")
			after, err := c.Simulate(scheduling.Change{}, scheduling.Options{})
			require.NoError(t, err)
			require.Equal(t, before, after, "Simulate leaves the cluster as it was")
			require.Equal(t, twoNodeCluster(), in, "the input is not modified")
		})
	}
}

func TestSimulateUnknownNames(t *testing.T) {
	c, err := scheduling.Prepare(twoNodeCluster())
	require.NoError(t, err)
	_, err = c.Simulate(scheduling.Change{RemoveNodes: []string{"n9"}}, scheduling.Options{})
	require.EqualError(t, err, `change: node "n9" is not in the cluster`)
	_, err = c.Simulate(scheduling.Change{Evict: []string{"default/ghost"}}, scheduling.Options{})
	require.EqualError(t, err, "change: pod default/ghost does not run on any node of the cluster")
	// A pod is found by namespace and name together.
	_, err = c.Simulate(scheduling.Change{Evict: []string{"other/web-0"}}, scheduling.Options{})
	require.EqualError(t, err, "change: pod other/web-0 does not run on any node of the cluster")
	_, err = c.Simulate(scheduling.Change{RemovePods: []string{"defaul/web-0"}}, scheduling.Options{})
	require.Error(t, err)
	require.NoError(t, c.Apply(scheduling.Change{Evict: []string{"default/web-0"}, RemovePods: []string{"default/web-1"}}, scheduling.Plan{}))
	require.Equal(t, []string{"web-2", "web-0"}, podNames(c.Input().Pods), "web-0 pending, web-1 gone")
	for _, en := range c.Input().ExistingNodes {
		require.Empty(t, en.Pods, "node %s", en.Node.Name)
	}
}

func podNames(pods []*corev1.Pod) []string {
	var out []string
	for _, p := range pods {
		out = append(out, p.Name)
	}
	return out
}

func TestSimulateAddedPodWithANewResource(t *testing.T) {
	c, err := scheduling.Prepare(twoNodeCluster())
	require.NoError(t, err)
	plan, err := c.Simulate(scheduling.Change{AddPods: []*corev1.Pod{tb.Pod("train").CPU("1").GPU("1").Obj()}}, scheduling.Options{})
	require.NoError(t, err)
	u, found := unschedulable(plan, "train")
	require.True(t, found, "no node or type has a GPU: %v", render(plan))
	require.Equal(t, scheduling.ConstraintResources, u.Constraint)
}

func TestApply(t *testing.T) {
	c, err := scheduling.Prepare(twoNodeCluster())
	require.NoError(t, err)
	change := scheduling.Change{RemoveNodes: []string{"n1", "n2"}}
	plan, err := c.Simulate(change, scheduling.Options{})
	require.NoError(t, err)
	require.Equal(t, []string{"default-1 c4 us-west-2a spot: web-0 web-1 web-2"}, render(plan))
	require.NoError(t, c.Apply(change, plan))

	// The planned node now runs the three replicas: nothing is pending, and a new pod that
	// still fits joins it.
	next, err := c.Simulate(scheduling.Change{AddPods: []*corev1.Pod{tb.Pod("small").CPU("100m").Obj()}}, scheduling.Options{})
	require.NoError(t, err)
	require.Equal(t, []string{"existing default-1: small"}, render(next))
	_, err = c.Simulate(scheduling.Change{RemoveNodes: []string{"n1"}}, scheduling.Options{})
	require.EqualError(t, err, `change: node "n1" is not in the cluster`)
}

// A change may narrow the NodePools for one simulation, as consolidation does to keep a spot
// node's replacement spot; the cluster keeps its NodePools.
func TestSimulateNarrowedNodePools(t *testing.T) {
	both := tb.Type("m", "4", "16Gi", 20).Offer("us-west-2a", "spot", 0.05).Offer("us-west-2a", "on-demand", 0.04).Offer("us-west-2b", "on-demand", 0.06).Obj()
	c, err := scheduling.Prepare(scheduling.Input{Pods: pods(tb.Pod("web").CPU("1")), NodePools: pools(tb.NodePool("default", both).Obj())})
	require.NoError(t, err)
	spotOnly := scheduling.Change{Requirements: []corev1.NodeSelectorRequirement{{Key: "karpenter.sh/capacity-type", Operator: corev1.NodeSelectorOpIn, Values: []string{"spot"}}}}
	for i := 0; i < 2; i++ {
		plan, err := c.Simulate(spotOnly, scheduling.Options{})
		require.NoError(t, err)
		require.Equal(t, []string{"default-1 m us-west-2a spot: web"}, render(plan))
		require.True(t, plan.NodeClaims[0].Requirements.Matches(map[string]string{
			"karpenter.sh/capacity-type": "spot", "topology.kubernetes.io/zone": "us-west-2a", "node.kubernetes.io/instance-type": "m", "karpenter.sh/nodepool": "default"}))
		require.False(t, plan.NodeClaims[0].Requirements.Matches(map[string]string{
			"karpenter.sh/capacity-type": "on-demand", "topology.kubernetes.io/zone": "us-west-2a", "node.kubernetes.io/instance-type": "m", "karpenter.sh/nodepool": "default"}))
	}
	plan, err := c.Simulate(scheduling.Change{}, scheduling.Options{})
	require.NoError(t, err)
	require.Equal(t, []string{"default-1 m us-west-2a on-demand: web"}, render(plan))
	// Unnarrowed, the node may launch in any zone and capacity type its options offer: a
	// worst-case price must count the $0.06 on-demand offering in us-west-2b.
	require.True(t, plan.NodeClaims[0].Requirements.Matches(map[string]string{
		"karpenter.sh/capacity-type": "on-demand", "topology.kubernetes.io/zone": "us-west-2b", "node.kubernetes.io/instance-type": "m", "karpenter.sh/nodepool": "default"}))

	_, err = c.Simulate(scheduling.Change{Requirements: []corev1.NodeSelectorRequirement{{Key: "karpenter.sh/capacity-type", Operator: "Within"}}}, scheduling.Options{})
	require.ErrorContains(t, err, "change: requirements[0]")
}

// A removed node's mirror pods end with it: they are not placed again.
func TestSimulateLeavesMirrorPods(t *testing.T) {
	in := twoNodeCluster()
	mirror := tb.Pod("kube-proxy-n1").Annotation(corev1.MirrorPodAnnotationKey, "abc").CPU("100m").Obj()
	in.ExistingNodes[0].Pods = append(in.ExistingNodes[0].Pods, mirror)
	c, err := scheduling.Prepare(in)
	require.NoError(t, err)
	plan, err := c.Simulate(scheduling.Change{RemoveNodes: []string{"n1"}}, scheduling.Options{})
	require.NoError(t, err)
	require.Equal(t, []string{"existing n2: web-0 web-2"}, render(plan))
}

// A node a plan launched joins the cluster with its DaemonSet pods.
func TestApplyAddsDaemonSetPods(t *testing.T) {
	in := twoNodeCluster()
	in.DaemonSets = daemons(tb.Pod("agent").Label("app", "agent").CPU("500m").Obj())
	c, err := scheduling.Prepare(in)
	require.NoError(t, err)
	change := scheduling.Change{RemoveNodes: []string{"n1", "n2"}}
	plan, err := c.Simulate(change, scheduling.Options{})
	require.NoError(t, err)
	require.NoError(t, c.Apply(change, plan))
	// The agent's pod runs on the new node: a pod that must not share a node with it goes
	// elsewhere, while one without that rule joins.
	shy := tb.Pod("shy").CPU("100m").AntiAffinity(hostKey, map[string]string{"app": "agent"}).Obj()
	next, err := c.Simulate(scheduling.Change{AddPods: []*corev1.Pod{shy, tb.Pod("plain").CPU("100m").Obj()}}, scheduling.Options{})
	require.NoError(t, err)
	require.Contains(t, render(next), "existing default-1: plain")
	require.NotContains(t, render(next), "existing default-1: plain shy")
}

// Pods that leave for good free their room and are placed nowhere; nodes that finish
// starting become initialized; Input shows the cluster after each Apply.
func TestApplyRemovedPodsAndInitializedNodes(t *testing.T) {
	in := twoNodeCluster()
	in.ExistingNodes[1].Initialized = false
	c, err := scheduling.Prepare(in)
	require.NoError(t, err)

	change := scheduling.Change{RemovePods: []string{"default/web-2", "default/web-0"}, Initialize: []string{"n2"}}
	plan, err := c.Simulate(change, scheduling.Options{})
	require.NoError(t, err)
	require.Empty(t, render(plan), "the removed pending pod is not placed")
	require.NoError(t, c.Apply(change, plan))

	after := c.Input()
	require.Empty(t, after.Pods)
	require.Len(t, after.ExistingNodes, 2)
	require.Empty(t, after.ExistingNodes[0].Pods, "web-0 left n1")
	require.Len(t, after.ExistingNodes[1].Pods, 1)
	require.True(t, after.ExistingNodes[1].Initialized)

	// The room web-0 left on n1 takes a 4-cpu pod that fits nowhere else.
	next, err := c.Simulate(scheduling.Change{AddPods: []*corev1.Pod{tb.Pod("big").CPU("3500m").Obj()}}, scheduling.Options{})
	require.NoError(t, err)
	require.Equal(t, []string{"existing n1: big"}, render(next))

	// Removing a node's pod together with the node does not place that pod again.
	gone := scheduling.Change{RemoveNodes: []string{"n2"}, RemovePods: []string{"default/web-1"}}
	plan, err = c.Simulate(gone, scheduling.Options{})
	require.NoError(t, err)
	require.Empty(t, plan.Placements)

	_, err = c.Simulate(scheduling.Change{RemovePods: []string{"default/ghost"}}, scheduling.Options{})
	require.EqualError(t, err, "change: pod default/ghost is neither pending nor running on a node of the cluster")
	_, err = c.Simulate(scheduling.Change{Initialize: []string{"n9"}}, scheduling.Options{})
	require.EqualError(t, err, `change: node "n9" is not in the cluster`)
}

// SkipLowerBound gives the same plan without the bound.
func TestSkipLowerBound(t *testing.T) {
	full, quick := simulateTwoNodesGone(t, scheduling.Options{SkipLowerBound: true})
	require.NotZero(t, full.Summary.LowerBound)
	require.Zero(t, quick.Summary.LowerBound)
	quick.Summary.LowerBound = full.Summary.LowerBound
	require.Equal(t, full, quick)
}

// SkipCostByWorkload gives the same plan without the cost by workload.
func TestSkipCostByWorkload(t *testing.T) {
	full, quick := simulateTwoNodesGone(t, scheduling.Options{SkipCostByWorkload: true})
	require.NotEmpty(t, full.Summary.CostByWorkload)
	require.Empty(t, quick.Summary.CostByWorkload)
	quick.Summary.CostByWorkload = full.Summary.CostByWorkload
	require.Equal(t, full, quick)
}

// simulateTwoNodesGone simulates removing both nodes of twoNodeCluster with the default
// options and with skip.
func simulateTwoNodesGone(t *testing.T, skip scheduling.Options) (full, quick scheduling.Plan) {
	t.Helper()
	c, err := scheduling.Prepare(twoNodeCluster())
	require.NoError(t, err)
	change := scheduling.Change{RemoveNodes: []string{"n1", "n2"}}
	full, err = c.Simulate(change, scheduling.Options{})
	require.NoError(t, err)
	quick, err = c.Simulate(change, skip)
	require.NoError(t, err)
	return full, quick
}

// A node a simulated change removes still runs until its replacement is up: the new node
// does not take its name.
func TestSimulateKeepsRemovedNodesNames(t *testing.T) {
	in := twoNodeCluster()
	in.ExistingNodes[0].Node.Name = "default-1"
	c, err := scheduling.Prepare(in)
	require.NoError(t, err)
	plan, err := c.Simulate(scheduling.Change{RemoveNodes: []string{"default-1", "n2"}}, scheduling.Options{})
	require.NoError(t, err)
	require.Equal(t, []string{"default-2 c4 us-west-2a spot: web-0 web-1 web-2"}, render(plan))
}

// Nor does a later new node take the name of a node an earlier Apply removed, on the cluster
// or on a clone of it taken later.
func TestApplyKeepsRemovedNodesNames(t *testing.T) {
	in := twoNodeCluster()
	in.ExistingNodes[0].Node.Name = "default-1"
	c, err := scheduling.Prepare(in)
	require.NoError(t, err)
	require.NoError(t, c.Apply(scheduling.Change{RemoveNodes: []string{"default-1"}}, scheduling.Plan{}))
	for name, cluster := range map[string]*scheduling.Cluster{"cluster": c, "clone": c.Clone()} {
		plan, err := cluster.Simulate(scheduling.Change{RemoveNodes: []string{"n2"}}, scheduling.Options{})
		require.NoError(t, err)
		require.Equal(t, []string{"default-2 c4 us-west-2a spot: web-0 web-1 web-2"}, render(plan), name)
	}
}

// Nodes leaving the cluster outside the input (being deleted) keep their names: new nodes
// take the next free ones, and Apply refuses a plan that reuses them.
func TestReservedNodeNames(t *testing.T) {
	in := twoNodeCluster()
	in.ReservedNodeNames = []string{"default-1", "default-3"}
	c, err := scheduling.Prepare(in)
	require.NoError(t, err)
	change := scheduling.Change{RemoveNodes: []string{"n1", "n2"}, AddPods: []*corev1.Pod{tb.Pod("big").CPU("3500m").Obj()}}
	plan, err := c.Simulate(change, scheduling.Options{})
	require.NoError(t, err)
	require.Equal(t, []string{"default-2 c4 us-west-2a spot: big", "default-4 c4 us-west-2a spot: web-0 web-1 web-2"}, render(plan))

	in.ExistingNodes = nil
	solved, err := scheduling.Solve(in)
	require.NoError(t, err)
	require.Equal(t, []string{"default-2 c4 us-west-2a spot: web-2"}, render(solved), "Solve reserves them too")

	plan.NodeClaims[0].Name = "default-3"
	require.EqualError(t, c.Apply(change, plan), `apply: new node "default-3" has the name of a node that is leaving the cluster`)
}

// Apply refuses a plan that names nodes the changed cluster does not have, or a new node by an
// existing node's name, and changes nothing then.
func TestApplyRefusesPlansNamingNodesWrongly(t *testing.T) {
	in := twoNodeCluster()
	change := scheduling.Change{RemoveNodes: []string{"n1"}, AddPods: []*corev1.Pod{tb.Pod("big").CPU("3500m").Obj()}}
	for _, tc := range []struct {
		name, want string
		edit       func(*scheduling.Plan)
	}{{
		name: "pods placed on a removed node",
		edit: func(p *scheduling.Plan) {
			p.ExistingNodes = append(p.ExistingNodes, scheduling.ExistingPlacement{Name: "n1", Pods: []string{"default/big"}})
		},
		want: `apply: plan places pods on node "n1", which the changed cluster does not have`,
	}, {
		name: "a new node named as a node that stays",
		edit: func(p *scheduling.Plan) { p.NodeClaims[0].Name = "n2" },
		want: `apply: new node "n2" has the name of an existing node`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := scheduling.Prepare(in)
			require.NoError(t, err)
			plan, err := c.Simulate(change, scheduling.Options{})
			require.NoError(t, err)
			require.NotEmpty(t, plan.NodeClaims)
			tc.edit(&plan)
			require.EqualError(t, c.Apply(change, plan), tc.want)
			require.Len(t, c.Input().ExistingNodes, 2, "the cluster is as it was")
		})
	}
}

// TestClusterNode finds the cluster's nodes by name as the cluster stands: after Prepare,
// after an Apply that removes one, and, when the input names two nodes alike (which solves
// refuse), the first of them.
func TestClusterNode(t *testing.T) {
	a := tb.Node("a", "4", "8Gi", 20).NodePool("default").Zone("us-west-2a").Obj()
	b := tb.Node("b", "4", "8Gi", 20).NodePool("default").Zone("us-west-2a").Obj()
	c, err := scheduling.Prepare(scheduling.Input{NodePools: pools(defaultPool()), ExistingNodes: nodes(a, b)})
	require.NoError(t, err)
	require.Same(t, a, c.Node("a"))
	require.Same(t, b, c.Node("b"))
	require.Nil(t, c.Node("c"))

	require.NoError(t, c.Apply(scheduling.Change{RemoveNodes: []string{"a"}}, scheduling.Plan{}))
	require.Nil(t, c.Node("a"), "removed")
	require.Same(t, c.Input().ExistingNodes[0], c.Node("b"))

	twice := tb.Node("a", "8", "8Gi", 20).NodePool("default").Zone("us-west-2a").Obj()
	c, err = scheduling.Prepare(scheduling.Input{NodePools: pools(defaultPool()), ExistingNodes: nodes(a, twice)})
	require.NoError(t, err)
	require.Same(t, a, c.Node("a"))
}

// TestSimulateDisplacedPodAsksForANewResource removes a node whose pod asks for a resource no
// node, NodePool or pending pod knows: the what-if prepares the cluster anew for it, every
// time (the second what-if finds the node's pods looked at already), and plans what Solve
// plans for the cluster without that node.
func TestSimulateDisplacedPodAsksForANewResource(t *testing.T) {
	in := twoNodeCluster()
	in.ExistingNodes[0].Pods = append(in.ExistingNodes[0].Pods, tb.Pod("fpga-0").CPU("1").Request("example.com/fpga", "1").Obj())
	c, err := scheduling.Prepare(in)
	require.NoError(t, err)
	without := twoNodeCluster()
	without.ExistingNodes = without.ExistingNodes[1:]
	without.Pods = append(without.Pods, in.ExistingNodes[0].Pods...)
	without.ReservedNodeNames = []string{"n1"}
	want, err := scheduling.Solve(without)
	require.NoError(t, err)
	for range 2 {
		plan, err := c.Simulate(scheduling.Change{RemoveNodes: []string{"n1"}}, scheduling.Options{})
		require.NoError(t, err)
		require.Equal(t, render(want), render(plan))
		require.Len(t, plan.Unschedulable, 1)
		require.Equal(t, "default/fpga-0", plan.Unschedulable[0].Pod)
		require.Contains(t, plan.Unschedulable[0].Reason, "example.com/fpga")
		last := plan.Placements[len(plan.Placements)-1]
		require.Equal(t, scheduling.Placement{Pod: in.ExistingNodes[0].Pods[1], Key: "default/fpga-0", NodeClaim: -1}, last, "placed nowhere")
	}
}

// TestApplyPodsWithANewResource applies changes that bring a resource the prepared cluster
// never saw: a pod added (which stays pending), then a plan of the caller's that puts that
// pod on an existing node. Each time the next state is prepared anew with the resource, so
// later what-ifs plan what Solve plans for the same input.
func TestApplyPodsWithANewResource(t *testing.T) {
	c, err := scheduling.Prepare(twoNodeCluster())
	require.NoError(t, err)
	fpga := tb.Pod("fpga-0").CPU("100m").Request("example.com/fpga", "1").Obj()
	add := scheduling.Change{AddPods: []*corev1.Pod{fpga}}
	plan, err := c.Simulate(add, scheduling.Options{})
	require.NoError(t, err)
	require.NoError(t, c.Apply(add, plan))
	sameAsSolve := func(what string) {
		t.Helper()
		want, err := scheduling.Solve(c.Input())
		require.NoError(t, err)
		got, err := c.Simulate(scheduling.Change{}, scheduling.Options{})
		require.NoError(t, err)
		require.Equal(t, render(want), render(got), what)
		require.Len(t, got.Unschedulable, 1, what)
		require.Contains(t, got.Unschedulable[0].Reason, "example.com/fpga", what)
	}
	sameAsSolve("pending")

	// A node that takes it, as a plan from elsewhere may say (n1 has no FPGA, but the pod runs
	// there now): the state counts its request, and pods that ask for one find none left.
	require.NoError(t, c.Apply(scheduling.Change{}, scheduling.Plan{ExistingNodes: []scheduling.ExistingPlacement{{Name: "n1", Pods: []string{"default/fpga-0"}}}}))
	more := tb.Pod("fpga-1").CPU("100m").Request("example.com/fpga", "1").Obj()
	plan, err = c.Simulate(scheduling.Change{AddPods: []*corev1.Pod{more}}, scheduling.Options{})
	require.NoError(t, err)
	require.Len(t, plan.Unschedulable, 1)
	require.Equal(t, "default/fpga-1", plan.Unschedulable[0].Pod)
	require.Contains(t, plan.Unschedulable[0].Reason, "example.com/fpga")
}
