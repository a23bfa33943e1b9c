package check_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/conformance/check"
	"github.com/nodeplan/nodeplan/scheduling"
)

const (
	zoneA = "test-zone-a"
	zoneB = "test-zone-b"
)

// pod builds a pending pod with app=web unless labels say otherwise.
func pod(name, cpu string, opts ...func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)},
		}}}},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func spread(key string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{
			MaxSkew: 1, TopologyKey: key, WhenUnsatisfiable: corev1.DoNotSchedule,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
		}}
	}
}

func nodeSelector(k, v string) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{k: v} }
}

// ignoreAffinity sets nodeAffinityPolicy Ignore on the pod's spread constraints.
func ignoreAffinity(p *corev1.Pod) {
	ignore := corev1.NodeInclusionPolicyIgnore
	for i := range p.Spec.TopologySpreadConstraints {
		p.Spec.TopologySpreadConstraints[i].NodeAffinityPolicy = &ignore
	}
}

func antiAffinity(p *corev1.Pod) {
	p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			TopologyKey:   corev1.LabelHostname,
		}},
	}}
}

// hostPort80 makes the pod's container listen on host port 80.
func hostPort80(p *corev1.Pod) {
	p.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 8080, HostPort: 80, Protocol: corev1.ProtocolTCP}}
}

func labelled(k, v string) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Labels = map[string]string{k: v} }
}

// claim builds a NodeClaim with 4 cpu and 110 pods allocatable.
func claim(name, zone string, pods ...string) scheduling.NodeClaim {
	rl := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourcePods: resource.MustParse("110")}
	return scheduling.NodeClaim{
		Name: name, NodePool: "default", InstanceType: "t4", Zone: zone, CapacityType: "on-demand", Price: 1,
		Labels: map[string]string{
			corev1.LabelHostname: name, corev1.LabelTopologyZone: zone, corev1.LabelInstanceTypeStable: "t4",
			"karpenter.sh/capacity-type": "on-demand", "karpenter.sh/nodepool": "default",
		},
		Capacity: rl, Allocatable: rl, Pods: pods,
	}
}

func existingNode(name, zone string, running ...*corev1.Pod) *scheduling.ExistingNode {
	rl := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourcePods: resource.MustParse("110")}
	for _, p := range running {
		p.Spec.NodeName = name
	}
	return &scheduling.ExistingNode{
		Node: &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelHostname: name, corev1.LabelTopologyZone: zone}},
			Status:     corev1.NodeStatus{Capacity: rl, Allocatable: rl},
		},
		Pods: running, Initialized: true,
	}
}

// summarize fills in the summary the plan should carry.
func summarize(in scheduling.Input, p scheduling.Plan) scheduling.Plan {
	p.Summary = scheduling.Summary{Pods: len(in.Pods), NewNodes: len(p.NodeClaims)}
	for _, nc := range p.NodeClaims {
		p.Summary.Placed += len(nc.Pods)
		p.Summary.HourlyCost += nc.Price
	}
	for _, e := range p.ExistingNodes {
		p.Summary.Placed += len(e.Pods)
	}
	return p
}

