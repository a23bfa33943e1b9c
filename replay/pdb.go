package replay

import (
	"math"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// evictable returns the pods, in order, that the eviction API lets go now: each
// PodDisruptionBudget selecting a pod must allow one more disruption (its healthy pods
// above what minAvailable or maxUnavailable requires); every eviction uses one up. A pod
// not running counts as unhealthy and is always evictable (unhealthy pods are not
// protected while the budget is already broken, as with policy AlwaysAllow and
// IfHealthyBudget for pods that are not ready).
func (s *sim) evictable(pods []*podRec) []*podRec {
	type budget struct {
		namespace string
		selector  labels.Selector
		allowed   int
	}
	var budgets []*budget
	for _, pdb := range s.base.PodDisruptionBudgets {
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil {
			continue // Decide rejects the input before a drain starts
		}
		ns := pdb.Namespace
		if ns == "" {
			ns = "default"
		}
		b := &budget{namespace: ns, selector: sel}
		expected, healthy := 0, 0
		for _, r := range s.pods {
			if r.phase > podRunning || r.pod.Namespace != ns || !sel.Matches(labels.Set(r.pod.Labels)) {
				continue
			}
			expected++
			if r.phase == podRunning {
				healthy++
			}
		}
		desired := 0
		switch {
		case pdb.Spec.MinAvailable != nil:
			desired = scaledUp(pdb.Spec.MinAvailable, expected)
		case pdb.Spec.MaxUnavailable != nil:
			desired = expected - scaledUp(pdb.Spec.MaxUnavailable, expected)
		}
		b.allowed = healthy - desired
		budgets = append(budgets, b)
	}
	var out []*podRec
	for _, r := range pods {
		if r.phase != podRunning {
			out = append(out, r)
			continue
		}
		var matching []*budget
		ok := true
		for _, b := range budgets {
			if b.namespace == r.pod.Namespace && b.selector.Matches(labels.Set(r.pod.Labels)) {
				matching = append(matching, b)
				ok = ok && b.allowed > 0
			}
		}
		if !ok {
			continue
		}
		for _, b := range matching {
			b.allowed--
		}
		out = append(out, r)
	}
	return out
}

// scaledUp is an int or a percentage of total, rounded up, as the disruption controller
// reads minAvailable and maxUnavailable.
func scaledUp(v *intstr.IntOrString, total int) int {
	if v.Type == intstr.Int {
		return int(v.IntVal)
	}
	n, err := intstr.GetScaledValueFromIntOrPercent(v, total, true)
	if err != nil {
		return math.MaxInt32
	}
	return n
}

// pdbSelects reports whether a PodDisruptionBudget of the namespace and selector covers the
// pod (an empty namespace is default; a selector that does not parse selects nothing).
func (s *sim) pdbSelects(namespace string, selector *metav1.LabelSelector, p *corev1.Pod) bool {
	if namespace == "" {
		namespace = "default"
	}
	if namespace != p.Namespace {
		return false
	}
	sel, err := metav1.LabelSelectorAsSelector(selector)
	return err == nil && sel.Matches(labels.Set(p.Labels))
}
