package scheduling_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

// withDaemonPods returns the input's pods and the plan with, on every new node, the pod of each
// DaemonSet (all in namespace default, without node selector or affinity, so they run on every
// node of an untainted pool), and on every starting existing node, so that topologyViolations sees them as kube-scheduler would.
func withDaemonPods(t *testing.T, in scheduling.Input, plan scheduling.Plan) ([]*corev1.Pod, scheduling.Plan) {
	t.Helper()
	all := append([]*corev1.Pod(nil), in.Pods...)
	out := plan
	out.NodeClaims = append([]scheduling.NodeClaim(nil), plan.NodeClaims...)
	for i, nc := range out.NodeClaims {
		nc.Pods = append([]string(nil), nc.Pods...)
		for _, ds := range in.DaemonSets {
			require.Equal(t, corev1.NamespaceDefault, ds.Namespace, "the oracle knows one namespace")
			require.Empty(t, ds.Spec.Template.Spec.NodeSelector, "the oracle runs daemons everywhere")
			p := tb.Pod(ds.Name + "-" + nc.Name).Obj()
			p.Labels = ds.Spec.Template.Labels
			all = append(all, p)
			nc.Pods = append(nc.Pods, "default/"+p.Name)
		}
		out.NodeClaims[i] = nc
	}
	// The oracle reads only new nodes: a starting node (running no pod in these tests) stands
	// in as one, with the pods placed on it and the daemon pods it will run.
	for _, en := range in.ExistingNodes {
		require.False(t, en.Initialized, "the oracle knows only starting nodes")
		require.Empty(t, en.Pods, "the oracle knows only empty starting nodes")
		nc := scheduling.NodeClaim{Name: en.Node.Name, Labels: en.Node.Labels}
		for _, e := range plan.ExistingNodes {
			if e.Name == en.Node.Name {
				nc.Pods = append(nc.Pods, e.Pods...)
			}
		}
		for _, ds := range in.DaemonSets {
			p := tb.Pod(ds.Name + "-" + en.Node.Name).Obj()
			p.Labels = ds.Spec.Template.Labels
			all = append(all, p)
			nc.Pods = append(nc.Pods, "default/"+p.Name)
		}
		out.NodeClaims = append(out.NodeClaims, nc)
	}
	return all, out
}

