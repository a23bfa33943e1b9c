package topology

import "github.com/nodeplan/nodeplan/requirements"

// On a planned node, whether a pod's rules allow a domain of a key other than the hostname
// does not depend on the node: only on the pod, the counts and the loosening. A pod scanning
// thousands of planned nodes therefore asks each question once per domain, and skips, without
// trying them, the nodes already settled in a domain it may not take.

// PlannedPod is the pod Planned judges: ID names it (any comparable identity), Relaxed and
// Loose change whenever its active terms or its loosening do, Active are its active terms and
// Keys its RuleKeys.
type PlannedPod struct {
	ID      any
	Relaxed int
	Loose   bool
	Active  []Term
	Keys    []string
}

// Planned memoises, for the pod being placed, the group that forbids it each domain on a
// planned node (Violated with Node{}). It is valid while the counts (Rules.Epoch), the pod's
// relaxation and loosening, and whether seeds are allowed hold. The zero value is ready.
type Planned struct {
	id                  any
	epoch, relaxed      int
	loose, seeds, valid bool
	entries             []plannedVerdict
	// keys are the pod's rule keys other than the hostname; required[i] says a node must carry
	// keys[i] (spread or affinity on it).
	keys     []string
	required []bool
}

type plannedVerdict struct {
	key, value string
	violated   *Group
}

// Judge answers Violated for the pod on a planned node; Planned calls it once per domain.
type Judge func(key, value string) *Group

// of starts the memo afresh for p when anything it depends on changed.
func (m *Planned) of(r *Rules, p PlannedPod) {
	if m.valid && m.id == p.ID && m.epoch == r.Epoch() && m.relaxed == p.Relaxed && m.loose == p.Loose && m.seeds == r.SeedsAllowed() {
		return
	}
	*m = Planned{id: p.ID, epoch: r.Epoch(), relaxed: p.Relaxed, loose: p.Loose, seeds: r.SeedsAllowed(), valid: true,
		entries: m.entries[:0], keys: m.keys[:0], required: m.required[:0]}
	for _, k := range p.Keys {
		if k != requirements.LabelHostname {
			m.keys = append(m.keys, k)
			m.required = append(m.required, RequiresKey(p.Active, k))
		}
	}
}

// Violated returns the group forbidding p domain value of key on a planned node, or nil,
// asking judge only the first time.
func (m *Planned) Violated(r *Rules, p PlannedPod, key, value string, judge Judge) *Group {
	m.of(r, p)
	for _, e := range m.entries {
		if e.key == key && e.value == value {
			return e.violated
		}
	}
	g := judge(key, value)
	m.entries = append(m.entries, plannedVerdict{key: key, value: value, violated: g})
	return g
}

// NodeRefuses reports, without trying it, that a planned node of NodePool pool with
// requirements reqs cannot take p because of a rule: for some key, the domains the node can
// still be in are all forbidden to p, and the node is settled in one of them or p needs a
// domain of that key.
func (m *Planned) NodeRefuses(r *Rules, p PlannedPod, d *Domains, pool int, reqs requirements.Requirements, judge Judge) bool {
	m.of(r, p)
	if len(m.keys) == 0 {
		return false
	}
	for i, key := range m.keys {
		req, constrained := reqs[key]
		if constrained && req.Len() == 1 {
			single, _ := req.Any()
			if m.Violated(r, p, key, single, judge) != nil {
				return true
			}
			continue
		}
		if !m.required[i] {
			continue // the pod's own requirements may leave the node no value: then no rule applies
		}
		refused := true
		for _, v := range d.Of(pool, key) {
			if (!constrained || req.Has(v)) && m.Violated(r, p, key, v, judge) == nil {
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

// NoneTakes reports that p needs a domain of some key that its rules forbid in every domain a
// NodePool offers: no planned node can take it, whatever its state.
func (m *Planned) NoneTakes(r *Rules, p PlannedPod, d *Domains, judge Judge) bool {
	m.of(r, p)
	for i, key := range m.keys {
		if !m.required[i] {
			continue
		}
		refused := true
		for pool := 0; pool < d.Pools(); pool++ {
			for _, v := range d.Of(pool, key) {
				if m.Violated(r, p, key, v, judge) == nil {
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
