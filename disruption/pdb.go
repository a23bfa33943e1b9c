package disruption

import (
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// pdbLimit is a PodDisruptionBudget evaluated the way the disruption controller does, from
// its spec and the pods it selects: how many healthy pods it requires and how many may be
// evicted now. remaining goes down as commands of this decision evict its pods.
type pdbLimit struct {
	key       string // namespace/name
	namespace string
	selector  labels.Selector
	// alwaysAllowUnhealthy is unhealthyPodEvictionPolicy: AlwaysAllow.
	alwaysAllowUnhealthy bool
	expected, healthy    int
	desired              int
	allowed              int
	remaining            int
}

type pdbIndex struct {
	list        []*pdbLimit
	byNamespace map[string][]*pdbLimit
}

// newPDBIndex evaluates the budgets against every pod of the cluster: bound pods (healthy
// when running, ready and not being deleted) and pending pods (never healthy).
func newPDBIndex(pdbs []*policyv1.PodDisruptionBudget, bound, pending []*corev1.Pod) (*pdbIndex, error) {
	ix := &pdbIndex{byNamespace: map[string][]*pdbLimit{}}
	for i, pdb := range pdbs {
		if pdb == nil {
			return nil, fmt.Errorf("podDisruptionBudgets[%d] is nil", i)
		}
		l := &pdbLimit{key: objectKey(pdb.Namespace, pdb.Name), namespace: namespaceOf(pdb.Namespace)}
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil {
			return nil, fmt.Errorf("poddisruptionbudget %s: selector: %w", l.key, err)
		}
		l.selector = sel
		l.alwaysAllowUnhealthy = pdb.Spec.UnhealthyPodEvictionPolicy != nil && *pdb.Spec.UnhealthyPodEvictionPolicy == policyv1.AlwaysAllow
		ix.list = append(ix.list, l)
	}
	sort.SliceStable(ix.list, func(i, j int) bool { return ix.list[i].key < ix.list[j].key })
	for i := 1; i < len(ix.list); i++ {
		if ix.list[i].key == ix.list[i-1].key {
			return nil, fmt.Errorf("poddisruptionbudget %s is given twice", ix.list[i].key)
		}
	}
	if len(ix.list) == 0 {
		return ix, nil // no budget counts a pod: a replay's cluster has thousands to pass over
	}
	for _, l := range ix.list {
		ix.byNamespace[l.namespace] = append(ix.byNamespace[l.namespace], l)
	}
	count := func(pods []*corev1.Pod, bound bool) {
		for _, p := range pods {
			if p == nil || isTerminal(p) {
				continue
			}
			for _, l := range ix.matching(p) {
				l.expected++
				if bound && podHealthy(p) {
					l.healthy++
				}
			}
		}
	}
	count(bound, true)
	count(pending, false)
	specs := map[string]*policyv1.PodDisruptionBudget{}
	for _, pdb := range pdbs {
		specs[objectKey(pdb.Namespace, pdb.Name)] = pdb
	}
	for _, l := range ix.list {
		spec := specs[l.key].Spec
		var err error
		switch {
		case spec.MinAvailable != nil:
			l.desired, err = scaled(spec.MinAvailable, l.expected)
		case spec.MaxUnavailable != nil:
			var unavailable int
			unavailable, err = scaled(spec.MaxUnavailable, l.expected)
			l.desired = max(0, l.expected-unavailable)
		}
		if err != nil {
			return nil, fmt.Errorf("poddisruptionbudget %s: %w", l.key, err)
		}
		l.allowed = max(0, l.healthy-l.desired)
		l.remaining = l.allowed
	}
	return ix, nil
}

func scaled(v *intstr.IntOrString, total int) (int, error) {
	n, err := intstr.GetScaledValueFromIntOrPercent(v, total, true)
	if err != nil {
		return 0, err
	}
	if n < 0 {
		return 0, fmt.Errorf("%s must not be negative", v.String())
	}
	return n, nil
}

// matching returns the budgets whose selector picks the pod, in key order.
func (ix *pdbIndex) matching(p *corev1.Pod) []*pdbLimit {
	var out []*pdbLimit
	set := labels.Set(p.Labels)
	for _, l := range ix.byNamespace[namespaceOf(p.Namespace)] {
		if l.selector.Matches(set) {
			out = append(out, l)
		}
	}
	return out
}

// needsBudget reports whether evicting p takes one of l's disruptions: a healthy pod always
// does; an unhealthy one only when the policy is IfHealthyBudget and the application is
// already below its desired count.
func (l *pdbLimit) needsBudget(p *corev1.Pod) bool {
	if podHealthy(p) {
		return true
	}
	return !l.alwaysAllowUnhealthy && l.healthy < l.desired
}

func (l *pdbLimit) describe() string {
	return fmt.Sprintf("PodDisruptionBudget %s allows %d disruption(s) now (%d healthy of %d pods, %d required)", l.key, l.remaining, l.healthy, l.expected, l.desired)
}

// podHealthy reports whether a pod bound to a node is running: not finished, not being
// deleted, not pending and not reported unready. Pods without status (from manifests) are
// taken as running and ready.
func podHealthy(p *corev1.Pod) bool {
	if p.DeletionTimestamp != nil || isTerminal(p) || p.Status.Phase == corev1.PodPending {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return true
}

func isTerminal(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

func namespaceOf(ns string) string {
	if ns == "" {
		return corev1.NamespaceDefault
	}
	return ns
}

func objectKey(ns, name string) string { return namespaceOf(ns) + "/" + name }

func podKey(p *corev1.Pod) string { return objectKey(p.Namespace, p.Name) }
