package scheduling_test

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/nodeplan/nodeplan/instancetype/synthetic"
	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

func twoPools(taintedZone string) []*scheduling.NodePool {
	t := func(zones ...string) *tb.TypeBuilder {
		b := tb.Type("small", "2", "8Gi", 30)
		for _, z := range zones {
			b.Offer(z, "on-demand", 0.1)
		}
		return b
	}
	return []*scheduling.NodePool{
		tb.NodePool("default", t("zone-a", "zone-b").Obj()).Obj(),
		tb.NodePool("tainted", t(taintedZone).Obj()).Taint("dedicated", "gpu", corev1.TaintEffectNoSchedule).Obj(),
	}
}

func TestTopologyPolicies(t *testing.T) {
	honor := corev1.NodeInclusionPolicyHonor
	spread := func(minDomains *int32, taints *corev1.NodeInclusionPolicy) []*corev1.Pod {
		pods := tb.Pod("web").Label("app", "web").CPU("100m").ZoneSpread(1).Replicas(4)
		for _, p := range pods {
			p.Spec.TopologySpreadConstraints[0].MinDomains = minDomains
			p.Spec.TopologySpreadConstraints[0].NodeTaintsPolicy = taints
		}
		return pods
	}
	three := int32(3)
	tests := []struct {
		name          string
		pods          []*corev1.Pod
		placed        int
		perZone       map[string]int
		unschedulable scheduling.Constraint
	}{
		{name: "two zones, no minDomains: 2/2", pods: spread(nil, &honor), placed: 4, perZone: map[string]int{"zone-a": 2, "zone-b": 2}},
		{name: "minDomains 3 with only two eligible zones caps each zone at maxSkew", pods: spread(&three, &honor), placed: 2, perZone: map[string]int{"zone-a": 1, "zone-b": 1}, unschedulable: scheduling.ConstraintTopologySpread},
		{name: "nodeTaintsPolicy Ignore counts the tainted pool's empty zone", pods: spread(nil, nil), placed: 2, perZone: map[string]int{"zone-a": 1, "zone-b": 1}, unschedulable: scheduling.ConstraintTopologySpread},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := scheduling.Solve(scheduling.Input{Pods: tt.pods, NodePools: twoPools("zone-c")})
			require.NoError(t, err)
			require.Equal(t, tt.placed, plan.Summary.Placed)
			require.Equal(t, tt.perZone, podsPerDomain(plan, zoneKey))
			for _, u := range plan.Unschedulable {
				require.Equal(t, tt.unschedulable, u.Constraint, u.Reason)
			}
		})
	}
}

func TestTopologyUndecidedZone(t *testing.T) {
	// "plain" lands first on a node whose zone is open; the anti-affinity pod must still not
	// share its zone, so the plain pod's node is pinned to a zone before it is counted.
	plain := tb.Pod("a-plain").Label("app", "x").CPU("1").Obj()
	anti := tb.Pod("b-anti").CPU("100m").AntiAffinity(zoneKey, map[string]string{"app": "x"}).Obj()
	plan, err := scheduling.Solve(scheduling.Input{Pods: []*corev1.Pod{plain, anti}, NodePools: threeZones()})
	require.NoError(t, err)
	require.Empty(t, plan.Unschedulable)
	zoneOf := map[string]string{}
	for _, nc := range plan.NodeClaims {
		for _, p := range nc.Pods {
			zoneOf[p] = nc.Zone
		}
	}
	require.NotEqual(t, zoneOf["default/a-plain"], zoneOf["default/b-anti"])
}

// randomTopologyPods builds a mix of spread and affinity rules over one shared label, whose
// selectors pick a value independent of the declaring pod's own (as Karpenter's scheduling
// benchmark does): a rule sees pods of every kind, with rules of their own or none.
func randomTopologyPods(r *rand.Rand, n int) []*corev1.Pod {
	var pods []*corev1.Pod
	cpus := []string{"100m", "500m", "1", "2"}
	value := func() map[string]string { return map[string]string{"my-label": fmt.Sprint(r.Intn(4))} }
	for i := 0; i < n; i++ {
		b := tb.Pod(fmt.Sprintf("p%d", i)).CPU(cpus[r.Intn(len(cpus))]).Label("my-label", fmt.Sprint(r.Intn(4)))
		switch r.Intn(7) {
		case 0:
			b.SpreadSelecting(zoneKey, int32(1+r.Intn(2)), corev1.DoNotSchedule, value())
		case 1:
			b.SpreadSelecting(hostKey, 1, corev1.DoNotSchedule, value())
		case 2:
			b.Affinity(zoneKey, value())
		case 3:
			b.AntiAffinity(hostKey, value())
		case 4:
			b.AntiAffinity(zoneKey, value())
		case 5:
			b.SpreadSelecting(zoneKey, 1, corev1.DoNotSchedule, value()).SpreadSelecting(hostKey, 2, corev1.DoNotSchedule, value())
		}
		pods = append(pods, b.Obj())
	}
	return pods
}

