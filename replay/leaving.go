package replay

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/scheduling"
)

// takeOut starts disrupting a node (a command's candidate, an interrupted node, a start node
// Karpenter was deleting): it is cordoned, and its pods are planned until it is gone.
func (s *sim) takeOut(n *nodeRec) {
	n.disrupting = true
	s.change.Cordon = append(s.change.Cordon, n.Name)
	s.markLeaving(n.Name)
}

// markLeaving notes a node the replay is disrupting (a command's candidate, or interrupted):
// provisioning plans room for its pods until it is gone.
func (s *sim) markLeaving(name string) {
	if !slices.Contains(s.leaving, name) {
		s.leaving = append(s.leaving, name)
		slices.Sort(s.leaving)
	}
}

// leavingPods are the pods (namespace/name) still running on nodes the replay is disrupting
// that Karpenter's provisioner plans again: all but those a fully blocking
// PodDisruptionBudget (maxUnavailable 0 or 0%, minAvailable 100%) or do-not-disrupt keeps
// in place (its GetCurrentlyReschedulablePods).
func (s *sim) leavingPods() []string {
	var keys []string
	for _, name := range s.leaving {
		en := s.clusterNode(name)
		if en == nil {
			continue
		}
		for _, p := range en.Pods {
			r := s.pods[podKeyOf(p.Namespace, p.Name)]
			if r == nil || r.phase > podRunning || r.node != name || p.Annotations[disruption.AnnotationDoNotDisrupt] == "true" || s.fullyBlocked(p) {
				continue
			}
			keys = append(keys, r.key)
		}
	}
	return keys
}

// fullyBlocked reports whether a PodDisruptionBudget that can never allow an eviction
// selects the pod.
func (s *sim) fullyBlocked(p *corev1.Pod) bool {
	for _, pdb := range s.base.PodDisruptionBudgets {
		blocking := (pdb.Spec.MaxUnavailable != nil && (pdb.Spec.MaxUnavailable.Type == intstr.Int && pdb.Spec.MaxUnavailable.IntVal == 0 ||
			pdb.Spec.MaxUnavailable.Type == intstr.String && pdb.Spec.MaxUnavailable.StrVal == "0%")) ||
			(pdb.Spec.MinAvailable != nil && pdb.Spec.MinAvailable.Type == intstr.String && pdb.Spec.MinAvailable.StrVal == "100%")
		if blocking && s.pdbSelects(pdb.Namespace, pdb.Spec.Selector, p) {
			return true
		}
	}
	return false
}

// pendingOnly is a plan made with the leaving pods, less their placements: its new nodes
// are all launched (some only for leaving pods), and only the pending pods are bound.
func pendingOnly(plan scheduling.Plan, leaving []string) scheduling.Plan {
	gone := make(map[string]bool, len(leaving))
	for _, k := range leaving {
		gone[k] = true
	}
	keep := func(keys []string) []string {
		return slices.DeleteFunc(slices.Clone(keys), func(k string) bool { return gone[k] })
	}
	claims := slices.Clone(plan.NodeClaims)
	for i := range claims {
		claims[i].Pods = keep(claims[i].Pods)
	}
	var existing []scheduling.ExistingPlacement
	for _, e := range plan.ExistingNodes {
		if e.Pods = keep(e.Pods); len(e.Pods) > 0 {
			existing = append(existing, e)
		}
	}
	plan.NodeClaims, plan.ExistingNodes = claims, existing
	plan.Placements = slices.DeleteFunc(slices.Clone(plan.Placements), func(pl scheduling.Placement) bool {
		return gone[podKeyOf(pl.Pod.Namespace, pl.Pod.Name)]
	})
	plan.Unschedulable = slices.DeleteFunc(slices.Clone(plan.Unschedulable), func(u scheduling.Unschedulable) bool { return gone[u.Pod] })
	plan.Summary.Pods, plan.Summary.Placed = len(plan.Placements), 0
	for _, pl := range plan.Placements {
		if pl.Node != "" {
			plan.Summary.Placed++
		}
	}
	return plan
}
