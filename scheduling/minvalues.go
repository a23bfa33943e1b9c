package scheduling

import (
	"fmt"

	"github.com/nodeplan/nodeplan/nodetemplate"
	"github.com/nodeplan/nodeplan/requirements"
)

// checkMinValues verifies that options keep at least minValues distinct values for each key
// the pool bounds. Under BestEffort a shortfall is allowed and returned as a note.
func (s *solver) checkMinValues(pool *poolState, options []*nodetemplate.Option, reqs requirements.Requirements, explain bool) ([]string, rejection) {
	if len(pool.MinValues) == 0 {
		return nil, ok
	}
	var notes []string
	for _, rule := range pool.MinValues {
		n := nodetemplate.DistinctValues(rule.Key, options, reqs)
		if n >= rule.Min {
			continue
		}
		if s.opts.MinValuesPolicy == MinValuesBestEffort {
			notes = append(notes, fmt.Sprintf("minValues for %s relaxed: %d of %d distinct values left (BestEffort)", rule.Key, n, rule.Min))
			continue
		}
		return nil, reject(explain, ConstraintNodeAffinity, checkOptions, "minValues %d for %s cannot be met: only %d distinct values fit the pod", rule.Min, rule.Key, n)
	}
	return notes, ok
}
