package check

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/nodeplan/nodeplan/disruption"
)

// pdbBudget is a PodDisruptionBudget as the disruption controller evaluates it from its spec
// and the cluster's pods, with the disruptions the decisions' commands have used so far.
type pdbBudget struct {
	key       string
	namespace string
	selector  labels.Selector
	// alwaysAllowUnhealthy is unhealthyPodEvictionPolicy AlwaysAllow.
	alwaysAllowUnhealthy bool
	healthy, desired     int
	remaining            int
}

type pdbBudgets []*pdbBudget

// newPDBBudgets evaluates every budget: expected pods are those it selects, bound or pending
// and not finished; healthy ones are bound, running, ready and not being deleted. A budget
// whose selector or numbers cannot be read allows nothing.
func newPDBBudgets(in disruption.Input) pdbBudgets {
	var out pdbBudgets
	for _, pdb := range in.PodDisruptionBudgets {
		if pdb == nil {
			continue
		}
		ns := pdb.Namespace
		if ns == "" {
			ns = corev1.NamespaceDefault
		}
		b := &pdbBudget{key: ns + "/" + pdb.Name, namespace: ns, selector: labels.Nothing()}
		if sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector); err == nil {
			b.selector = sel
		}
		b.alwaysAllowUnhealthy = pdb.Spec.UnhealthyPodEvictionPolicy != nil && *pdb.Spec.UnhealthyPodEvictionPolicy == policyv1.AlwaysAllow
		expected := 0
		count := func(p *corev1.Pod, bound bool) {
			if p == nil || terminal(p) || !b.selects(p) {
				return
			}
			expected++
			if bound && healthy(p) {
				b.healthy++
			}
		}
		for _, n := range in.Nodes {
			if n != nil {
				for _, p := range n.Pods {
					count(p, true)
				}
			}
		}
		for _, p := range in.PendingPods {
			count(p, false)
		}
		var err error
		switch {
		case pdb.Spec.MinAvailable != nil:
			b.desired, err = intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MinAvailable, expected, true)
		case pdb.Spec.MaxUnavailable != nil:
			var unavailable int
			unavailable, err = intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MaxUnavailable, expected, true)
			b.desired = max(0, expected-unavailable)
		}
		if err == nil {
			b.remaining = max(0, b.healthy-b.desired)
		}
		out = append(out, b)
	}
	return out
}

func (b *pdbBudget) selects(p *corev1.Pod) bool {
	ns := p.Namespace
	if ns == "" {
		ns = corev1.NamespaceDefault
	}
	return ns == b.namespace && b.selector.Matches(labels.Set(p.Labels))
}

// needsBudget reports whether evicting p takes one of the budget's disruptions (the eviction
// API's rule): a healthy pod always does, an unhealthy one unless the policy lets unhealthy
// pods go or the application is already at its desired count.
func (b *pdbBudget) needsBudget(p *corev1.Pod) bool {
	return healthy(p) || (!b.alwaysAllowUnhealthy && b.healthy < b.desired)
}

func (bs pdbBudgets) matching(p *corev1.Pod) []*pdbBudget {
	var out []*pdbBudget
	for _, b := range bs {
		if b.selects(p) {
			out = append(out, b)
		}
	}
	return out
}

// take checks a graceful command against the budgets, candidate by candidate as Karpenter
// admits them: every budget one of a candidate's evicted pods needs must allow at least one
// more disruption after the earlier candidates and commands, and no evicted pod may be
// selected by two budgets (the eviction API refuses it). The command's evictions are then
// used up.
func (bs pdbBudgets) take(name string, cmd disruption.Command, where map[string]string, pods map[string]*corev1.Pod, fail func(pod, node, format string, args ...any)) {
	used := map[*pdbBudget]int{}
	for _, c := range cmd.Candidates {
		uses := map[*pdbBudget]int{}
		for _, k := range cmd.Evictions {
			p := pods[k]
			if p == nil || where[k] != c.Node {
				continue
			}
			matched := bs.matching(p)
			if len(matched) > 1 {
				fail(k, c.Node, "%s evicts the pod, which PodDisruptionBudgets %s and %s both select: the eviction API refuses it", name, matched[0].key, matched[1].key)
				continue
			}
			if len(matched) == 1 && matched[0].needsBudget(p) {
				uses[matched[0]]++
			}
		}
		for _, b := range bs {
			if uses[b] > 0 && b.remaining-used[b] < 1 {
				fail("", c.Node, "%s evicts %d pod(s) of PodDisruptionBudget %s, which allows %s", name, uses[b], b.key, allows(b.remaining-used[b]))
			}
		}
		for b, n := range uses {
			used[b] += n
		}
	}
	for b, n := range used {
		b.remaining = max(0, b.remaining-n)
	}
}

// use takes a forceful command's evictions from the budgets without checking them: expiration
// does not wait for budgets, the eviction API paces it.
func (bs pdbBudgets) use(cmd disruption.Command, pods map[string]*corev1.Pod) {
	for _, k := range cmd.Evictions {
		if p := pods[k]; p != nil {
			for _, b := range bs.matching(p) {
				if b.needsBudget(p) {
					b.remaining = max(0, b.remaining-1)
				}
			}
		}
	}
}

func allows(n int) string {
	if n <= 0 {
		return "no disruption now"
	}
	return fmt.Sprintf("%d disruption(s) now", n)
}

// healthy reports whether a bound pod counts as healthy for a budget: running (pods from
// manifests carry no status and count as running), ready and not being deleted.
func healthy(p *corev1.Pod) bool {
	if p.DeletionTimestamp != nil || terminal(p) || p.Status.Phase == corev1.PodPending {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return true
}
