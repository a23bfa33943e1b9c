package scheduling

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/internal/skipset"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
	"github.com/nodeplan/nodeplan/typeindex"
)

// topologyState connects the solver to spread and pod-affinity accounting: the tracker's
// counts, and the domains each key can take per NodePool and on existing nodes.
type topologyState struct {
	tracker *topology.Tracker
	// rules keep the plan's final state true (topology.Rules).
	rules *topology.Rules
	// eligibleByClass memoises eligibleDomains per group and class of pods.
	eligibleByClass map[string][]string
	// domains are the values each key can take on a new node of each NodePool (nil while
	// no group exists).
	domains *topology.Domains
	// daemons are the DaemonSets some group counts the pods of (nil in the common case: then
	// nothing about daemons costs anything).
	daemons []*topology.Daemon
}

// setupTopology derives every pending pod's terms and matched groups, counts the pods already
// running, and records the domains each key can take. Pods with an invalid term become
// unschedulable.
func (s *solver) setupTopology(in Input, pods []*podInfo) ([]*podInfo, []Unschedulable) {
	tr := topology.NewTracker(in.Namespaces)
	var kept []*podInfo
	var bad []Unschedulable
	for _, p := range pods {
		terms, err := tr.Terms(p.pod)
		if err != nil {
			bad = append(bad, Unschedulable{Pod: p.key, Reason: err.Error(), Constraint: topologyConstraintOfError(err)})
			continue
		}
		if s.opts.PreferencePolicy == PreferencesIgnore {
			terms = topology.RequiredOnly(terms) // preferences are dropped up front
		}
		p.terms = terms
		kept = append(kept, p)
	}
	// Running pods' required anti-affinity constrains pending pods (kube-scheduler's inverse
	// check) and may add groups, so it is read before deciding whether there are any; then,
	// only if there are, every running pod is counted.
	running := func(pod *corev1.Pod) bool { return pod != nil && !isTerminal(pod) && pod.DeletionTimestamp == nil }
	for _, en := range in.ExistingNodes {
		for _, pod := range en.Pods {
			if running(pod) && topology.HasRequiredAntiAffinity(pod) {
				tr.AntiAffinityTerms(pod)
			}
		}
	}
	s.topology = &topologyState{tracker: tr, rules: topology.NewRules(), eligibleByClass: map[string][]string{}}
	if len(tr.Groups()) == 0 {
		return kept, bad
	}
	byName := make(map[string]*existingNode, len(s.existing))
	for _, n := range s.existing {
		byName[n.name] = n
	}
	for _, en := range in.ExistingNodes {
		n := byName[en.Node.Name]
		for _, pod := range en.Pods {
			if !running(pod) {
				continue
			}
			var terms []topology.Term
			if topology.HasRequiredAntiAffinity(pod) {
				terms = tr.AntiAffinityTerms(pod)
			}
			tr.RecordOnNode(pod, terms, n.labels)
		}
	}
	// Groups in the order of their IDs, not of the pods that first declared them, so that a
	// pod's matched groups, and what follows from their order, do not depend on the input's.
	byID := slices.SortedFunc(slices.Values(tr.Groups()), func(a, b *topology.Group) int { return strings.Compare(a.ID(), b.ID()) })
	for _, p := range kept {
		for _, g := range byID {
			if g.Matches(p.pod) {
				p.matched = append(p.matched, g)
			}
		}
	}
	s.topology.domains = topology.NewDomains(len(s.pools), tr.Groups(), func(pool int, key string) []string {
		return poolDomainValues(s.pools[pool], key)
	})
	for _, p := range kept {
		for _, t := range p.terms {
			if !t.Required || t.Group.Kind != topology.Spread {
				continue
			}
			s.topology.rules.DeclareSpread(t.Group, s.eligibleDomains(p, t.Group))
		}
	}
	s.setupDaemonTopology(s.daemons)
	return kept, bad
}

func topologyConstraintOfError(err error) Constraint {
	msg := err.Error()
	switch {
	case strings.HasPrefix(msg, "podAffinity"):
		return ConstraintPodAffinity
	case strings.HasPrefix(msg, "podAntiAffinity"):
		return ConstraintPodAntiAffinity
	}
	return ConstraintTopologySpread
}

// nodeView is what topology needs to know of a candidate node.
type nodeView struct {
	name     string
	existing *existingNode // nil for a new node
	pool     *poolState    // the new node's pool
	options  []*typeOption // the new node's current options
	// fresh marks a node about to open: its name is not taken yet, so explanations do not
	// show it.
	fresh bool
}

