package disruption

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestPDBAllowed(t *testing.T) {
	pods := func(n, unready int) []*corev1.Pod {
		var out []*corev1.Pod
		for i := 0; i < n; i++ {
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("web-%d", i), Namespace: "default", Labels: map[string]string{"app": "web"}}}
			p.Spec.NodeName = "n"
			if i < unready {
				p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}}
			}
			out = append(out, p)
		}
		return out
	}
	pdb := func(minAvailable, maxUnavailable string) *policyv1.PodDisruptionBudget {
		b := &policyv1.PodDisruptionBudget{
			ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
			Spec:       policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
		}
		if minAvailable != "" {
			v := intstr.Parse(minAvailable)
			b.Spec.MinAvailable = &v
		}
		if maxUnavailable != "" {
			v := intstr.Parse(maxUnavailable)
			b.Spec.MaxUnavailable = &v
		}
		return b
	}
	tests := []struct {
		name                    string
		pdb                     *policyv1.PodDisruptionBudget
		bound, unready, pending int
		allowed                 int
	}{
		{"minAvailable 50% of 2 rounds up to 1", pdb("50%", ""), 2, 0, 0, 1},
		{"minAvailable 50% of 3 rounds up to 2", pdb("50%", ""), 3, 0, 0, 1},
		{"minAvailable as a count", pdb("2", ""), 5, 0, 0, 3},
		{"minAvailable above the healthy pods", pdb("3", ""), 2, 0, 0, 0},
		{"maxUnavailable as a count", pdb("", "1"), 4, 0, 0, 1},
		{"maxUnavailable 25% of 5 rounds up to 2", pdb("", "25%"), 5, 0, 0, 2},
		{"unready pods are not healthy", pdb("", "1"), 4, 1, 0, 0},
		{"pending pods count as expected, never healthy", pdb("", "2"), 3, 0, 1, 1},
		{"maxUnavailable 0 allows nothing", pdb("", "0"), 3, 0, 0, 0},
		{"neither field allows every healthy pod", pdb("", ""), 3, 0, 0, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bound := pods(tc.bound, tc.unready)
			var pending []*corev1.Pod
			for i := 0; i < tc.pending; i++ {
				p := pods(1, 0)[0]
				p.Name = fmt.Sprintf("pending-%d", i)
				p.Spec.NodeName = ""
				pending = append(pending, p)
			}
			ix, err := newPDBIndex([]*policyv1.PodDisruptionBudget{tc.pdb}, bound, pending)
			require.NoError(t, err)
			require.Len(t, ix.list, 1)
			assert.Equal(t, tc.allowed, ix.list[0].allowed)
		})
	}
}

func TestPDBSelection(t *testing.T) {
	web := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-0", Namespace: "shop", Labels: map[string]string{"app": "web"}}}
	mk := func(name, ns string, sel *metav1.LabelSelector) *policyv1.PodDisruptionBudget {
		one := intstr.FromInt32(1)
		return &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: policyv1.PodDisruptionBudgetSpec{Selector: sel, MaxUnavailable: &one}}
	}
	ix, err := newPDBIndex([]*policyv1.PodDisruptionBudget{
		mk("same-ns", "shop", &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}),
		mk("other-ns", "default", &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}),
		mk("everything", "shop", &metav1.LabelSelector{}),
		mk("nothing", "shop", nil),
	}, []*corev1.Pod{web}, nil)
	require.NoError(t, err)
	var keys []string
	for _, l := range ix.matching(web) {
		keys = append(keys, l.key)
	}
	assert.Equal(t, []string{"shop/everything", "shop/same-ns"}, keys, "an empty selector selects every pod of the namespace, a nil one none")
}

func TestPDBUnhealthyPodEviction(t *testing.T) {
	ready := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "default", Labels: map[string]string{"app": "web"}}}
	unready := ready.DeepCopy()
	unready.Name = "b"
	unready.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}}
	two := intstr.FromInt32(2)
	spec := policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, MinAvailable: &two}
	ifHealthy := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}, Spec: spec}
	ix, err := newPDBIndex([]*policyv1.PodDisruptionBudget{ifHealthy}, []*corev1.Pod{ready, unready}, nil)
	require.NoError(t, err)
	l := ix.list[0]
	assert.Equal(t, 0, l.allowed)
	assert.True(t, l.needsBudget(unready), "IfHealthyBudget: an unready pod of an application below its budget needs a disruption")

	always := ifHealthy.DeepCopy()
	policy := policyv1.AlwaysAllow
	always.Spec.UnhealthyPodEvictionPolicy = &policy
	ix, err = newPDBIndex([]*policyv1.PodDisruptionBudget{always}, []*corev1.Pod{ready, unready}, nil)
	require.NoError(t, err)
	assert.False(t, ix.list[0].needsBudget(unready), "AlwaysAllow: unready pods are evicted freely")
	assert.True(t, ix.list[0].needsBudget(ready))
}

func TestBudgetNodes(t *testing.T) {
	tests := []struct {
		text  string
		total int
		want  int
		err   string
	}{
		{"", 5, 1, ""},
		{"10%", 5, 1, ""},
		{"10%", 10, 1, ""},
		{"10%", 11, 2, ""},
		{"0%", 11, 0, ""},
		{"100%", 7, 7, ""},
		{"3", 1, 3, ""},
		{"0", 10, 0, ""},
		{"-1", 10, 0, "neither a node count nor a percentage"},
		{"150%", 10, 0, "not a percentage"},
		{"x%", 10, 0, "not a percentage"},
	}
	for _, tc := range tests {
		got, err := budgetNodes(tc.text, tc.total)
		if tc.err != "" {
			require.Error(t, err, tc.text)
			assert.Contains(t, err.Error(), tc.err)
			continue
		}
		require.NoError(t, err, tc.text)
		assert.Equal(t, tc.want, got, "%q of %d", tc.text, tc.total)
	}
}
