package scheduling

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
	"github.com/nodeplan/nodeplan/typeindex"
)

// The domains a topology key can take: on a new node of each NodePool, and, for a spread
// group's skew, the domains a pod is eligible for.

// poolDomainValues lists the values key can take on a new node of the pool: from available
// offerings for zone and capacity type, names for instance type, else type and template
// labels.
func poolDomainValues(pool *poolState, key string) []string {
	seen := map[string]bool{}
	add := func(v string) {
		if r, ok := pool.reqs[key]; !ok || r.Has(v) {
			seen[v] = true
		}
	}
	for _, t := range pool.types {
		switch key {
		case requirements.LabelTopologyZone:
			for _, o := range t.Offerings {
				add(o.Zone)
			}
		case requirements.LabelCapacityType:
			for _, o := range t.Offerings {
				add(o.CapacityType)
			}
		case requirements.LabelInstanceType:
			add(t.it.Name)
		default:
			if v, ok := t.it.Labels[key]; ok {
				add(v)
			}
		}
	}
	if r, ok := pool.reqs[key]; ok && !r.IsComplement() {
		for _, v := range r.Values() {
			seen[v] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// eligibleDomains are the domains a spread group's skew is measured over for p: values of the
// key on existing nodes and NodePools p could use (taints when the group honours them), and
// allowed by p's node affinity (when honoured). Hostname spread is measured against a new,
// empty node, which is always possible, so its minimum is 0.
func (s *solver) eligibleDomains(p *podInfo, g *topology.Group) []string {
	if g.Key == requirements.LabelHostname {
		return nil
	}
	if d, ok := p.eligible[g]; ok {
		return d
	}
	classKey := g.ID() + "|" + eligibilityKey(p)
	if d, ok := s.topology.eligibleByClass[classKey]; ok {
		if p.eligible == nil {
			p.eligible = map[*topology.Group][]string{}
		}
		p.eligible[g] = d
		return d
	}
	seen := map[string]bool{}
	allowedByPod := func(v string) bool {
		if !g.HonorNodeAffinity {
			return true
		}
		for _, alt := range p.alternatives {
			if r, ok := alt[g.Key]; !ok || r.Has(v) {
				return true
			}
		}
		return false
	}
	for _, n := range s.existing {
		v, ok := n.labels[g.Key]
		if !ok || seen[v] {
			continue
		}
		if g.HonorTaints {
			if _, bad := p.untoleratedTaint(n.taints); bad {
				continue
			}
		}
		if allowedByPod(v) {
			seen[v] = true
		}
	}
	for i, pool := range s.pools {
		if g.HonorTaints {
			if _, bad := p.untoleratedTaint(pool.np.Taints); bad {
				continue
			}
		}
		for _, v := range s.topology.domains.Of(i, g.Key) {
			if seen[v] || !allowedByPod(v) {
				continue
			}
			// A domain counts only if the pool can launch a node for this pod there: a zone
			// whose offerings are all of another capacity type (say on-demand only, for a
			// spot-only pod) would otherwise stay empty and cap every other zone at maxSkew.
			if g.HonorNodeAffinity && !poolCanHost(pool, p, g.Key, v) {
				continue
			}
			seen[v] = true
		}
	}
	out := slices.Sorted(maps.Keys(seen))
	if p.eligible == nil {
		p.eligible = map[*topology.Group][]string{}
	}
	p.eligible[g] = out
	s.topology.eligibleByClass[classKey] = out
	return out
}

// eligibilityKey groups pods whose eligible domains are the same: same requirement
// alternatives and tolerations.
func eligibilityKey(p *podInfo) string {
	var b strings.Builder
	for _, alt := range p.alternatives {
		b.WriteString(alt.String())
		b.WriteString(" | ")
	}
	fmt.Fprint(&b, p.pod.Spec.Tolerations)
	return b.String()
}

// poolCanHost reports whether some type of the pool has an available offering for the pod
// (one of its alternatives) with key = value.
func poolCanHost(pool *poolState, p *podInfo, key, value string) bool {
	pin := requirements.New(key, corev1.NodeSelectorOpIn, value)
	for _, alt := range p.alternatives {
		if pool.reqs.Conflict(alt) != "" {
			continue
		}
		reqs := alt.Copy()
		reqs.Add(pin)
		for _, t := range pool.types {
			if typeindex.Allows(&t.Type, reqs) {
				return true
			}
		}
	}
	return false
}