// The checker must be able to fail: each hand-built plan breaks one rule and the checker must
// name it, while the valid plans next to them pass.
func TestCheckerFindsViolations(t *testing.T) {
	zones := map[string][]string{corev1.LabelTopologyZone: {zoneA, zoneB}}
	webDaemon := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "default"},
		Spec: appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
			Spec: corev1.PodSpec{
				NodeSelector: map[string]string{corev1.LabelTopologyZone: zoneA},
				Containers:   []corev1.Container{{Name: "agent"}},
			},
		}},
	}
	for _, tc := range []struct {
		name string
		in   scheduling.Input
		plan scheduling.Plan
		want map[string]int // failures per plugin; empty: valid
	}{{
		name: "zone spread balanced over both zones is valid",
		in:   scheduling.Input{Pods: []*corev1.Pod{pod("w1", "1", spread(corev1.LabelTopologyZone)), pod("w2", "1", spread(corev1.LabelTopologyZone))}},
		plan: scheduling.Plan{TopologyDomains: zones, NodeClaims: []scheduling.NodeClaim{claim("n1", zoneA, "default/w1"), claim("n2", zoneB, "default/w2")}},
	}, {
		name: "zone spread all in one zone while the other is empty (a virtual zone node)",
		in:   scheduling.Input{Pods: []*corev1.Pod{pod("w1", "1", spread(corev1.LabelTopologyZone)), pod("w2", "1", spread(corev1.LabelTopologyZone))}},
		plan: scheduling.Plan{TopologyDomains: zones, NodeClaims: []scheduling.NodeClaim{claim("n1", zoneA, "default/w1", "default/w2")}},
		want: map[string]int{"PodTopologySpread": 2},
	}, {
		name: "without topology domains the empty zone does not count",
		in:   scheduling.Input{Pods: []*corev1.Pod{pod("w1", "1", spread(corev1.LabelTopologyZone)), pod("w2", "1", spread(corev1.LabelTopologyZone))}},
		plan: scheduling.Plan{NodeClaims: []scheduling.NodeClaim{claim("n1", zoneA, "default/w1", "default/w2")}},
	}, {
		name: "the empty zone's virtual node does not count for a pod selecting a NodePool label (nodeAffinityPolicy Honor)",
		in: scheduling.Input{Pods: []*corev1.Pod{
			pod("w1", "1", spread(corev1.LabelTopologyZone), nodeSelector("karpenter.sh/nodepool", "default")),
			pod("w2", "1", spread(corev1.LabelTopologyZone), nodeSelector("karpenter.sh/nodepool", "default")),
		}},
		plan: scheduling.Plan{TopologyDomains: zones, NodeClaims: []scheduling.NodeClaim{claim("n1", zoneA, "default/w1", "default/w2")}},
	}, {
		name: "the empty zone counts for the same pods with nodeAffinityPolicy Ignore",
		in: scheduling.Input{Pods: []*corev1.Pod{
			pod("w1", "1", spread(corev1.LabelTopologyZone), nodeSelector("karpenter.sh/nodepool", "default"), ignoreAffinity),
			pod("w2", "1", spread(corev1.LabelTopologyZone), nodeSelector("karpenter.sh/nodepool", "default"), ignoreAffinity),
		}},
		plan: scheduling.Plan{TopologyDomains: zones, NodeClaims: []scheduling.NodeClaim{claim("n1", zoneA, "default/w1", "default/w2")}},
		want: map[string]int{"PodTopologySpread": 2},
	}, {
		name: "a DaemonSet pod matching the spread selector counts",
		in: scheduling.Input{DaemonSets: []*appsv1.DaemonSet{webDaemon}, Pods: []*corev1.Pod{
			pod("w1", "1", spread(corev1.LabelTopologyZone)), pod("w2", "1", spread(corev1.LabelTopologyZone)), pod("w3", "1", spread(corev1.LabelTopologyZone)),
		}},
		plan: scheduling.Plan{TopologyDomains: zones, NodeClaims: []scheduling.NodeClaim{claim("n1", zoneA, "default/w1", "default/w2"), claim("n2", zoneB, "default/w3")}},
		want: map[string]int{"PodTopologySpread": 2},
	}, {
		name: "a running pod matching the spread selector counts",
		in: scheduling.Input{
			ExistingNodes: []*scheduling.ExistingNode{existingNode("e1", zoneA, pod("running", "100m", func(p *corev1.Pod) { p.Namespace = "default" }))},
			Pods:          []*corev1.Pod{pod("w1", "1", spread(corev1.LabelTopologyZone)), pod("w2", "1", spread(corev1.LabelTopologyZone)), pod("w3", "1", spread(corev1.LabelTopologyZone))},
		},
		plan: scheduling.Plan{
			TopologyDomains: zones,
			ExistingNodes:   []scheduling.ExistingPlacement{{Name: "e1", Pods: []string{"default/w1", "default/w2"}}},
			NodeClaims:      []scheduling.NodeClaim{claim("n2", zoneB, "default/w3")},
		},
		want: map[string]int{"PodTopologySpread": 2},
	}, {
		name: "hostname spread counts pods with no rule",
		in: scheduling.Input{Pods: []*corev1.Pod{
			pod("w1", "1", spread(corev1.LabelHostname)), pod("plain1", "1"), pod("plain2", "1"), pod("w2", "1", spread(corev1.LabelHostname)),
		}},
		plan: scheduling.Plan{NodeClaims: []scheduling.NodeClaim{claim("n1", zoneA, "default/w1", "default/plain1", "default/plain2"), claim("n2", zoneA, "default/w2")}},
		want: map[string]int{"PodTopologySpread": 1},
	}, {
		name: "hostname anti-affinity on one node",
		in:   scheduling.Input{Pods: []*corev1.Pod{pod("a1", "1", antiAffinity), pod("a2", "1", antiAffinity)}},
		plan: scheduling.Plan{NodeClaims: []scheduling.NodeClaim{claim("n1", zoneA, "default/a1", "default/a2")}},
		want: map[string]int{"InterPodAffinity": 2},
	}, {
		name: "anti-affinity is symmetric: a plain pod next to a pod that repels it",
		in:   scheduling.Input{Pods: []*corev1.Pod{pod("a1", "1", antiAffinity, labelled("app", "db")), pod("plain", "1")}},
		plan: scheduling.Plan{NodeClaims: []scheduling.NodeClaim{claim("n1", zoneA, "default/a1", "default/plain")}},
		want: map[string]int{"InterPodAffinity": 2},
	}, {
		// NodeInfo keeps used ports as a set: taking out one of the two pods must not make the
		// other look alone on port 80.
		name: "two pods on host port 80 on one node",
		in:   scheduling.Input{Pods: []*corev1.Pod{pod("h1", "1", hostPort80), pod("h2", "1", hostPort80)}},
		plan: scheduling.Plan{NodeClaims: []scheduling.NodeClaim{claim("n1", zoneA, "default/h1", "default/h2")}},
		want: map[string]int{"NodePorts": 2},
	}, {
		name: "host port 80 on two nodes is valid",
		in:   scheduling.Input{Pods: []*corev1.Pod{pod("h1", "1", hostPort80), pod("h2", "1", hostPort80)}},
		plan: scheduling.Plan{NodeClaims: []scheduling.NodeClaim{claim("n1", zoneA, "default/h1"), claim("n2", zoneA, "default/h2")}},
	}, {
		name: "more cpu than allocatable",
		in:   scheduling.Input{Pods: []*corev1.Pod{pod("big1", "3"), pod("big2", "3")}},
		plan: scheduling.Plan{NodeClaims: []scheduling.NodeClaim{claim("n1", zoneA, "default/big1", "default/big2")}},
		want: map[string]int{"NodeResourcesFit": 2},
	}, {
		name: "a pod missing, one placed twice, one unknown",
		in:   scheduling.Input{Pods: []*corev1.Pod{pod("p1", "1"), pod("p2", "1"), pod("p3", "1")}},
		plan: scheduling.Plan{NodeClaims: []scheduling.NodeClaim{claim("n1", zoneA, "default/p1", "default/p1", "default/ghost"), claim("n2", zoneB, "default/p2")}},
		want: map[string]int{check.Accounting: 3},
	}, {
		name: "a NodeClaim labelled with another zone",
		in:   scheduling.Input{Pods: []*corev1.Pod{pod("p1", "1")}},
		plan: scheduling.Plan{NodeClaims: []scheduling.NodeClaim{func() scheduling.NodeClaim {
			nc := claim("n1", zoneA, "default/p1")
			nc.Zone = zoneB
			return nc
		}()}},
		want: map[string]int{check.NodeClaimLabels: 1},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := check.Plan(tc.in, summarize(tc.in, tc.plan))
			require.NoError(t, err)
			t.Log(res.Summary())
			for _, f := range res.Failures {
				t.Log(f)
			}
			want := tc.want
			if want == nil {
				want = map[string]int{}
			}
			require.Equal(t, want, res.ByPlugin())
		})
	}
}

// A summary that disagrees with the plan is an accounting failure.
func TestCheckerFindsWrongSummary(t *testing.T) {
	in := scheduling.Input{Pods: []*corev1.Pod{pod("p1", "1")}}
	plan := summarize(in, scheduling.Plan{NodeClaims: []scheduling.NodeClaim{claim("n1", zoneA, "default/p1")}})
	plan.Summary.Placed = 0
	plan.Summary.HourlyCost = 3
	res, err := check.Plan(in, plan)
	require.NoError(t, err)
	require.Equal(t, map[string]int{check.Accounting: 2}, res.ByPlugin())
}