// topologyViolations checks every placed pod of a plan against its required spread and pod
// (anti-)affinity rules in the plan's final state, with the pod itself left out, as
// kube-scheduler's Filter would (zones in plan.TopologyDomains count as empty domains). It
// reads only the pods' specs and the plan, not the solver's counters.
func topologyViolations(pods []*corev1.Pod, plan scheduling.Plan) []string {
	labelsOf := map[string]map[string]string{} // pod → its node's labels
	for _, nc := range plan.NodeClaims {
		for _, k := range nc.Pods {
			labelsOf[k] = nc.Labels
		}
	}
	var placed []*corev1.Pod
	for _, p := range pods {
		if _, ok := labelsOf["default/"+p.Name]; ok {
			placed = append(placed, p)
		}
	}
	domainOf := func(p *corev1.Pod, key string) string { return labelsOf["default/"+p.Name][key] }
	matchingOthers := func(sel *metav1.LabelSelector, self *corev1.Pod) []*corev1.Pod {
		s, _ := metav1.LabelSelectorAsSelector(sel)
		var out []*corev1.Pod
		for _, q := range placed {
			if q != self && s.Matches(labels.Set(q.Labels)) {
				out = append(out, q)
			}
		}
		return out
	}
	selfMatches := func(sel *metav1.LabelSelector, p *corev1.Pod) bool {
		s, _ := metav1.LabelSelectorAsSelector(sel)
		return s.Matches(labels.Set(p.Labels))
	}
	var errs []string
	for _, p := range placed {
		for _, c := range p.Spec.TopologySpreadConstraints {
			if c.WhenUnsatisfiable != corev1.DoNotSchedule {
				continue
			}
			counts := map[string]int{}
			for _, nc := range plan.NodeClaims {
				counts[nc.Labels[c.TopologyKey]] = 0
			}
			for _, d := range plan.TopologyDomains[c.TopologyKey] {
				counts[d] = 0
			}
			for _, q := range matchingOthers(c.LabelSelector, p) {
				counts[domainOf(q, c.TopologyKey)]++
			}
			least := 1 << 30
			for _, n := range counts {
				least = min(least, n)
			}
			self := 0
			if selfMatches(c.LabelSelector, p) {
				self = 1
			}
			mine := domainOf(p, c.TopologyKey)
			if skew := counts[mine] + self - least; skew > int(c.MaxSkew) {
				errs = append(errs, fmt.Sprintf("%s: spread on %s has skew %d > %d in %s: %v", p.Name, c.TopologyKey, skew, c.MaxSkew, mine, counts))
			}
		}
		if a := p.Spec.Affinity; a != nil && a.PodAffinity != nil {
			for _, term := range a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
				others := matchingOthers(term.LabelSelector, p)
				beside := 0
				for _, q := range others {
					if domainOf(q, term.TopologyKey) == domainOf(p, term.TopologyKey) {
						beside++
					}
				}
				// With no other matching pod anywhere, a pod matching its own term may start a
				// domain (kube-scheduler's rule).
				if beside == 0 && (len(others) > 0 || !selfMatches(term.LabelSelector, p)) {
					errs = append(errs, fmt.Sprintf("%s: affinity on %s has no matching pod in %s (%d elsewhere)", p.Name, term.TopologyKey, domainOf(p, term.TopologyKey), len(others)))
				}
			}
		}
		if a := p.Spec.Affinity; a != nil && a.PodAntiAffinity != nil {
			for _, term := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
				for _, q := range matchingOthers(term.LabelSelector, p) {
					if domainOf(q, term.TopologyKey) == domainOf(p, term.TopologyKey) {
						errs = append(errs, fmt.Sprintf("%s: anti-affinity on %s shares %s with %s", p.Name, term.TopologyKey, domainOf(p, term.TopologyKey), q.Name))
					}
				}
			}
		}
	}
	return errs
}

