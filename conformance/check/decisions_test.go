package check_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/nodeplan/nodeplan/conformance/check"
	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/scheduling"
)

// runningNode builds a running 4-cpu node of NodePool default with its pods.
func runningNode(name, zone string, pods ...*corev1.Pod) *disruption.Node {
	n := existingNode(name, zone, pods...)
	n.Node.Labels["karpenter.sh/nodepool"] = "default"
	return &disruption.Node{Node: n.Node, Pods: n.Pods, NodePool: "default", InstanceType: "t4", Zone: zone,
		CapacityType: "on-demand", Price: 1, Initialized: true}
}

// zonalAffinity makes the pod require a pod with app=<app> in its zone.
func zonalAffinity(app string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}},
				TopologyKey:   corev1.LabelTopologyZone,
			}},
		}}
	}
}

func deleteCommand(method string, nodes []string, evictions []string, moves ...disruption.Move) disruption.Command {
	c := disruption.Command{Method: method, Reason: "Underutilized", Action: disruption.ActionDelete, Evictions: evictions, Moves: moves}
	if method == disruption.MethodExpiration {
		c.Reason = "Expired"
	}
	for _, n := range nodes {
		c.Candidates = append(c.Candidates, disruption.Candidate{Node: n, NodePool: "default"})
	}
	return c
}

func move(pod, to string) disruption.Move { return disruption.Move{Pod: pod, To: to} }

