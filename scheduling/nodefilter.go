package scheduling

import (
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
	"github.com/nodeplan/nodeplan/typeindex"
)

// settleNodeFilter is topology's Group.SettleFilter for a new node with these options.
func settleNodeFilter(g *topology.Group, reqs requirements.Requirements, options []*typeOption) requirements.Requirements {
	if g.NodeFilter() == nil {
		return reqs
	}
	launchable := func(r requirements.Requirements) bool {
		for _, t := range options {
			if typeindex.Allows(&t.Type, r) {
				return true
			}
		}
		return false
	}
	cheapestMatches := func() bool {
		c, found := cheapestChoice(options, reqs)
		return found && matchesFilter(c.option, g.NodeFilter())
	}
	return g.SettleFilter(reqs, launchable, cheapestMatches)
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