// DaemonSet pods that spread and pod-affinity selectors count are counted on the new nodes
// that will run them.
func TestDaemonSetPodsCountedByTopology(t *testing.T) {
	team := map[string]string{"team": "a"}
	agent := func() *corev1.Pod { return tb.Pod("agent").Label("team", "a").CPU("100m").Obj() }
	tests := []struct {
		name     string
		pods     []*corev1.Pod
		daemons  []*corev1.Pod
		existing []*scheduling.ExistingNode
		check    func(t *testing.T, plan scheduling.Plan)
	}{{
		// Three nodes for big pods pinned to us-west-2a run three agents there: the spread pods
		// must all go to us-west-2b, where their own node's agent counts too.
		name: "agents on nodes of other pods push a zone spread away",
		pods: pods(
			tb.Pod("big").CPU("7").NodeSelector(zoneKey, "us-west-2a").Replicas(3),
			tb.Pod("web").Label("team", "a").CPU("100m").SpreadSelecting(zoneKey, 1, corev1.DoNotSchedule, team).Replicas(2),
		),
		daemons: []*corev1.Pod{agent()},
		check: func(t *testing.T, plan scheduling.Plan) {
			for _, nc := range plan.NodeClaims {
				for _, p := range nc.Pods {
					if short(p) == "web-0" || short(p) == "web-1" {
						require.Equal(t, "us-west-2b", nc.Zone, "%s", p)
					}
				}
			}
		},
	}, {
		// The same DaemonSet in another namespace is not counted: the spread balances its pods.
		name: "agents of another namespace do not count",
		pods: pods(
			tb.Pod("big").CPU("7").NodeSelector(zoneKey, "us-west-2a").Replicas(3),
			tb.Pod("web").Label("team", "a").CPU("100m").SpreadSelecting(zoneKey, 1, corev1.DoNotSchedule, team).Replicas(2),
		),
		daemons: []*corev1.Pod{tb.Pod("agent").Namespace("kube-system").Label("team", "a").CPU("100m").Obj()},
		check: func(t *testing.T, plan scheduling.Plan) {
			zones := map[string]int{}
			for _, nc := range plan.NodeClaims {
				for _, p := range nc.Pods {
					if short(p) == "web-0" || short(p) == "web-1" {
						zones[nc.Zone]++
					}
				}
			}
			require.Equal(t, map[string]int{"us-west-2a": 1, "us-west-2b": 1}, zones)
		},
	}, {
		// Every new node runs an agent the pod's anti-affinity selects: no node can take it.
		name:    "required hostname anti-affinity against the agent",
		pods:    pods(tb.Pod("loner").CPU("100m").AntiAffinity(hostKey, team)),
		daemons: []*corev1.Pod{agent()},
		check: func(t *testing.T, plan scheduling.Plan) {
			u, found := unschedulable(plan, "loner")
			require.True(t, found, "%v", render(plan))
			require.Equal(t, scheduling.ConstraintPodAntiAffinity, u.Constraint)
		},
	}, {
		// The agent on its node meets the pod's required affinity, though no pending pod does.
		name:    "required hostname affinity to the agent",
		pods:    pods(tb.Pod("sidecar").CPU("100m").Affinity(hostKey, team)),
		daemons: []*corev1.Pod{agent()},
		check: func(t *testing.T, plan scheduling.Plan) {
			require.Empty(t, plan.Unschedulable)
			require.Len(t, plan.NodeClaims, 1)
		},
	}, {
		// A node still starting will run the agent, not bound yet: it counts in us-west-2a, so
		// the spread pod goes to a new node in us-west-2b rather than beside it.
		name:     "the agent a starting node will run counts",
		pods:     pods(tb.Pod("web").Label("team", "a").CPU("100m").SpreadSelecting(zoneKey, 1, corev1.DoNotSchedule, team)),
		existing: nodes(tb.Node("starting", "4", "8Gi", 20).Zone("us-west-2a").NodePool("default").Uninitialized().Obj()),
		daemons:  []*corev1.Pod{agent()},
		check: func(t *testing.T, plan scheduling.Plan) {
			require.Empty(t, plan.ExistingNodes)
			require.Len(t, plan.NodeClaims, 1)
			require.Equal(t, "us-west-2b", plan.NodeClaims[0].Zone)
		},
	}, {
		// A hostname spread counting the agent: each node holds the agent and at most one pod.
		name:    "hostname spread counts the agent on each node",
		pods:    pods(tb.Pod("web").Label("team", "a").CPU("100m").SpreadSelecting(hostKey, 1, corev1.DoNotSchedule, team).Replicas(3)),
		daemons: []*corev1.Pod{agent()},
		check: func(t *testing.T, plan scheduling.Plan) {
			require.Empty(t, plan.Unschedulable)
			for _, nc := range plan.NodeClaims {
				require.Len(t, nc.Pods, 1, "%v", render(plan))
			}
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := scheduling.Input{Pods: tt.pods, NodePools: pools(defaultPool()), ExistingNodes: tt.existing, DaemonSets: daemons(tt.daemons...)}
			plan, err := scheduling.Solve(in)
			require.NoError(t, err)
			// violations() is not used: its cheapest-offering rule ignores the zones topology
			// narrows a node to, as for the other topology tests.
			if tt.daemons[0].Namespace == corev1.NamespaceDefault {
				all, withDaemons := withDaemonPods(t, in, plan)
				require.Empty(t, topologyViolations(all, withDaemons), "plan:\n%v", render(plan))
			}
			tt.check(t, plan)
		})
	}
}
