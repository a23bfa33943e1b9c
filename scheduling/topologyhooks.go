package scheduling

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

// topologyState connects the solver to spread and pod-affinity accounting: the tracker's
// counts, and the domains each key can take per NodePool and on existing nodes.
type topologyState struct {
	tracker *topology.Tracker
	// full[g] marks new nodes where g's count leaves no room for another matching pod of a
	// pod declaring g; owned[g] marks new nodes holding a pod with g as required
	// anti-affinity. Both only grow, so pods skip those nodes without trying them.
	full, owned map[*topology.Group]*skipSet
	// eligibleByClass memoises eligibleDomains per group and class of pods.
	eligibleByClass map[string][]string
	// poolDomains[pool index][key] are the values a new node of the pool can take, sorted.
	poolDomains []map[string][]string
	// existingDomains[key] are the values existing nodes carry.
	existingDomains map[string]map[string]bool
	// declaredFull[g] marks, for a hostname spread g, new nodes holding a pod that declares g
	// and as many pods g counts as its maxSkew: no other pod g counts may join them.
	declaredFull map[*topology.Group]*skipSet
	// declarerDomains[g] is the union of the eligible domains of the pending pods declaring
	// the required spread g (nil when none does): the skew a pod counted by g must keep is
	// measured over them.
	declarerDomains map[*topology.Group]*domainSet
	// seeds[g] is the domain where a pod declaring the required affinity g, and matching it,
	// started g's first domain; while it is g's only pod, pods g counts must join it there.
	seeds map[*topology.Group]string
	// seedsAllowed is set once a whole round placed nothing: only then may a pod start a
	// self-affine group's first domain, so that pods it will count are placed first and the
	// seed is not left alone by them.
	seedsAllowed bool
	// daemons are the DaemonSets some group counts the pods of (nil in the common case: then
	// nothing about daemons costs anything); freshDaemons[g][pool index] is how many pods g
	// counts a fresh node of the pool brings (see freshDaemonCount).
	daemons      []*daemonCount
	freshDaemons map[*topology.Group][]int
}

// domainSet is a sorted set of domains that only grows.
type domainSet struct {
	seen   map[string]bool
	sorted []string
}

