package disruption

import (
	"fmt"
	"slices"
	"sort"

	"github.com/nodeplan/nodeplan/scheduling"
)

// Pools are a Decide input's NodePools prepared once, for a caller that decides again and
// again over the same NodePools and catalog (a replay decides every 10 s). Give them as
// Input.Pools: Decide then skips preparing the NodePools over the whole instance-type
// catalog, while the NodePools, DaemonSets and resources are those they were prepared from,
// and prepares them itself otherwise. Decisions are the same with or without them. A Pools
// is never modified and may be shared by goroutines.
type Pools struct {
	// given are the NodePools as the caller gave them, normalized as Decide reads them.
	given, normalized []*scheduling.NodePool
	prepared          *scheduling.Pools
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
	return &Pools{given: slices.Clone(in.NodePools), normalized: normalized, prepared: prepared}, nil
}

// normalizedFor returns the NodePools Decide reads for nps and their preparation, p's when p was
// made from the same NodePool objects (Input objects are never modified).
func (p *Pools) normalizedFor(nps []*scheduling.NodePool) ([]*scheduling.NodePool, *scheduling.Pools, error) {
	if p != nil && slices.Equal(p.given, nps) {
		return p.normalized, p.prepared, nil
	}
	normalized, err := normalizePools(nps)
	return normalized, nil, err
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