func TestTopologyRandomPlansPassIndependentChecks(t *testing.T) {
	failing := 0
	defer func() {
		if failing > 0 {
			t.Errorf("%d of 300 plans break a rule in their final state", failing)
		}
	}()
	for seed := int64(1); seed <= 300; seed++ {
		r := rand.New(rand.NewSource(seed))
		pods := randomTopologyPods(r, 10+r.Intn(40))
		plan, err := scheduling.Solve(scheduling.Input{Pods: pods, NodePools: threeZones()})
		require.NoError(t, err)
		require.Equal(t, len(pods), plan.Summary.Placed+len(plan.Unschedulable), "seed %d: every pod accounted for", seed)
		if v := topologyViolations(pods, plan); len(v) > 0 {
			failing++
			if failing <= 3 {
				t.Errorf("seed %d: %d violations, first: %s", seed, len(v), v[0])
			}
		}
	}
}

// TestDiverseWorkloadHoldsInFinalState runs the benchmark-shaped workload, whose rules count
// pods of every kind, and checks every placed pod against the finished plan.
func TestDiverseWorkloadHoldsInFinalState(t *testing.T) {
	cat := synthetic.Default()
	for _, n := range []int{500, 2000} {
		pods := diverseWorkload(n)
		plan, err := scheduling.Solve(scheduling.Input{Pods: pods, NodePools: []*scheduling.NodePool{tb.NodePool("default", cat.InstanceTypes...).Obj()}})
		require.NoError(t, err)
		require.Equal(t, n, plan.Summary.Placed, "%d pods: all placed; unschedulable: %v", n, plan.Unschedulable)
		v := topologyViolations(pods, plan)
		require.Empty(t, v, "%d pods: %d violations", n, len(v))
	}
}

func TestTopologyNodeWithoutTheKey(t *testing.T) {
	// An existing node without a rack label: anti-affinity on rack is met there (kube-scheduler
	// treats a node outside every domain as conflict-free), spread on rack is not.
	const rack = "example.com/rack"
	node := func() *scheduling.ExistingNode { return tb.Node("plain", "4", "16Gi", 20).Zone("zone-a").Obj() }
	anti := tb.Pod("anti").Label("app", "x").CPU("100m").AntiAffinity(rack, map[string]string{"app": "x"}).Obj()
	plan, err := scheduling.Solve(scheduling.Input{Pods: []*corev1.Pod{anti}, NodePools: threeZones(), ExistingNodes: []*scheduling.ExistingNode{node()}})
	require.NoError(t, err)
	require.Equal(t, []scheduling.ExistingPlacement{{Name: "plain", Pods: []string{"default/anti"}}}, plan.ExistingNodes)

	spread := tb.Pod("spread").Label("app", "y").CPU("100m").Spread(rack, 1, corev1.DoNotSchedule).Obj()
	plan, err = scheduling.Solve(scheduling.Input{Pods: []*corev1.Pod{spread}, NodePools: threeZones(), ExistingNodes: []*scheduling.ExistingNode{node()}})
	require.NoError(t, err)
	require.Empty(t, plan.ExistingNodes, "a node without the spread key is not eligible")
}