func (d *domainSet) addAll(values []string) {
	added := false
	for _, v := range values {
		if !d.seen[v] {
			d.seen[v] = true
			added = true
		}
	}
	if added {
		d.sorted = slices.Sorted(maps.Keys(d.seen))
	}
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
			terms = requiredOnly(terms) // preferences are dropped up front
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
			if running(pod) && hasRequiredAntiAffinity(pod) {
				tr.AntiAffinityTerms(pod)
			}
		}
	}
	s.topology = &topologyState{tracker: tr, existingDomains: map[string]map[string]bool{},
		full: map[*topology.Group]*skipSet{}, owned: map[*topology.Group]*skipSet{}, eligibleByClass: map[string][]string{},
		declaredFull: map[*topology.Group]*skipSet{}, declarerDomains: map[*topology.Group]*domainSet{}, seeds: map[*topology.Group]string{}}
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
			if hasRequiredAntiAffinity(pod) {
				terms = tr.AntiAffinityTerms(pod)
			}
			tr.RecordOnNode(pod, terms, n.labels)
		}
	}
	for _, p := range kept {
		for _, g := range tr.Groups() {
			if g.Matches(p.pod) {
				p.matched = append(p.matched, g)
			}
		}
	}
	keys := map[string]bool{}
	for _, g := range tr.Groups() {
		if g.Key != requirements.LabelHostname {
			keys[g.Key] = true
		}
	}
	for _, n := range s.existing {
		for k := range keys {
			if v, ok := n.labels[k]; ok {
				if s.topology.existingDomains[k] == nil {
					s.topology.existingDomains[k] = map[string]bool{}
				}
				s.topology.existingDomains[k][v] = true
			}
		}
	}
	s.topology.poolDomains = make([]map[string][]string, len(s.pools))
	for i, pool := range s.pools {
		s.topology.poolDomains[i] = map[string][]string{}
		for k := range keys {
			s.topology.poolDomains[i][k] = poolDomainValues(pool, k)
		}
	}
	for _, p := range kept {
		for _, t := range p.terms {
			if !t.Required || t.Group.Kind != topology.Spread {
				continue
			}
			set := s.topology.declarerDomains[t.Group]
			if set == nil {
				set = &domainSet{seen: map[string]bool{}}
				s.topology.declarerDomains[t.Group] = set
			}
			set.addAll(s.eligibleDomains(p, t.Group))
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
			for _, o := range t.offerings {
				add(o.Zone)
			}
		case requirements.LabelCapacityType:
			for _, o := range t.offerings {
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
	out := reqs
	copied := false
	for _, key := range p.ruleKeys(active) {
		if key == requirements.LabelHostname {
			if g := s.firstViolated(p, active, key, nv.name, nv); g != nil {
				return nil, s.topologyRejection(p, g, []string{nv.name}, nv, explain)
			}
			continue
		}
		if single, ok := singleDomain(key, out, nv); ok {
			if g := s.firstViolated(p, active, key, single, nv); g != nil {
				return nil, s.topologyRejection(p, g, []string{single}, nv, explain)
			}
			continue
		}
		candidates := s.domainCandidates(key, out, nv)
		allowed := candidates[:0:0]
		var failing *topology.Group
		for _, v := range candidates {
			if g := s.firstViolated(p, active, key, v, nv); g != nil {
				if failing == nil {
					failing = g
				}
				continue
			}
			allowed = append(allowed, v)
		}
		if len(allowed) == 0 {
			if len(candidates) == 0 && !requiresKey(active, key) {
				continue // no value for the key: anti-affinity holds, spread and affinity do not apply
			}
			if failing == nil {
				failing = firstGroupOn(active, key)
			}
			if failing == nil {
				continue // only counted here, and the node has no value for the key
			}
			return nil, s.topologyRejection(p, failing, candidates, nv, explain)
		}
		if key == requirements.LabelHostname || nv.existing != nil {
			continue
		}
		if r, ok := out[key]; ok && r.Len() == 1 {
			continue
		}
		choice, found := s.chooseDomain(p, active, key, allowed, out, nv)
		if !found {
			g := firstGroupOn(active, key)
			if g == nil {
				g = p.matched[0]
			}
			return nil, s.topologyRejection(p, g, allowed, nv, explain)
		}
		if !copied {
			out = out.Copy()
			copied = true
		}
		out.Add(requirements.New(key, corev1.NodeSelectorOpIn, choice))
	}
	if nv.existing == nil {
		for _, g := range p.matched {
			out = s.decideNodeFilter(g, out, nv.options)
		}
	}
	return out, ok
}

// decideNodeFilter settles, for a new node p joins, whether the group g counts the pods on it,
// when g counts only pods on nodes matching a filter and the node's requirements leave that
// open (some options match the filter, some do not): otherwise the count would depend on the
// type launched at the end. It keeps the side the node's cheapest option is on: it requires
// the filter, or excludes it by negating one of its requirements. It returns reqs itself when
// nothing needs settling.
func (s *solver) decideNodeFilter(g *topology.Group, reqs requirements.Requirements, options []*typeOption) requirements.Requirements {
	filter := g.NodeFilter()
	if filter == nil || g.CountsOnNew(reqs) {
		return reqs
	}
	var counting requirements.Requirements
	for _, alt := range filter {
		if reqs.Conflict(alt) != "" {
			continue
		}
		cand := reqs.Copy()
		cand.AddAll(alt)
		if anyTypeAllows(options, cand) {
			counting = cand
			break
		}
	}
	if counting == nil {
		return reqs // no option can match the filter: the node never counts, as recorded
	}
	if cheapest := cheapestAllowed(options, reqs); cheapest == nil || !matchesFilter(cheapest, filter) {
		if excluding := excludeFilter(reqs, filter, options); excluding != nil {
			return excluding
		}
	}
	return counting
}

// excludeFilter narrows reqs so that no alternative of filter can hold, negating one
// requirement per alternative (In, NotIn, Exists and DoesNotExist negate), keeping some
// option; nil when that is not possible.
func excludeFilter(reqs requirements.Requirements, filter []requirements.Requirements, options []*typeOption) requirements.Requirements {
	out := reqs.Copy()
	for _, alt := range filter {
		if out.Conflict(alt) != "" {
			continue // already excluded
		}
		negated := false
		for _, key := range alt.Keys() {
			neg := negation(alt[key])
			if neg == nil {
				continue
			}
			cand := out.Copy()
			cand.Add(neg)
			if anyTypeAllows(options, cand) {
				out, negated = cand, true
				break
			}
		}
		if !negated {
			return nil
		}
	}
	return out
}

func negation(r *requirements.Requirement) *requirements.Requirement {
	key := r.Key
	switch r.Operator() {
	case corev1.NodeSelectorOpIn:
		return requirements.New(key, corev1.NodeSelectorOpNotIn, r.Values()...)
	case corev1.NodeSelectorOpNotIn:
		return requirements.New(key, corev1.NodeSelectorOpIn, r.Values()...)
	case corev1.NodeSelectorOpExists:
		return requirements.New(key, corev1.NodeSelectorOpDoesNotExist)
	case corev1.NodeSelectorOpDoesNotExist:
		return requirements.New(key, corev1.NodeSelectorOpExists)
	}
	return nil
}

func anyTypeAllows(options []*typeOption, reqs requirements.Requirements) bool {
	for _, t := range options {
		if typeAllows(t, reqs) {
			return true
		}
	}
	return false
}

// cheapestAllowed is the option with the cheapest offering reqs allow, or nil.
func cheapestAllowed(options []*typeOption, reqs requirements.Requirements) *typeOption {
	c, found := cheapestChoice(options, reqs)
	if !found {
		return nil
	}
	return c.option
}

// matchesFilter reports whether a type's own requirements satisfy one of the alternatives.
func matchesFilter(t *typeOption, filter []requirements.Requirements) bool {
	for _, alt := range filter {
		if t.reqs.Conflict(alt) == "" && typeAllows(t, alt) {
			return true
		}
	}
	return false
}

// singleDomain returns the one value key has on the node when it is already decided: an
// existing node's label, or a new node's single-valued requirement.
func singleDomain(key string, reqs requirements.Requirements, nv nodeView) (string, bool) {
	if nv.existing != nil {
		v, ok := nv.existing.labels[key]
		return v, ok
	}
	if r, ok := reqs[key]; ok && r.Len() == 1 {
		return r.Any()
	}
	return "", false
}

// ruleKeys returns the keys of the pod's active terms and matched groups, cached until the
// pod relaxes a term.
func (p *podInfo) ruleKeys(active []topology.Term) []string {
	if p.ruleKeysCache == nil || p.ruleKeysFor != p.softRelaxed {
		p.ruleKeysCache = ruleKeys(active, p.matched)
		p.ruleKeysFor = p.softRelaxed
	}
	return p.ruleKeysCache
}

// ruleKeys lists, sorted, the keys of the pod's active terms and of the groups counting it.
func ruleKeys(active []topology.Term, matched []*topology.Group) []string {
	var keys []string
	add := func(k string) {
		for _, x := range keys {
			if x == k {
				return
			}
		}
		keys = append(keys, k)
	}
	for _, t := range active {
		add(t.Group.Key)
	}
	for _, g := range matched {
		add(g.Key)
	}
	sort.Strings(keys)
	return keys
}

func firstGroupOn(active []topology.Term, key string) *topology.Group {
	for _, t := range active {
		if t.Group.Key == key {
			return t.Group
		}
	}
	return nil
}

// domainCandidates lists the values key could take on the node: its hostname, an existing
// node's label, or the values a new node of its pool can still take under reqs.
func (s *solver) domainCandidates(key string, reqs requirements.Requirements, nv nodeView) []string {
	if key == requirements.LabelHostname {
		return []string{nv.name}
	}
	if nv.existing != nil {
		if v, ok := nv.existing.labels[key]; ok {
			return []string{v}
		}
		return nil
	}
	all := s.topology.poolDomains[nv.pool.index][key]
	r, constrained := reqs[key]
	if !constrained {
		return all
	}
	var out []string
	for _, v := range all {
		if r.Has(v) {
			out = append(out, v)
		}
	}
	return out
}

// firstViolated returns the first group whose rule forbids domain v for p, or nil. Besides
// p's own rules, it keeps the rules of pods already placed true in the plan's final state:
// required anti-affinity selecting p, required spread counting p in a domain that holds a
// declaring pod, and a self-affine seed still waiting for company. kube-scheduler checks only
// the incoming pod's rules, but a plan must hold whatever the binding order.
func (s *solver) firstViolated(p *podInfo, active []topology.Term, key, v string, nv nodeView) *topology.Group {
	for _, t := range active {
		g := t.Group
		if g.Key != key {
			continue
		}
		self := containsGroup(p.matched, g)
		// Pods of daemons g counts come with a fresh node into its domains: they count
		// against p's spread and anti-affinity there, and meet its affinity.
		fresh := 0
		if nv.fresh {
			fresh = s.topology.freshDaemonCount(g, nv.pool)
		}
		minCount := 0
		switch g.Kind {
		case topology.Spread:
			minCount = g.MinCount(s.eligibleDomains(p, g))
			if fresh > 0 && !p.loose && g.Count(v)+fresh+boolInt(self)-minCount > int(g.MaxSkew) {
				return g
			}
		case topology.Affinity:
			if fresh > 0 {
				continue
			}
			if t.Required && self && g.Total() == 0 && !s.topology.seedsAllowed {
				return g
			}
		case topology.AntiAffinity:
			if fresh > 0 {
				return g
			}
		}
		if !g.Allowed(v, self, minCount) {
			return g
		}
	}
	for _, g := range p.matched {
		if g.Key != key {
			continue
		}
		switch g.Kind {
		case topology.AntiAffinity:
			if g.Owners(v) > 0 {
				return g
			}
		case topology.Spread:
			if s.spreadBroken(p, g, v, nv) {
				return g
			}
		case topology.Affinity:
			if seed, ok := s.topology.seeds[g]; ok && g.Total() == 1 && v != seed && !p.loose {
				return g
			}
		}
	}
	return nil
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
	if !ts.seedsAllowed {
		ts.seedsAllowed = true
		for _, p := range failing {
			if p.trace != nil && len(p.terms) > 0 {
				p.note("nothing could be placed in a whole round: a pod may now start the first domain of a group that requires affinity to its own pods")
			}
		}
		return true
	}
	loosened := false
	for _, p := range failing {
		if !p.loose && (len(p.matched) > 0 || ts.declaresDaemonGroup(p)) {
			p.loose = true
			loosened = true
			if p.trace != nil {
				p.note("nothing could be placed in a whole round: may now unbalance spread groups it matches where no declaring pod is yet, or leave a self-affine group's first pod alone")
			}
		}
	}
	return loosened
}

// declaresDaemonGroup reports whether p declares a spread some daemon's pods are counted by:
// judging a fresh node with those pods in it is also something p gives up when loose, since a
// zone spread whose every node holds a counted daemon pod cannot be kept by a pod that starts a
// domain alone (the empty zones stay at 0).
func (ts *topologyState) declaresDaemonGroup(p *podInfo) bool {
	if ts.freshDaemons == nil {
		return false
	}
	for _, t := range p.terms {
		if t.Group.Kind == topology.Spread && ts.freshDaemons[t.Group] != nil {
			return true
		}
	}
	return false
}

// spreadBroken reports whether counting p in domain v would break the required spread g that
// other pods declare: v holds a declaring pod, or (until p gives this up after a round without
// progress) a declaring pod may still come to v, and v's count would exceed the least count
// over the declaring pods' eligible domains by more than maxSkew. Keeping groups balanced
// before their declaring pods arrive is what lets those pods be placed at all.
func (s *solver) spreadBroken(p *podInfo, g *topology.Group, v string, nv nodeView) bool {
	declared := s.topology.declarerDomains[g]
	if declared == nil {
		return false
	}
	if nv.existing != nil && !g.CountsOn(nv.existing.labels) {
		return false
	}
	anticipated := g.Key != requirements.LabelHostname && !p.loose && declared.seen[v]
	if g.Owners(v) == 0 && !anticipated {
		return false
	}
	fresh := 0
	if nv.fresh && !p.loose {
		fresh = s.topology.freshDaemonCount(g, nv.pool) // they join v with p
	}
	return g.Count(v)+fresh+1-g.MinCount(declared.sorted) > int(g.MaxSkew)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
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
		for _, v := range s.topology.poolDomains[i][g.Key] {
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
			if typeAllows(t, reqs) {
				return true
			}
		}
	}
	return false
}

// chooseDomain picks one allowed value for an undecided key of a new node: for spread the
// least-populated domain, for affinity the most-populated, otherwise the first; only values
// some option of the node can actually launch in.
func (s *solver) chooseDomain(p *podInfo, active []topology.Term, key string, allowed []string, reqs requirements.Requirements, nv nodeView) (string, bool) {
	ranked := append([]string(nil), allowed...)
	var spread, affinity *topology.Group
	for _, t := range active {
		if t.Group.Key != key {
			continue
		}
		switch t.Group.Kind {
		case topology.Spread:
			if spread == nil {
				spread = t.Group
			}
		case topology.Affinity:
			if affinity == nil {
				affinity = t.Group
			}
		}
	}
	if spread == nil && affinity == nil {
		for _, g := range p.matched {
			if g.Key == key && g.Kind == topology.Spread {
				spread = g
				break
			}
		}
	}
	sort.SliceStable(ranked, func(i, j int) bool {
		switch {
		case spread != nil:
			return spread.Count(ranked[i]) < spread.Count(ranked[j])
		case affinity != nil:
			return affinity.Count(ranked[i]) > affinity.Count(ranked[j])
		}
		return false
	})
	for _, v := range ranked {
		narrowed := reqs.Copy()
		narrowed.Add(requirements.New(key, corev1.NodeSelectorOpIn, v))
		for _, t := range nv.options {
			if typeAllows(t, narrowed) && fitsEmpty(t, p) {
				return v, true
			}
		}
	}
	return "", false
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
	domain := func(key string) (string, bool) {
		if key == requirements.LabelHostname {
			return nodeName, true
		}
		if existing != nil {
			v, ok := existing.labels[key]
			return v, ok
		}
		if r, ok := reqs[key]; ok && r.Len() == 1 {
			return r.Any()
		}
		return "", false
	}
	active := p.activeTerms()
	for _, g := range p.matched {
		owner := (g.Kind == topology.AntiAffinity || g.Kind == topology.Spread) && ownsRequired(active, g)
		counted := (existing != nil && g.CountsOn(existing.labels)) || (existing == nil && g.CountsOnNew(reqs))
		if !counted && !owner {
			continue
		}
		if d, ok := domain(g.Key); ok {
			if g.Kind == topology.Affinity && g.Total() == 0 && ownsRequired(active, g) {
				s.topology.seeds[g] = d
			}
			g.RecordIn(d, counted, owner)
			if newIndex >= 0 && g.Key == requirements.LabelHostname {
				s.topology.noteHostname(g, d, newIndex)
			}
		}
	}
	for _, t := range active {
		g := t.Group
		if !t.Required || containsGroup(p.matched, g) || (g.Kind != topology.AntiAffinity && g.Kind != topology.Spread) {
			continue
		}
		if d, ok := domain(g.Key); ok {
			g.RecordIn(d, false, true)
			if newIndex >= 0 && g.Key == requirements.LabelHostname {
				s.topology.noteHostname(g, d, newIndex)
			}
		} else if g.Kind == topology.AntiAffinity && g.Key != requirements.LabelHostname && existing == nil {
			// Undecided: hold the term against every domain the node could still land in.
			for _, v := range s.topology.poolDomainsFor(reqs, g.Key) {
				g.RecordIn(v, false, true)
			}
		}
	}
}

func (ts *topologyState) poolDomainsFor(reqs requirements.Requirements, key string) []string {
	seen := map[string]bool{}
	r, constrained := reqs[key]
	for _, domains := range ts.poolDomains {
		for _, v := range domains[key] {
			if !constrained || r.Has(v) {
				seen[v] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

func ownsRequired(active []topology.Term, g *topology.Group) bool {
	for _, t := range active {
		if t.Group == g && t.Required {
			return true
		}
	}
	return false
}

func containsGroup(list []*topology.Group, g *topology.Group) bool {
	for _, x := range list {
		if x == g {
			return true
		}
	}
	return false
}

// noteHostname marks new node i in the skip sets of a hostname group after a pod was counted
// there.
func (ts *topologyState) noteHostname(g *topology.Group, node string, i int) {
	limit := 1 // anti-affinity: one matching pod closes the node
	switch g.Kind {
	case topology.Spread:
		limit = int(g.MaxSkew) // hostname spread is measured against an empty new node
	case topology.Affinity:
		limit = -1
	}
	if limit > 0 && g.Count(node) >= limit {
		skipSetFor(ts.full, g).block(i)
	}
	if g.Kind == topology.AntiAffinity && g.Owners(node) > 0 {
		skipSetFor(ts.owned, g).block(i)
	}
	if g.Kind == topology.Spread && g.Owners(node) > 0 && g.Count(node) >= int(g.MaxSkew) {
		skipSetFor(ts.declaredFull, g).block(i)
	}
}

// hostnameSkip returns a skip set that rules out new nodes p cannot use because of a hostname
// rule, or nil when p has none.
func (s *solver) hostnameSkip(p *podInfo) *skipSet {
	if s.topology == nil || (len(p.terms) == 0 && len(p.matched) == 0) {
		return nil
	}
	for _, t := range p.activeTerms() {
		g := t.Group
		if g.Key != requirements.LabelHostname || (g.Kind != topology.AntiAffinity && g.Kind != topology.Spread) {
			continue
		}
		if g.Kind == topology.AntiAffinity || containsGroup(p.matched, g) {
			if set := s.topology.full[g]; set != nil {
				return set
			}
		}
	}
	for _, g := range p.matched {
		if g.Key != requirements.LabelHostname {
			continue
		}
		switch g.Kind {
		case topology.AntiAffinity:
			if set := s.topology.owned[g]; set != nil {
				return set
			}
		case topology.Spread:
			if set := s.topology.declaredFull[g]; set != nil {
				return set
			}
		}
	}
	return nil
}

// requiresKey reports whether a node must carry key for the pod's active terms: spread and
// affinity need a domain, anti-affinity is met by a node outside every domain.
func requiresKey(active []topology.Term, key string) bool {
	for _, t := range active {
		if t.Group.Key == key && t.Group.Kind != topology.AntiAffinity {
			return true
		}
	}
	return false
}

// requiredOnly drops preferred terms (they follow the required ones).
func requiredOnly(terms []topology.Term) []topology.Term {
	for i, t := range terms {
		if !t.Required {
			return terms[:i]
		}
	}
	return terms
}

// hasRequiredAntiAffinity reports whether the pod declares required pod anti-affinity.
func hasRequiredAntiAffinity(pod *corev1.Pod) bool {
	a := pod.Spec.Affinity
	return a != nil && a.PodAntiAffinity != nil && len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0
}
