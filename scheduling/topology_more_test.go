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

// randomTopologyPods builds a mix of spread and affinity rules. Spread selectors select only
// pods declaring the same constraint: kube-scheduler checks skew when a constrained pod is
// scheduled, so unconstrained pods matching the selector may pile up anywhere and a
// final-state skew check would not apply to them.
func randomTopologyPods(r *rand.Rand, n int) []*corev1.Pod {
	var pods []*corev1.Pod
	cpus := []string{"100m", "500m", "1", "2"}
	for i := 0; i < n; i++ {
		k := r.Intn(3)
		b := tb.Pod(fmt.Sprintf("p%d", i)).CPU(cpus[r.Intn(len(cpus))])
		switch r.Intn(6) {
		case 0:
			skew := 1 + r.Intn(2)
			b.Label("spread-zone", fmt.Sprintf("%d-%d", k, skew)).ZoneSpread(int32(skew))
		case 1:
			b.Label("spread-host", fmt.Sprint(k)).HostnameSpread(1)
		case 2:
			b.Label("app", fmt.Sprintf("app%d", k)).Affinity(zoneKey, map[string]string{"app": fmt.Sprintf("app%d", k)})
		case 3:
			b.Label("app", fmt.Sprintf("app%d", k)).AntiAffinity(hostKey, map[string]string{"app": fmt.Sprintf("app%d", k)})
		case 4:
			b.Label("app", fmt.Sprintf("app%d", k)).AntiAffinity(zoneKey, map[string]string{"app": fmt.Sprintf("app%d", r.Intn(3))})
		default:
			b.Label("app", fmt.Sprintf("app%d", k))
		}
		pods = append(pods, b.Obj())
	}
	return pods
}

// topologyViolations checks a plan against spread and affinity rules from the pods' specs
// alone, without the solver's counters.
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
	domainsWithNodes := func(key string) map[string]bool {
		out := map[string]bool{}
		for _, nc := range plan.NodeClaims {
			out[nc.Labels[key]] = true
		}
		return out
	}
	matching := func(sel *metav1.LabelSelector) []*corev1.Pod {
		s, _ := metav1.LabelSelectorAsSelector(sel)
		var out []*corev1.Pod
		for _, p := range placed {
			if s.Matches(labels.Set(p.Labels)) {
				out = append(out, p)
			}
		}
		return out
	}
	var errs []string
	seeds := map[string]int{} // affinity term → pods placed with no matching pod beside them
	for _, p := range placed {
		mine := labelsOf["default/"+p.Name]
		for _, c := range p.Spec.TopologySpreadConstraints {
			counts := map[string]int{}
			for d := range domainsWithNodes(c.TopologyKey) {
				counts[d] = 0
			}
			for _, q := range matching(c.LabelSelector) {
				counts[labelsOf["default/"+q.Name][c.TopologyKey]]++
			}
			lo, hi := 1<<30, 0
			for _, n := range counts {
				lo, hi = min(lo, n), max(hi, n)
			}
			if hi-lo > int(c.MaxSkew) {
				errs = append(errs, fmt.Sprintf("%s: spread on %s has skew %d > %d: %v", p.Name, c.TopologyKey, hi-lo, c.MaxSkew, counts))
			}
		}
		if a := p.Spec.Affinity; a != nil && a.PodAffinity != nil {
			for _, term := range a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
				others := 0
				total := 0
				for _, q := range matching(term.LabelSelector) {
					total++
					if q != p && labelsOf["default/"+q.Name][term.TopologyKey] == mine[term.TopologyKey] {
						others++
					}
				}
				// A pod that matches its own term may seed the first domain when none
				// exists yet (kube-scheduler's rule); only one such seed per term.
				selfMatch := false
				if s, err := metav1.LabelSelectorAsSelector(term.LabelSelector); err == nil {
					selfMatch = s.Matches(labels.Set(p.Labels))
				}
				if others == 0 && total > 1 {
					id := term.TopologyKey + "|" + metav1.FormatLabelSelector(term.LabelSelector)
					seeds[id]++
					if !selfMatch || seeds[id] > 1 {
						errs = append(errs, fmt.Sprintf("%s: affinity on %s has no matching pod in %s", p.Name, term.TopologyKey, mine[term.TopologyKey]))
					}
				}
			}
		}
		if a := p.Spec.Affinity; a != nil && a.PodAntiAffinity != nil {
			for _, term := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
				for _, q := range matching(term.LabelSelector) {
					if q != p && labelsOf["default/"+q.Name][term.TopologyKey] == mine[term.TopologyKey] {
						errs = append(errs, fmt.Sprintf("%s: anti-affinity on %s shares %s with %s", p.Name, term.TopologyKey, mine[term.TopologyKey], q.Name))
					}
				}
			}
		}
	}
	return errs
}

func TestTopologyRandomPlansPassIndependentChecks(t *testing.T) {
	for seed := int64(1); seed <= 300; seed++ {
		r := rand.New(rand.NewSource(seed))
		pods := randomTopologyPods(r, 10+r.Intn(40))
		plan, err := scheduling.Solve(scheduling.Input{Pods: pods, NodePools: threeZones()})
		require.NoError(t, err)
		require.Equal(t, len(pods), plan.Summary.Placed+len(plan.Unschedulable), "seed %d: every pod accounted for", seed)
		require.Empty(t, topologyViolations(pods, plan), "seed %d", seed)
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
	require.Contains(t, tr.Steps[1], "opened a new node of nodepool default")
	require.Contains(t, tr.Steps[len(tr.Steps)-1], "ends on new node default-")
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
