package topology

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/requirements"
)

// SettleFilter decides, for a new node a pod counted by g joins, whether g counts the pods on
// it, when g counts only pods on nodes matching a filter and the node's requirements reqs
// leave that open (some of its options match the filter, some do not): otherwise the count
// would depend on the type launched at the end. launchable reports whether some option of the
// node can launch under the given requirements; cheapestMatches whether the node's cheapest
// option under reqs matches the filter (false when there is none). SettleFilter keeps the side
// the cheapest option is on: it requires the filter, or excludes it by negating one of its
// requirements. It returns reqs itself when nothing needs settling.
func (g *Group) SettleFilter(reqs requirements.Requirements, launchable func(requirements.Requirements) bool, cheapestMatches func() bool) requirements.Requirements {
	filter := g.NodeFilter()
	if filter == nil || g.CountsOnNew(reqs) {
		return reqs
	}
	var counting requirements.Requirements
	for _, alt := range filter {
		if reqs.Conflict(alt) != "" {
			continue
		}
		cand := reqs.Copy()
		cand.AddAll(alt)
		if launchable(cand) {
			counting = cand
			break
		}
	}
	if counting == nil {
		return reqs // no option can match the filter: the node never counts, as recorded
	}
	if !cheapestMatches() {
		if excluding := excludeFilter(reqs, filter, launchable); excluding != nil {
			return excluding
		}
	}
	return counting
}

// excludeFilter narrows reqs so that no alternative of filter can hold, negating one
// requirement per alternative (In, NotIn, Exists and DoesNotExist negate), keeping the node
// launchable; nil when that is not possible.
func excludeFilter(reqs requirements.Requirements, filter []requirements.Requirements, launchable func(requirements.Requirements) bool) requirements.Requirements {
	out := reqs.Copy()
	for _, alt := range filter {
		if out.Conflict(alt) != "" {
			continue // already excluded
		}
		negated := false
		for _, key := range alt.Keys() {
			neg := negation(alt[key])
			if neg == nil {
				continue
			}
			cand := out.Copy()
			cand.Add(neg)
			if launchable(cand) {
				out, negated = cand, true
				break
			}
		}
		if !negated {
			return nil
		}
	}
	return out
}

func negation(r *requirements.Requirement) *requirements.Requirement {
	key := r.Key
	switch r.Operator() {
	case corev1.NodeSelectorOpIn:
		return requirements.New(key, corev1.NodeSelectorOpNotIn, r.Values()...)
	case corev1.NodeSelectorOpNotIn:
		return requirements.New(key, corev1.NodeSelectorOpIn, r.Values()...)
	case corev1.NodeSelectorOpExists:
		return requirements.New(key, corev1.NodeSelectorOpDoesNotExist)
	case corev1.NodeSelectorOpDoesNotExist:
		return requirements.New(key, corev1.NodeSelectorOpExists)
	}
	return nil
}
