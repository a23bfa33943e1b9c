package topology_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/topology"
)

// termIDs describes terms by their groups' IDs, whether they are required and their weight.
func termIDs(terms []topology.Term) []string {
	out := make([]string, len(terms))
	for i, t := range terms {
		out[i] = fmt.Sprintf("%s required=%t weight=%d", t.Group.ID(), t.Required, t.Weight)
	}
	return out
}

// Pods declared once, their Declared values shared by two solves (States), get in each the
// terms and errors State.Terms gives pod by pod, with groups of that State's own.
func TestTermsOfPodsFromSharedDeclarationsAreTermsPodByPod(t *testing.T) {
	invalid := tb.Pod("invalid").Label("app", "web").ZoneSpread(1).Obj()
	invalid.Spec.TopologySpreadConstraints = append(invalid.Spec.TopologySpreadConstraints, corev1.TopologySpreadConstraint{
		MaxSkew: 1, TopologyKey: zone, WhenUnsatisfiable: corev1.DoNotSchedule,
		LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Near"}}}})
	pods := []*corev1.Pod{
		tb.Pod("plain").Obj(),
		tb.Pod("web-1").Label("app", "web").ZoneSpread(1).PreferredAntiAffinity(10, zone, map[string]string{"app": "web"}).
			AntiAffinity("kubernetes.io/hostname", map[string]string{"app": "web"}).Obj(),
		invalid, // its valid first term still declares a group
		tb.Pod("db").Label("app", "db").Affinity(zone, map[string]string{"app": "web"}).PreferredAffinity(50, zone, map[string]string{"app": "cache"}).Obj(),
		tb.Pod("web-2").Label("app", "web").ZoneSpread(1).Obj(),
	}
	for _, requiredOnly := range []bool{false, true} {
		t.Run(fmt.Sprintf("requiredOnly=%t", requiredOnly), func(t *testing.T) {
			byPod := topology.NewState(nil)
			var want [][]string
			var wantErrs []string
			for _, p := range pods {
				terms, err := byPod.Terms(p, requiredOnly)
				want = append(want, termIDs(terms))
				wantErrs = append(wantErrs, fmt.Sprint(err))
			}
			declared := make([]*topology.Declared, len(pods))
			for i, p := range pods {
				if i%2 == 0 { // the others are declared by TermsOfPods
					declared[i] = topology.Declare(p)
				}
			}
			var first [][]topology.Term
			for range 2 {
				st := topology.NewState(nil)
				terms, errs := st.TermsOfPods(len(pods), func(i int) *topology.Declared { return declared[i] }, func(i int) *corev1.Pod { return pods[i] }, requiredOnly)
				for i := range pods {
					require.Equal(t, want[i], termIDs(terms[i]), "pod %s", pods[i].Name)
					require.Equal(t, wantErrs[i], fmt.Sprint(errs[i]), "pod %s", pods[i].Name)
					for j, term := range terms[i] {
						if first != nil {
							require.NotSame(t, first[i][j].Group, term.Group, "each State has groups of its own")
						}
					}
				}
				first = terms
			}
		})
	}
}
