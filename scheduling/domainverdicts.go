package scheduling

import (
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

// On a planned node, whether the pod's topology rules allow a domain of a key other than the
// hostname does not depend on the node: only on the pod, the counts and the solver's loosening.
// A pod scanning thousands of planned nodes therefore asks each question once per domain, and
// skips, without trying them, the nodes already settled in a domain it may not take.

// domainVerdicts memoises firstViolated on planned nodes for the pod being placed. It is valid
// while the counts (epoch), the pod's relaxation and the loosening it was computed under hold.
type domainVerdicts struct {
	pod                        *podInfo
	epoch, softRelaxed         int
	loose, seedsAllowed, valid bool
	entries                    []domainVerdict
	// keys are the pod's rule keys other than the hostname; required[i] says a node must carry
	// keys[i] (spread or affinity on it).
	keys     []string
	required []bool
}

type domainVerdict struct {
	key, value string
	violated   *topology.Group
}

// verdicts returns the memo for p, started afresh when anything it depends on changed.
func (s *solver) verdicts(p *podInfo) *domainVerdicts {
	v, ts := &s.domainMemo, s.topology
	if v.valid && v.pod == p && v.epoch == ts.rules.Epoch() && v.softRelaxed == p.softRelaxed && v.loose == p.loose && v.seedsAllowed == ts.rules.SeedsAllowed() {
		return v
	}
	*v = domainVerdicts{pod: p, epoch: ts.rules.Epoch(), softRelaxed: p.softRelaxed, loose: p.loose, seedsAllowed: ts.rules.SeedsAllowed(), valid: true,
		entries: v.entries[:0], keys: v.keys[:0], required: v.required[:0]}
	active := p.activeTerms()
	for _, k := range p.ruleKeys(active) {
		if k != requirements.LabelHostname {
			v.keys = append(v.keys, k)
			v.required = append(v.required, topology.RequiresKey(active, k))
		}
	}
	return v
}

// violated is firstViolated for domain value of key on a planned node.
func (s *solver) plannedViolated(p *podInfo, active []topology.Term, key, value string) *topology.Group {
	v := s.verdicts(p)
	for _, e := range v.entries {
		if e.key == key && e.value == value {
			return e.violated
		}
	}
	g := s.firstViolated(p, active, key, value, nodeView{})
	v.entries = append(v.entries, domainVerdict{key: key, value: value, violated: g})
	return g
}

// plannedNodeRefuses reports, without trying it, that planned node n cannot take p because
// of a topology rule: for some key, the domains n can still be in are all forbidden to p, and
// n is settled in one of them or p needs a domain of that key. tryNewNode would refuse it at
// checkTopology or earlier.
func (s *solver) plannedNodeRefuses(p *podInfo, n *newNode) bool {
	if len(p.terms) == 0 && len(p.matched) == 0 {
		return false
	}
	v := s.verdicts(p)
	if len(v.keys) == 0 {
		return false
	}
	active := p.activeTerms()
	for i, key := range v.keys {
		r, constrained := n.reqs[key]
		if constrained && r.Len() == 1 {
			single, _ := r.Any()
			if s.plannedViolated(p, active, key, single) != nil {
				return true
			}
			continue
		}
		if !v.required[i] {
			continue // the pod's own requirements may leave the node no value: then no rule applies
		}
		refused := true
		for _, d := range s.topology.domains.Of(n.pool.index, key) {
			if (!constrained || r.Has(d)) && s.plannedViolated(p, active, key, d) == nil {
				refused = false
				break
			}
		}
		if refused {
			return true
		}
	}
	return false
}

// noPlannedNodeTakes reports that p needs a domain of some key that its rules forbid in every
// domain a NodePool offers: no planned node can take it, whatever its state.
func (s *solver) noPlannedNodeTakes(p *podInfo) bool {
	if len(p.terms) == 0 && len(p.matched) == 0 {
		return false
	}
	v := s.verdicts(p)
	active := p.activeTerms()
	for i, key := range v.keys {
		if !v.required[i] {
			continue
		}
		refused := true
		for pool := 0; pool < s.topology.domains.Pools(); pool++ {
			for _, d := range s.topology.domains.Of(pool, key) {
				if s.plannedViolated(p, active, key, d) == nil {
					refused = false
					break
				}
			}
		}
		if refused {
			return true
		}
	}
	return false
}
