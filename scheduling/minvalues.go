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

// distinctValues counts the values key takes over the options, as far as reqs allows (the
// options' names always are: options meet reqs).
func distinctValues(key string, options []*typeOption, reqs requirements.Requirements) int {
	seen := map[string]bool{}
	typeValues(seen, options, key, reqs[key])
	return len(seen)
}
