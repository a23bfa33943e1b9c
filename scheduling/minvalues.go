package scheduling

import (
	"fmt"

	"github.com/nodeplan/nodeplan/requirements"
)

// checkMinValues verifies that options keep at least minValues distinct values for each key
// the pool bounds. Under BestEffort a shortfall is allowed and returned as a note.
func (s *solver) checkMinValues(pool *poolState, options []*typeOption, reqs requirements.Requirements, explain bool) ([]string, rejection) {
	if len(pool.minValues) == 0 {
		return nil, ok
	}
	var notes []string
	for _, rule := range pool.minValues {
		n := distinctValues(rule.key, options, reqs)
		if n >= rule.min {
			continue
		}
		if s.opts.MinValuesPolicy == MinValuesBestEffort {
			notes = append(notes, fmt.Sprintf("minValues for %s relaxed: %d of %d distinct values left (BestEffort)", rule.key, n, rule.min))
			continue
		}
		return nil, reject(explain, ConstraintNodeAffinity, checkOptions, "minValues %d for %s cannot be met: only %d distinct values fit the pod", rule.min, rule.key, n)
	}
	return notes, ok
}

func distinctValues(key string, options []*typeOption, reqs requirements.Requirements) int {
	seen := map[string]bool{}
	r, constrained := reqs[key]
	for _, t := range options {
		switch key {
		case requirements.LabelInstanceType:
			seen[t.it.Name] = true
		case requirements.LabelTopologyZone:
			for _, o := range t.Offerings {
				if !constrained || r.Has(o.Zone) {
					seen[o.Zone] = true
				}
			}
		case requirements.LabelCapacityType:
			for _, o := range t.Offerings {
				if !constrained || r.Has(o.CapacityType) {
					seen[o.CapacityType] = true
				}
			}
		default:
			if v, ok := t.it.Labels[key]; ok && (!constrained || r.Has(v)) {
				seen[v] = true
			}
		}
	}
	return len(seen)
}
