package topology_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/topology"
)

const zone = "topology.kubernetes.io/zone"

func TestTermsShareGroupsAndOrderPreferencesLast(t *testing.T) {
	tr := topology.NewTracker(nil)
	a := tb.Pod("a").Label("app", "web").ZoneSpread(1).PreferredAntiAffinity(10, zone, map[string]string{"app": "web"}).
		PreferredAntiAffinity(90, "kubernetes.io/hostname", map[string]string{"app": "web"}).Obj()
	a.Spec.TopologySpreadConstraints = append(a.Spec.TopologySpreadConstraints, corev1.TopologySpreadConstraint{
		MaxSkew: 1, TopologyKey: "kubernetes.io/hostname", WhenUnsatisfiable: corev1.ScheduleAnyway,
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}})
	b := tb.Pod("b").Label("app", "web").ZoneSpread(1).Obj()
	ta, err := tr.Terms(a)
	require.NoError(t, err)
	tbs, err := tr.Terms(b)
	require.NoError(t, err)
	require.Same(t, ta[0].Group, tbs[0].Group, "the same rule on two pods is one group")
	require.True(t, ta[0].Required)
	// Preferred anti-affinity heaviest first, then ScheduleAnyway spread.
	require.Equal(t, []int32{90, 10, 0}, []int32{ta[1].Weight, ta[2].Weight, ta[3].Weight})
	require.Equal(t, topology.Spread, ta[3].Group.Kind)
	require.False(t, ta[3].Required)
}

func TestGroupRules(t *testing.T) {
	web := map[string]string{"app": "web"}
	tests := []struct {
		name     string
		pod      *corev1.Pod
		existing map[string]int // domain → matching pods already there
		domain   string
		eligible []string
		want     bool
	}{
		{name: "spread: an empty zone is allowed", pod: tb.Pod("p").Label("app", "web").ZoneSpread(1).Obj(), existing: map[string]int{"a": 1}, domain: "b", eligible: []string{"a", "b"}, want: true},
		{name: "spread: a zone one ahead is not", pod: tb.Pod("p").Label("app", "web").ZoneSpread(1).Obj(), existing: map[string]int{"a": 1}, domain: "a", eligible: []string{"a", "b"}, want: false},
		{name: "spread: fewer eligible domains than minDomains count as empty", pod: func() *corev1.Pod {
			p := tb.Pod("p").Label("app", "web").ZoneSpread(1).Obj()
			three := int32(3)
			p.Spec.TopologySpreadConstraints[0].MinDomains = &three
			return p
		}(), existing: map[string]int{"a": 1, "b": 1}, domain: "a", eligible: []string{"a", "b"}, want: false},
		{name: "affinity: needs a matching pod in the domain", pod: tb.Pod("p").Affinity(zone, web).Obj(), existing: map[string]int{"a": 1}, domain: "b", want: false},
		{name: "affinity: a domain with a matching pod", pod: tb.Pod("p").Affinity(zone, web).Obj(), existing: map[string]int{"a": 1}, domain: "a", want: true},
		{name: "affinity: a self-matching pod seeds the first domain", pod: tb.Pod("p").Label("app", "web").Affinity(zone, web).Obj(), domain: "c", want: true},
		{name: "affinity: a pod not matching itself cannot seed", pod: tb.Pod("p").Affinity(zone, web).Obj(), domain: "c", want: false},
		{name: "anti-affinity: only empty domains", pod: tb.Pod("p").AntiAffinity(zone, web).Obj(), existing: map[string]int{"a": 1}, domain: "a", want: false},
		{name: "anti-affinity: an empty domain", pod: tb.Pod("p").AntiAffinity(zone, web).Obj(), existing: map[string]int{"a": 1}, domain: "b", want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := topology.NewTracker(nil)
			terms, err := tr.Terms(tt.pod)
			require.NoError(t, err)
			g := terms[0].Group
			for d, n := range tt.existing {
				for i := 0; i < n; i++ {
					other := tb.Pod("other").Label("app", "web").Obj()
					tr.Record(other, nil, func(string) (string, bool) { return d, true })
				}
			}
			require.Equal(t, tt.want, g.Allowed(tt.domain, g.Matches(tt.pod), g.MinCount(tt.eligible)))
		})
	}
}

func TestNamespacesAndInverseOwners(t *testing.T) {
	tr := topology.NewTracker([]*corev1.Namespace{{ObjectMeta: metav1.ObjectMeta{Name: "prod", Labels: map[string]string{"env": "prod"}}}})
	guard := tb.Pod("guard").AntiAffinity(zone, map[string]string{"app": "web"}).Obj()
	guard.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0].NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}
	terms := tr.AntiAffinityTerms(guard)
	require.Len(t, terms, 1)
	tr.Record(guard, terms, func(string) (string, bool) { return "a", true })
	g := terms[0].Group
	require.Equal(t, 1, g.Owners("a"))
	require.True(t, g.Matches(tb.Pod("w").Namespace("prod").Label("app", "web").Obj()))
	require.False(t, g.Matches(tb.Pod("w").Namespace("dev").Label("app", "web").Obj()), "namespaceSelector limits the term to prod")
}

func TestInvalidSelectorIsAnError(t *testing.T) {
	p := tb.Pod("p").Obj()
	p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: zone, WhenUnsatisfiable: corev1.DoNotSchedule,
		LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Near"}}}}}
	_, err := topology.NewTracker(nil).Terms(p)
	require.ErrorContains(t, err, "topologySpreadConstraints[0]: labelSelector")
}
