package scheduling

import (
	"maps"
	"slices"

	"github.com/nodeplan/nodeplan/requirements"
)

// launchableDomains lists the zones where some NodePool has an offering its requirements
// allow, or nil when no NodePool can launch anything. It depends on the prepared NodePools
// alone (their requirements and types, which solves never change), so a Cluster works it out
// once for all its plans.
func launchableDomains(pools []*poolState) map[string][]string {
	zones := map[string]bool{}
	for _, pool := range pools {
		typeValues(zones, pool.types, requirements.LabelTopologyZone, pool.reqs[requirements.LabelTopologyZone])
	}
	if len(zones) == 0 {
		return nil
	}
	return map[string][]string{requirements.LabelTopologyZone: slices.Sorted(maps.Keys(zones))}
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
