package scheduling

import (
	"slices"

	"github.com/nodeplan/nodeplan/nodetemplate"
)

// launchableDomains is nodetemplate.LaunchableDomains of the prepared pools.
func launchableDomains(pools []*poolState) map[string][]string {
	return nodetemplate.LaunchableDomains(len(pools), func(i int) *nodetemplate.Template { return pools[i].Template })
}

// topologyDomains is the plan's copy of the launchable domains: a plan's maps and slices are
// its caller's.
func (prep *prepared) topologyDomains() map[string][]string {
	if prep.launchable == nil {
		return nil
	}
	out := make(map[string][]string, len(prep.launchable))
	for key, domains := range prep.launchable {
		out[key] = slices.Clone(domains)
	}
	return out
}