// topologyRequirements returns reqs narrowed so that placing p on the node keeps every spread
// and affinity rule in force, or a rejection. A key the pod is counted on is narrowed to one
// value, so the count lands in exactly the domain the node will be in.
func (s *solver) topologyRequirements(p *podInfo, reqs requirements.Requirements, nv nodeView, explain bool) (requirements.Requirements, rejection) {
	if len(p.terms) == 0 && len(p.matched) == 0 {
		return reqs, ok
	}
	active := p.activeTerms()
	planned := nv.existing == nil && !nv.fresh
	judge := func(key, v string) *topology.Group {
		if planned && key != requirements.LabelHostname {
			return s.plannedViolated(p, active, key, v)
		}
		return s.firstViolated(p, active, key, v, nv)
	}
	launchable := func(reqs requirements.Requirements, key, v string) bool {
		narrowed := reqs.Copy()
		narrowed.Add(requirements.New(key, corev1.NodeSelectorOpIn, v))
		for _, t := range nv.options {
			if typeindex.Allows(&t.Type, narrowed) && fitsEmpty(t, p) {
				return true
			}
		}
		return false
	}
	n := topology.Joining{Name: nv.name}
	if nv.existing != nil {
		n.Existing, n.Labels = true, nv.existing.labels
	} else {
		n.Pool = nv.pool.index
	}
	out, refused := s.topology.domains.Narrow(active, p.matched, p.ruleKeys(active), reqs, n, judge, launchable, explain)
	if refused.Group != nil {
		domains := refused.Domains
		if domains == nil {
			domains = []string{refused.Domain}
		}
		return nil, s.topologyRejection(p, refused.Group, domains, nv, explain)
	}
	if nv.existing == nil {
		for _, g := range p.matched {
			out = settleNodeFilter(g, out, nv.options)
		}
	}
	return out, ok
}

// ruleKeys returns the keys of the pod's active terms and matched groups, cached until the
// pod relaxes a term.
func (p *podInfo) ruleKeys(active []topology.Term) []string {
	if p.ruleKeysCache == nil || p.ruleKeysFor != p.softRelaxed {
		p.ruleKeysCache = topology.RuleKeys(active, p.matched)
		p.ruleKeysFor = p.softRelaxed
	}
	return p.ruleKeysCache
}

// firstViolated returns the first group whose rule forbids domain v for p on the node, or nil:
// p's own rules and those of pods already placed (topology.Rules).
func (s *solver) firstViolated(p *podInfo, active []topology.Term, key, v string, nv nodeView) *topology.Group {
	tp := topology.Pod{Active: active, Matched: p.matched, Loose: p.loose,
		Eligible: func(g *topology.Group) []string { return s.eligibleDomains(p, g) }}
	tn := topology.Node{Fresh: nv.fresh}
	if nv.fresh {
		tn.Pool = nv.pool.index
	}
	if nv.existing != nil {
		tn.Existing, tn.Labels = true, nv.existing.labels
	}
	return s.topology.rules.Violated(tp, tn, key, v)
}

// loosen gives up, after a round without progress, the rules that only serve to place pods in
// a good order: first self-affine groups may start their first domain, then the failing pods
// may unbalance spread groups where no declaring pod is yet and leave a seed alone (the last
// can break the seed's affinity in the final state, but never leaves a pod unplaced that
// kube-scheduler would place). It reports whether anything was loosened.
func (ts *topologyState) loosen(failing []*podInfo) bool {
	if ts == nil {
		return false
	}
	if ts.rules.AllowSeeds() {
		for _, p := range failing {
			if p.trace != nil && len(p.terms) > 0 {
				p.note("nothing could be placed in a whole round: a pod may now start the first domain of a group that requires affinity to its own pods")
			}
		}
		return true
	}
	loosened := false
	for _, p := range failing {
		if !p.loose && (len(p.matched) > 0 || ts.rules.DeclaresDaemonGroup(p.terms)) {
			p.loose = true
			loosened = true
			if p.trace != nil {
				p.note("nothing could be placed in a whole round: may now unbalance spread groups it matches where no declaring pod is yet, or leave a self-affine group's first pod alone")
			}
		}
	}
	return loosened
}

func fitsEmpty(t *typeOption, p *podInfo) bool {
	for i, x := range p.requests {
		if x > t.room[i] {
			return false
		}
	}
	return true
}

func (s *solver) topologyRejection(p *podInfo, g *topology.Group, domains []string, nv nodeView, explain bool) rejection {
	c := ConstraintTopologySpread
	switch g.Kind {
	case topology.Affinity:
		c = ConstraintPodAffinity
	case topology.AntiAffinity:
		c = ConstraintPodAntiAffinity
	}
	if !explain {
		return rejection{constraint: c, stage: checkTopology}
	}
	counts := g.DescribeCounts(domains)
	if counts == "" {
		counts = "no domain for " + g.Key
	}
	where := nv.name
	if nv.fresh {
		where = "a new node"
	}
	return reject(true, c, checkTopology, "%s: no allowed domain on %s (counts: %s)", g.Describe(), where, counts)
}

// recordTopology counts p in the domains of the node it was placed on.
// newIndex is the new node's position in s.nodes, or -1 for an existing node.
func (s *solver) recordTopology(p *podInfo, nodeName string, reqs requirements.Requirements, existing *existingNode, newIndex int) {
	if len(p.matched) == 0 && len(p.terms) == 0 {
		return
	}
	n := topology.Joining{Name: nodeName}
	if existing != nil {
		n.Existing, n.Labels = true, existing.labels
	}
	s.topology.domains.RecordJoined(s.topology.rules, topology.Pod{Active: p.activeTerms(), Matched: p.matched}, n, reqs, newIndex)
}

// hostnameSkip returns the planned nodes p must skip for a hostname rule, or nil.
func (s *solver) hostnameSkip(p *podInfo) *skipset.Set {
	if s.topology == nil || (len(p.terms) == 0 && len(p.matched) == 0) {
		return nil
	}
	return s.topology.rules.HostnameSkip(topology.Pod{Active: p.activeTerms(), Matched: p.matched})
}
