package topology

import (
	"github.com/nodeplan/nodeplan/internal/skipset"
	"github.com/nodeplan/nodeplan/requirements"
)

// Launch is what the rules ask of a new node's instance-type options, so that the solver keeps
// its own types. Unset for an existing node.
type Launch struct {
	// Holds reports whether some option allows reqs narrowed to key = value and has room for
	// the pod on an empty node.
	Holds func(reqs requirements.Requirements, key, value string) bool
	// Allows reports whether some option allows reqs.
	Allows func(reqs requirements.Requirements) bool
	// CheapestMeets reports whether the cheapest offering any option allows under reqs is of
	// an option whose own requirements meet one of filter (false when there is none).
	CheapestMeets func(reqs requirements.Requirements, filter []requirements.Requirements) bool
}

// Narrow returns reqs, the requirements of node n, narrowed so that placing the pod m there
// keeps every spread and affinity rule in force, or, when none is allowed, nil and why. A key
// the pod is counted on is narrowed to one value, so the count lands in exactly the domain
// the node will be in. On a new node, each group counting the pod only on nodes matching a
// filter is settled too (Group.SettleFilter). The refused domains are listed only if explain.
func (s *State) Narrow(m *Member, reqs requirements.Requirements, n Joining, launch Launch, explain bool) (requirements.Requirements, Refusal) {
	if !m.Constrained() {
		return reqs, Refusal{}
	}
	active := m.Active()
	planned := !n.Existing && !n.Fresh
	judge := func(key, v string) *Group {
		if planned && key != requirements.LabelHostname {
			return s.plannedViolated(m, active, key, v)
		}
		return s.violated(m, active, key, v, n)
	}
	out, refused := s.domains.Narrow(active, m.Matched, m.keys(active), reqs, n, judge, launch.Holds, explain)
	if refused.Group != nil {
		return nil, refused
	}
	if !n.Existing {
		for _, g := range m.Matched {
			out = settleFilter(g, out, launch)
		}
	}
	return out, Refusal{}
}

// settleFilter is SettleFilter for a new node with the options launch describes.
func settleFilter(g *Group, reqs requirements.Requirements, launch Launch) requirements.Requirements {
	if g.NodeFilter() == nil {
		return reqs
	}
	cheapestMatches := func() bool { return launch.CheapestMeets(reqs, g.NodeFilter()) }
	return g.SettleFilter(reqs, launch.Allows, cheapestMatches)
}

// Describe says why the pod was refused on the node called where.
func (r Refusal) Describe(where string) string {
	domains := r.Domains
	if domains == nil {
		domains = []string{r.Domain}
	}
	counts := r.Group.DescribeCounts(domains)
	if counts == "" {
		counts = "no domain for " + r.Group.Key
	}
	return r.Group.Describe() + ": no allowed domain on " + where + " (counts: " + counts + ")"
}

// violated returns the first group whose rule forbids domain v of key for the pod on node n,
// or nil: the pod's own rules and those of pods already placed.
func (s *State) violated(m *Member, active []Term, key, v string, n Joining) *Group {
	p := Pod{Active: active, Matched: m.Matched, Loose: m.Loose, Eligible: func(g *Group) []string { return s.eligible(m, g) }}
	node := Node{Fresh: n.Fresh, Existing: n.Existing, Labels: n.Labels}
	if n.Fresh {
		node.Pool = n.Pool
	}
	return s.rules.Violated(p, node, key, v)
}

// Record counts the pod m in the domains of node n it was placed on, whose requirements are
// reqs; index is a new node's position among the planned nodes, or -1 for an existing node.
func (s *State) Record(m *Member, n Joining, reqs requirements.Requirements, index int) {
	if !m.Constrained() {
		return
	}
	s.domains.RecordJoined(s.rules, Pod{Active: m.Active(), Matched: m.Matched}, n, reqs, index)
}

// Skip returns the planned nodes the pod m must skip for a hostname rule, or nil.
func (s *State) Skip(m *Member) *skipset.Set {
	if s == nil || !m.Constrained() {
		return nil
	}
	return s.rules.HostnameSkip(Pod{Active: m.Active(), Matched: m.Matched})
}

// Refuses reports, without trying it, that a planned node of NodePool pool with requirements
// reqs cannot take the pod m because of a rule (Planned.NodeRefuses): a full check would
// refuse it.
func (s *State) Refuses(m *Member, pool int, reqs requirements.Requirements) bool {
	if !m.Constrained() {
		return false
	}
	active := m.Active()
	judge := func(key, value string) *Group { return s.violated(m, active, key, value, Joining{}) }
	return s.planned.NodeRefuses(s.rules, s.plannedPod(m, active), s.domains, pool, reqs, judge)
}

// NoneTakes reports that no planned node can take the pod m, whatever its state
// (Planned.NoneTakes).
func (s *State) NoneTakes(m *Member) bool {
	if !m.Constrained() {
		return false
	}
	active := m.Active()
	judge := func(key, value string) *Group { return s.violated(m, active, key, value, Joining{}) }
	return s.planned.NoneTakes(s.rules, s.plannedPod(m, active), s.domains, judge)
}

// plannedViolated is violated for domain value of key on a planned node, memoised.
func (s *State) plannedViolated(m *Member, active []Term, key, value string) *Group {
	judge := func(key, value string) *Group { return s.violated(m, active, key, value, Joining{}) }
	return s.planned.Violated(s.rules, s.plannedPod(m, active), key, value, judge)
}

func (s *State) plannedPod(m *Member, active []Term) PlannedPod {
	return PlannedPod{ID: m, Relaxed: m.Relaxed, Loose: m.Loose, Active: active, Keys: m.keys(active)}
}

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