func TestTopologyFields(t *testing.T) {
	ignore := corev1.NodeInclusionPolicyIgnore
	tests := []struct {
		name  string
		pods  []*corev1.Pod
		check func(t *testing.T, plan scheduling.Plan)
	}{
		{
			name: "matchLabelKeys spreads each revision on its own",
			pods: func() []*corev1.Pod {
				var pods []*corev1.Pod
				for _, rev := range []string{"v1", "v2"} {
					for _, p := range tb.Pod("web-"+rev).Label("app", "web").Label("pod-template-hash", rev).CPU("100m").ZoneSpread(1).Replicas(3) {
						p.Spec.TopologySpreadConstraints[0].LabelSelector.MatchLabels = map[string]string{"app": "web"}
						p.Spec.TopologySpreadConstraints[0].MatchLabelKeys = []string{"pod-template-hash"}
						pods = append(pods, p)
					}
				}
				return pods
			}(),
			check: func(t *testing.T, plan scheduling.Plan) {
				for _, rev := range []string{"v1", "v2"} {
					zones := map[string]int{}
					for _, nc := range plan.NodeClaims {
						for _, p := range nc.Pods {
							if strings.HasPrefix(p, "default/web-"+rev) {
								zones[nc.Zone]++
							}
						}
					}
					require.Equal(t, map[string]int{"zone-a": 1, "zone-b": 1, "zone-c": 1}, zones, rev)
				}
			},
		},
		{
			name: "nodeAffinityPolicy Honor measures skew only over zones the pod may use",
			pods: tb.Pod("web").Label("app", "web").CPU("100m").ZoneSpread(1).
				RequiredTerm(tb.In(zoneKey, "zone-a", "zone-b")).Replicas(4),
			check: func(t *testing.T, plan scheduling.Plan) {
				require.Empty(t, plan.Unschedulable)
				require.Equal(t, map[string]int{"zone-a": 2, "zone-b": 2}, podsPerDomain(plan, zoneKey))
			},
		},
		{
			name: "nodeAffinityPolicy Ignore counts the zone the pod may not use, capping the others",
			pods: func() []*corev1.Pod {
				pods := tb.Pod("web").Label("app", "web").CPU("100m").ZoneSpread(1).RequiredTerm(tb.In(zoneKey, "zone-a", "zone-b")).Replicas(4)
				for _, p := range pods {
					p.Spec.TopologySpreadConstraints[0].NodeAffinityPolicy = &ignore
				}
				return pods
			}(),
			check: func(t *testing.T, plan scheduling.Plan) {
				require.Equal(t, 2, plan.Summary.Placed)
				require.Equal(t, scheduling.ConstraintTopologySpread, plan.Unschedulable[0].Constraint)
			},
		},
		{
			name: "ScheduleAnyway spread is honoured while it can be",
			pods: tb.Pod("web").Label("app", "web").CPU("100m").Spread(zoneKey, 1, corev1.ScheduleAnyway).Replicas(3),
			check: func(t *testing.T, plan scheduling.Plan) {
				require.Equal(t, map[string]int{"zone-a": 1, "zone-b": 1, "zone-c": 1}, podsPerDomain(plan, zoneKey))
			},
		},
		{
			name: "ScheduleAnyway spread is relaxed when it cannot be met",
			pods: func() []*corev1.Pod {
				pods := tb.Pod("web").Label("app", "web").CPU("100m").Spread(zoneKey, 1, corev1.ScheduleAnyway).
					RequiredTerm(tb.In(zoneKey, "zone-a")).Replicas(3)
				for _, p := range pods {
					p.Spec.TopologySpreadConstraints[0].NodeAffinityPolicy = &ignore
				}
				return pods
			}(),
			check: func(t *testing.T, plan scheduling.Plan) {
				require.Empty(t, plan.Unschedulable)
				require.Equal(t, map[string]int{"zone-a": 3}, podsPerDomain(plan, zoneKey))
			},
		},
		{
			name: "pod affinity namespaces: a term naming another namespace follows pods there",
			pods: []*corev1.Pod{
				tb.Pod("db").Namespace("data").Label("app", "db").CPU("100m").NodeSelector(zoneKey, "zone-c").Obj(),
				func() *corev1.Pod {
					p := tb.Pod("api").CPU("100m").Affinity(zoneKey, map[string]string{"app": "db"}).Obj()
					p.Spec.Affinity.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0].Namespaces = []string{"data"}
					return p
				}(),
			},
			check: func(t *testing.T, plan scheduling.Plan) {
				require.Empty(t, plan.Unschedulable)
				require.Equal(t, map[string]int{"zone-c": 2}, podsPerDomain(plan, zoneKey))
			},
		},
		{
			name: "pod affinity without namespaces only sees the pod's own namespace",
			pods: []*corev1.Pod{
				tb.Pod("db").Namespace("data").Label("app", "db").CPU("100m").NodeSelector(zoneKey, "zone-c").Obj(),
				tb.Pod("api").CPU("100m").Affinity(zoneKey, map[string]string{"app": "db"}).Obj(),
			},
			check: func(t *testing.T, plan scheduling.Plan) {
				require.Len(t, plan.Unschedulable, 1)
				require.Equal(t, "default/api", plan.Unschedulable[0].Pod)
				require.Equal(t, scheduling.ConstraintPodAffinity, plan.Unschedulable[0].Constraint)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := scheduling.Solve(scheduling.Input{Pods: tt.pods, NodePools: threeZones()})
			require.NoError(t, err)
			tt.check(t, plan)
		})
	}
}

