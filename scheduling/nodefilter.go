package scheduling

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
	"github.com/nodeplan/nodeplan/typeindex"
)

// decideNodeFilter settles, for a new node p joins, whether the group g counts the pods on it,
// when g counts only pods on nodes matching a filter and the node's requirements leave that
// open (some options match the filter, some do not): otherwise the count would depend on the
// type launched at the end. It keeps the side the node's cheapest option is on: it requires
// the filter, or excludes it by negating one of its requirements. It returns reqs itself when
// nothing needs settling.
func (s *solver) decideNodeFilter(g *topology.Group, reqs requirements.Requirements, options []*typeOption) requirements.Requirements {
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
		if anyTypeAllows(options, cand) {
			counting = cand
			break
		}
	}
	if counting == nil {
		return reqs // no option can match the filter: the node never counts, as recorded
	}
	if cheapest := cheapestAllowed(options, reqs); cheapest == nil || !matchesFilter(cheapest, filter) {
		if excluding := excludeFilter(reqs, filter, options); excluding != nil {
			return excluding
		}
	}
	return counting
}

// excludeFilter narrows reqs so that no alternative of filter can hold, negating one
// requirement per alternative (In, NotIn, Exists and DoesNotExist negate), keeping some
// option; nil when that is not possible.
func excludeFilter(reqs requirements.Requirements, filter []requirements.Requirements, options []*typeOption) requirements.Requirements {
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
			if anyTypeAllows(options, cand) {
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

func anyTypeAllows(options []*typeOption, reqs requirements.Requirements) bool {
	for _, t := range options {
		if typeindex.Allows(&t.Type, reqs) {
			return true
		}
	}
	return false
}

// cheapestAllowed is the option with the cheapest offering reqs allow, or nil.
func cheapestAllowed(options []*typeOption, reqs requirements.Requirements) *typeOption {
	c, found := cheapestChoice(options, reqs)
	if !found {
		return nil
	}
	return c.option
}

// matchesFilter reports whether a type's own requirements satisfy one of the alternatives.
func matchesFilter(t *typeOption, filter []requirements.Requirements) bool {
	for _, alt := range filter {
		if t.Reqs.Conflict(alt) == "" && typeindex.Allows(&t.Type, alt) {
			return true
		}
	}
	return false
}
