package topology

import (
	"maps"
	"slices"

	"github.com/nodeplan/nodeplan/requirements"
)

// eligible returns the domains spread group g's skew is measured over for the pod m: values of
// the key on existing nodes and NodePools the pod could use (taints when the group honours
// them), and allowed by the pod's node affinity (when honoured). Hostname spread is measured
// against a new, empty node, which is always possible, so its minimum is 0.
func (s *State) eligible(m *Member, g *Group) []string {
	if g.Key == requirements.LabelHostname {
		return nil
	}
	if d, ok := m.eligible[g]; ok {
		return d
	}
	classKey := g.ID() + "|" + m.Host.HostClass()
	if d, ok := s.eligibleByClass[classKey]; ok {
		if m.eligible == nil {
			m.eligible = map[*Group][]string{}
		}
		m.eligible[g] = d
		return d
	}
	seen := map[string]bool{}
	alternatives := m.Host.NodeAffinity()
	allowedByPod := func(v string) bool {
		if !g.HonorNodeAffinity {
			return true
		}
		for _, alt := range alternatives {
			if r, ok := alt[g.Key]; !ok || r.Has(v) {
				return true
			}
		}
		return false
	}
	c := s.cluster
	for i := 0; i < c.Nodes(); i++ {
		n := c.Node(i)
		v, ok := n.Labels[g.Key]
		if !ok || seen[v] {
			continue
		}
		if g.HonorTaints && !m.Host.Tolerates(n.Taints) {
			continue
		}
		if allowedByPod(v) {
			seen[v] = true
		}
	}
	for pool := 0; pool < c.Pools(); pool++ {
		if g.HonorTaints && !m.Host.Tolerates(c.PoolTaints(pool)) {
			continue
		}
		for _, v := range s.domains.Of(pool, g.Key) {
			if seen[v] || !allowedByPod(v) {
				continue
			}
			// A domain counts only if the pool can launch a node for this pod there: a zone
			// whose offerings are all of another capacity type (say on-demand only, for a
			// spot-only pod) would otherwise stay empty and cap every other zone at maxSkew.
			if g.HonorNodeAffinity && !c.PoolCanHost(pool, alternatives, g.Key, v) {
				continue
			}
			seen[v] = true
		}
	}
	out := slices.Sorted(maps.Keys(seen))
	if m.eligible == nil {
		m.eligible = map[*Group][]string{}
	}
	m.eligible[g] = out
	s.eligibleByClass[classKey] = out
	return out
}