// The Decisions checker must be able to fail: each hand-built decision breaks one rule (a pod
// lost, moved twice, left on a deleted node, a PodDisruptionBudget exceeded, a staying pod
// left without its required affinity partner) and the checker must name it.
func TestDecisionsCheckerFindsViolations(t *testing.T) {
	const single = disruption.MethodSingleNodeConsolidation
	cluster := func() disruption.Input {
		return disruption.Input{Nodes: []*disruption.Node{
			runningNode("e1", zoneA, pod("p1", "1", labelled("app", "api"))),
			runningNode("e2", zoneB, pod("cache", "1", labelled("app", "cache")), pod("p2", "1", labelled("app", "api"))),
			runningNode("e3", zoneB, pod("web", "1", zonalAffinity("cache"), labelled("app", "web"))),
		}}
	}
	withPDB := func(in disruption.Input) disruption.Input {
		minAvailable := intstr.FromInt32(2)
		in.PodDisruptionBudgets = []*policyv1.PodDisruptionBudget{{
			ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "default"},
			Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: &minAvailable,
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "api"}}},
		}}
		return in
	}
	hour := time.Hour
	withPool := func(in disruption.Input, grace *time.Duration) disruption.Input {
		in.NodePools = []*scheduling.NodePool{{Name: "default", TerminationGracePeriod: grace}}
		return in
	}
	for _, tc := range []struct {
		name      string
		in        disruption.Input
		commands  []disruption.Command
		want      map[string]int // failures per plugin; empty: valid
		pending   []string
		preexists int
	}{{
		name:     "removing e1 and moving its pod to e2 is valid",
		in:       cluster(),
		commands: []disruption.Command{deleteCommand(single, []string{"e1"}, []string{"default/p1"}, move("default/p1", "e2"))},
	}, {
		name:     "a pod of a removed node that is not evicted is lost",
		in:       cluster(),
		commands: []disruption.Command{deleteCommand(single, []string{"e1"}, []string{})},
		want:     map[string]int{check.Accounting: 1},
	}, {
		name:     "an evicted pod with no move is lost",
		in:       cluster(),
		commands: []disruption.Command{deleteCommand(single, []string{"e1"}, []string{"default/p1"})},
		want:     map[string]int{check.Accounting: 1},
	}, {
		name:     "expiration may leave an evicted pod pending",
		in:       cluster(),
		commands: []disruption.Command{deleteCommand(disruption.MethodExpiration, []string{"e1"}, []string{"default/p1"})},
		pending:  []string{"default/p1"},
	}, {
		name:     "a pod moved twice",
		in:       cluster(),
		commands: []disruption.Command{deleteCommand(single, []string{"e1"}, []string{"default/p1"}, move("default/p1", "e2"), move("default/p1", "e3"))},
		want:     map[string]int{check.Accounting: 1},
	}, {
		name:     "a pod moved onto its own removed node",
		in:       cluster(),
		commands: []disruption.Command{deleteCommand(single, []string{"e1"}, []string{"default/p1"}, move("default/p1", "e1"))},
		want:     map[string]int{check.Accounting: 2}, // the bad move, then the pod moved nowhere
	}, {
		name: "a pod moved onto a node a later command removes without evicting it is left on a deleted node",
		in:   cluster(),
		commands: []disruption.Command{
			deleteCommand(single, []string{"e1"}, []string{"default/p1"}, move("default/p1", "e3")),
			deleteCommand(single, []string{"e3"}, []string{"default/web"}, move("default/web", "e2")),
		},
		want: map[string]int{check.Accounting: 1},
	}, {
		name: "the same node removed by two commands",
		in:   cluster(),
		commands: []disruption.Command{
			deleteCommand(single, []string{"e1"}, []string{"default/p1"}, move("default/p1", "e2")),
			deleteCommand(single, []string{"e1"}, []string{}),
		},
		want: map[string]int{check.Accounting: 1},
	}, {
		name:     "a PodDisruptionBudget that allows no disruption",
		in:       withPDB(cluster()),
		commands: []disruption.Command{deleteCommand(single, []string{"e1"}, []string{"default/p1"}, move("default/p1", "e2"))},
		want:     map[string]int{check.Accounting: 1},
	}, {
		name:     "expiration is not held by the PodDisruptionBudget",
		in:       withPDB(cluster()),
		commands: []disruption.Command{deleteCommand(disruption.MethodExpiration, []string{"e1"}, []string{"default/p1"}, move("default/p1", "e2"))},
	}, {
		name:     "drift is held by the PodDisruptionBudget",
		in:       withPDB(withPool(cluster(), nil)),
		commands: []disruption.Command{deleteCommand(disruption.MethodDrift, []string{"e1"}, []string{"default/p1"}, move("default/p1", "e2"))},
		want:     map[string]int{check.Accounting: 1},
	}, {
		name:     "drift on a NodePool with a terminationGracePeriod is not held by the PodDisruptionBudget",
		in:       withPDB(withPool(cluster(), &hour)),
		commands: []disruption.Command{deleteCommand(disruption.MethodDrift, []string{"e1"}, []string{"default/p1"}, move("default/p1", "e2"))},
	}, {
		name:     "a staying pod loses the partner its zonal affinity requires",
		in:       cluster(),
		commands: []disruption.Command{deleteCommand(single, []string{"e2"}, []string{"default/cache", "default/p2"}, move("default/cache", "e1"), move("default/p2", "e1"))},
		want:     map[string]int{"InterPodAffinity": 1},
	}, {
		name: "a staying pod whose affinity was unmet before is preexisting, not a failure",
		in: disruption.Input{Nodes: []*disruption.Node{
			runningNode("e1", zoneA, pod("p1", "1", labelled("app", "api")), pod("cache", "1", labelled("app", "cache"))),
			runningNode("e2", zoneB, pod("web", "1", zonalAffinity("cache"), labelled("app", "web")), pod("p2", "1", labelled("app", "api"))),
			runningNode("e3", zoneB),
		}},
		commands:  []disruption.Command{deleteCommand(single, []string{"e3"}, []string{})},
		preexists: 1,
	}, {
		name: "a moved pod lands where a staying pod's anti-affinity forbids it",
		in: disruption.Input{Nodes: []*disruption.Node{
			runningNode("e1", zoneA, pod("w1", "1")),
			runningNode("e2", zoneA, pod("loner", "1", antiAffinity, labelled("app", "db"))),
		}},
		commands: []disruption.Command{deleteCommand(single, []string{"e1"}, []string{"default/w1"}, move("default/w1", "e2"))},
		want:     map[string]int{"InterPodAffinity": 2},
	}, {
		name: "a replacement that is too small for what moves onto it",
		in:   cluster(),
		commands: []disruption.Command{func() disruption.Command {
			c := deleteCommand(single, []string{"e2"}, []string{"default/cache", "default/p2"}, move("default/cache", "r1"), move("default/p2", "r1"))
			r := claim("r1", zoneB)
			r.Allocatable = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1500m"), corev1.ResourcePods: resource.MustParse("110")}
			c.Action, c.Replacements = disruption.ActionReplace, append(c.Replacements, r)
			return c
		}()},
		want: map[string]int{"NodeResourcesFit": 2},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := check.Decisions(tc.in, disruption.Decisions{Commands: tc.commands})
			require.NoError(t, err)
			t.Log(res.Summary())
			for _, f := range append(res.Failures, res.Preexisting...) {
				t.Log(f)
			}
			want := tc.want
			if want == nil {
				want = map[string]int{}
			}
			require.Equal(t, want, res.ByPlugin())
			require.Equal(t, tc.pending, res.Pending)
			require.Len(t, res.Preexisting, tc.preexists)
		})
	}
}