func TestTopologySpreadCountsOnlyNodesMatchingTheSelector(t *testing.T) {
	// nodeAffinityPolicy Honor (the default): kube-scheduler counts only pods on nodes the
	// incoming pod's node selector matches. Zone-a holds 2 on team=batch nodes, zone-b holds 3
	// on other nodes and none on its batch node, so the new pod belongs in zone-b.
	spreadPod := func(name string, batch bool) *corev1.Pod {
		b := tb.Pod(name).Label("app", "s").CPU("100m").ZoneSpread(1)
		if batch {
			b.NodeSelector("team", "batch")
		}
		return b.Obj()
	}
	nodes := []*scheduling.ExistingNode{
		tb.Node("a-batch", "4", "16Gi", 20).Zone("zone-a").Label("team", "batch").Pods(spreadPod("s-0", true), spreadPod("s-1", true)).Obj(),
		tb.Node("b-batch", "4", "16Gi", 20).Zone("zone-b").Label("team", "batch").Obj(),
		tb.Node("b-other", "4", "16Gi", 20).Zone("zone-b").Pods(spreadPod("s-2", false), spreadPod("s-3", false), spreadPod("s-4", false)).Obj(),
	}
	plan, err := scheduling.Solve(scheduling.Input{Pods: []*corev1.Pod{spreadPod("new", true)}, NodePools: threeZones(), ExistingNodes: nodes})
	require.NoError(t, err)
	require.Equal(t, []scheduling.ExistingPlacement{{Name: "b-batch", Pods: []string{"default/new"}}}, plan.ExistingNodes)
}

func TestTopologyPreferencesIgnored(t *testing.T) {
	// Under PreferencePolicy Ignore, preferred anti-affinity and ScheduleAnyway spread do not
	// shape the plan: the pods share the cheapest node.
	pods := tb.Pod("web").Label("app", "web").CPU("100m").
		PreferredAntiAffinity(100, hostKey, map[string]string{"app": "web"}).
		Spread(zoneKey, 1, corev1.ScheduleAnyway).Replicas(3)
	plan, err := scheduling.Solve(scheduling.Input{Pods: pods, NodePools: threeZones(), Options: scheduling.Options{PreferencePolicy: scheduling.PreferencesIgnore}})
	require.NoError(t, err)
	require.Len(t, plan.NodeClaims, 1)
	require.Len(t, plan.NodeClaims[0].Pods, 3)

	plan, err = scheduling.Solve(scheduling.Input{Pods: pods, NodePools: threeZones()})
	require.NoError(t, err)
	require.Len(t, plan.NodeClaims, 3, "respected, the preferences put each pod on its own node")
}

func TestTrace(t *testing.T) {
	// The traced pod's anti-affinity rules out the first pod's node; its trace says so and
	// where it ended.
	first := tb.Pod("a-first").Label("app", "x").CPU("1").Obj()
	second := tb.Pod("b-second").Label("app", "x").CPU("100m").AntiAffinity(hostKey, map[string]string{"app": "x"}).Obj()
	plan, err := scheduling.Solve(scheduling.Input{Pods: []*corev1.Pod{first, second}, NodePools: threeZones(),
		Options: scheduling.Options{Trace: []string{"default/b-second"}}})
	require.NoError(t, err)
	require.Len(t, plan.Traces, 1)
	tr := plan.Traces[0]
	require.Equal(t, "default/b-second", tr.Pod)
	require.Contains(t, tr.Steps[0], "1 new node(s) of this plan skipped")
	require.Contains(t, tr.Steps[1], "opened new node default-2 of nodepool default")
	require.Contains(t, tr.Steps[len(tr.Steps)-1], "ends on new node default-2", "a node keeps the name it opened with")
}

func TestTopologyZoneWithoutOfferingsForThePodIsNoDomain(t *testing.T) {
	// zone-c sells this type on-demand only; spot-only pods cannot launch there, so zone-c must
	// not hold their spread's minimum at 0.
	typ := tb.Type("small", "2", "8Gi", 30).Offer("zone-a", "spot", 0.03).Offer("zone-b", "spot", 0.031).Offer("zone-c", "on-demand", 0.1).Obj()
	pods := tb.Pod("web").Label("app", "web").CPU("100m").ZoneSpread(1).NodeSelector("karpenter.sh/capacity-type", "spot").Replicas(4)
	plan, err := scheduling.Solve(scheduling.Input{Pods: pods, NodePools: []*scheduling.NodePool{tb.NodePool("default", typ).Obj()}})
	require.NoError(t, err)
	require.Empty(t, plan.Unschedulable)
	require.Equal(t, map[string]int{"zone-a": 2, "zone-b": 2}, podsPerDomain(plan, zoneKey))
}
