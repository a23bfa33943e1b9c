package scheduling

import "github.com/nodeplan/nodeplan/topology"

// The solver's side of topology.Planned: the pod as it judges it, and the question it asks
// on a miss.

func (s *solver) plannedPod(p *podInfo, active []topology.Term) topology.PlannedPod {
	return topology.PlannedPod{ID: p, Relaxed: p.softRelaxed, Loose: p.loose, Active: active, Keys: p.ruleKeys(active)}
}

// plannedViolated is firstViolated for domain value of key on a planned node.
func (s *solver) plannedViolated(p *podInfo, active []topology.Term, key, value string) *topology.Group {
	judge := func(key, value string) *topology.Group { return s.firstViolated(p, active, key, value, nodeView{}) }
	return s.domainMemo.Violated(s.topology.rules, s.plannedPod(p, active), key, value, judge)
}

// plannedNodeRefuses reports, without trying it, that planned node n cannot take p because
// of a topology rule (topology.Planned.NodeRefuses): tryNewNode would refuse it at
// checkTopology or earlier.
func (s *solver) plannedNodeRefuses(p *podInfo, n *newNode) bool {
	if len(p.terms) == 0 && len(p.matched) == 0 {
		return false
	}
	active := p.activeTerms()
	judge := func(key, value string) *topology.Group { return s.firstViolated(p, active, key, value, nodeView{}) }
	return s.domainMemo.NodeRefuses(s.topology.rules, s.plannedPod(p, active), s.topology.domains, n.pool.index, n.reqs, judge)
}

// noPlannedNodeTakes reports that no planned node can take p, whatever its state
// (topology.Planned.NoneTakes).
func (s *solver) noPlannedNodeTakes(p *podInfo) bool {
	if len(p.terms) == 0 && len(p.matched) == 0 {
		return false
	}
	active := p.activeTerms()
	judge := func(key, value string) *topology.Group { return s.firstViolated(p, active, key, value, nodeView{}) }
	return s.domainMemo.NoneTakes(s.topology.rules, s.plannedPod(p, active), s.topology.domains, judge)
}
