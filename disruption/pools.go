package disruption

import (
	"fmt"
	"slices"
	"sort"

	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduling"
)

// Pools are a Decide input's NodePools prepared once, for a caller that decides again and
// again over the same NodePools and catalog (a replay decides every 10 s). Give them as
// Input.Pools: Decide then skips preparing the NodePools over the whole instance-type
// catalog, while the NodePools, DaemonSets and resources are those they were prepared from,
// and prepares them itself otherwise. Decisions are the same with or without them. A Pools
// is never modified and may be shared by goroutines.
type Pools struct {
	// given are the NodePools as the caller gave them; facts what Decide derives from them.
	given    []*scheduling.NodePool
	facts    *poolFacts
	prepared *scheduling.Pools
}

// poolFacts is what Decide reads from its NodePools, derived from them alone: made once per
// Pools, or per Decide without. Never modified once made.
type poolFacts struct {
	// normalized are the NodePools as Decide reads them, sorted by name.
	normalized []*scheduling.NodePool
	pools      map[string]*scheduling.NodePool
	poolReqs   map[string]requirements.Requirements
	// catalog indexes each NodePool's instance types by name.
	catalog map[string]map[string]*instancetype.InstanceType
	// poolNames holds every NodePool name (for sorted iteration).
	poolNames map[string]string
	// offers prices new capacity for the bounds.
	offers *offerIndex
}

func newPoolFacts(normalized []*scheduling.NodePool) *poolFacts {
	f := &poolFacts{
		normalized: normalized,
		pools:      make(map[string]*scheduling.NodePool, len(normalized)),
		poolReqs:   make(map[string]requirements.Requirements, len(normalized)),
		catalog:    make(map[string]map[string]*instancetype.InstanceType, len(normalized)),
		poolNames:  make(map[string]string, len(normalized)),
	}
	for _, np := range normalized {
		f.pools[np.Name] = np
		f.poolNames[np.Name] = np.Name
		reqs := requirements.Requirements{}
		for _, r := range np.Requirements {
			reqs.Add(requirements.New(r.Key, r.Operator, r.Values...))
		}
		f.poolReqs[np.Name] = reqs
		types := map[string]*instancetype.InstanceType{}
		for _, it := range np.InstanceTypes {
			if it != nil {
				types[it.Name] = it
			}
		}
		f.catalog[np.Name] = types
	}
	f.offers = newOfferIndex(normalized, f.poolReqs)
	return f
}

// PreparePools prepares in's NodePools with its DaemonSets. The resources they know are those
// of the NodePools' instance types and the DaemonSets: a pod or node asking for another
// resource makes Decide prepare the NodePools again, as it does without Pools.
func PreparePools(in Input) (*Pools, error) {
	normalized, err := normalizePools(in.NodePools)
	if err != nil {
		return nil, err
	}
	prepared, err := scheduling.PreparePools(scheduling.Input{NodePools: normalized, DaemonSets: sortedDaemonSets(in.DaemonSets)})
	if err != nil {
		return nil, err
	}
	return &Pools{given: slices.Clone(in.NodePools), facts: newPoolFacts(normalized), prepared: prepared}, nil
}

// factsFor returns what Decide reads from nps and their preparation, p's when p was made from
// the same NodePool objects (Input objects are never modified).
func (p *Pools) factsFor(nps []*scheduling.NodePool) (*poolFacts, *scheduling.Pools, error) {
	if p != nil && slices.Equal(p.given, nps) {
		return p.facts, p.prepared, nil
	}
	normalized, err := normalizePools(nps)
	if err != nil {
		return nil, nil, err
	}
	return newPoolFacts(normalized), nil, nil
}

// normalizePools checks the NodePools are given once each and fills their defaults; they are
// sorted by name, the order Decide reads them in.
func normalizePools(nps []*scheduling.NodePool) ([]*scheduling.NodePool, error) {
	out := make([]*scheduling.NodePool, 0, len(nps))
	seen := map[string]bool{}
	for i, np := range nps {
		if np == nil {
			return nil, fmt.Errorf("nodePools[%d] is nil", i)
		}
		if seen[np.Name] {
			return nil, fmt.Errorf("nodepool %q is given twice", np.Name)
		}
		seen[np.Name] = true
		np, err := normalizePool(np)
		if err != nil {
			return nil, err
		}
		out = append(out, np)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
