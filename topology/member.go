package topology

import (
	"maps"
	"slices"
	"sort"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/requirements"
)

// Member is one pending pod as a State follows it through a solve: its terms, the groups that
// count it, and what it has given up. The solver keeps one per pod and hands it to every
// question it asks of the State.
type Member struct {
	// Terms are the pod's spread and pod (anti-)affinity rules: required ones, then preferred
	// ones in relaxation order; the first Relaxed preferred ones have been given up.
	Terms   []Term
	Relaxed int
	// Matched are the groups that count the pod (set by State.Start).
	Matched []*Group
	// Loose is set once the pod, after a round without progress, may break what only keeps the
	// placement order good (State.Loosen).
	Loose bool
	// Host answers what topology cannot know of the pod: where its node affinity and
	// tolerations let it run.
	Host Host

	// eligible caches the eligible domains of each spread group for the pod.
	eligible    map[*Group][]string
	activeCache []Term
	activeFor   int
	keysCache   []string
	keysFor     int
}

// Host is the solver's side of a pod: what a spread group's eligible domains depend on besides
// the groups themselves.
type Host interface {
	// NodeAffinity returns the pod's requirement alternatives (node selector × required node
	// affinity).
	NodeAffinity() []requirements.Requirements
	// Tolerates reports whether the pod tolerates every taint of a node.
	Tolerates(taints []corev1.Taint) bool
	// HostClass names the pods whose NodeAffinity and tolerations are the same: they share
	// their eligible domains.
	HostClass() string
}

// Constrained reports whether any rule binds or counts the pod; a pod that is not gets a
// yes to every question without one being asked.
func (m *Member) Constrained() bool { return len(m.Terms) > 0 || len(m.Matched) > 0 }

// Soft returns the pod's preferred terms (after its required ones).
func (m *Member) Soft() []Term {
	for i, t := range m.Terms {
		if !t.Required {
			return m.Terms[i:]
		}
	}
	return nil
}

// Active returns the terms in force: required ones and preferred ones not yet relaxed.
func (m *Member) Active() []Term {
	soft := m.Soft()
	required := m.Terms[:len(m.Terms)-len(soft)]
	if m.Relaxed == 0 {
		return m.Terms
	}
	if m.activeFor != m.Relaxed {
		out := make([]Term, 0, len(required)+len(soft)-m.Relaxed)
		out = append(out, required...)
		m.activeCache = append(out, soft[m.Relaxed:]...)
		m.activeFor = m.Relaxed
	}
	return m.activeCache
}

// OrderAsKarpenter orders the pod's preferred terms as Karpenter relaxes them: preferred pod
// affinity, heaviest first, then preferred pod anti-affinity, heaviest first, then (after the
// preferred node affinity, which the solver takes in between) ScheduleAnyway spread
// constraints, in the order Karpenter removes them (the first, which the last replaces).
func (m *Member) OrderAsKarpenter() {
	soft := m.Soft()
	if len(soft) < 2 {
		return
	}
	var affinity, anti, spread []Term
	for _, t := range soft {
		switch t.Group.Kind {
		case Affinity:
			affinity = append(affinity, t)
		case AntiAffinity:
			anti = append(anti, t)
		default:
			spread = append(spread, t)
		}
	}
	byWeight := func(ts []Term) {
		sort.SliceStable(ts, func(i, j int) bool { return ts[i].Weight > ts[j].Weight })
	}
	byWeight(affinity)
	byWeight(anti)
	out := append(append(soft[:0:0], affinity...), anti...)
	out = append(out, swapRemoveOrder(spread)...)
	copy(soft, out)
}

// swapRemoveOrder is the order in which repeatedly removing the first element, moving the
// last into its place, visits ts.
func swapRemoveOrder(ts []Term) []Term {
	rest := append([]Term(nil), ts...)
	out := make([]Term, 0, len(ts))
	for len(rest) > 0 {
		out = append(out, rest[0])
		rest[0] = rest[len(rest)-1]
		rest = rest[:len(rest)-1]
	}
	return out
}

// keys returns RuleKeys of the active terms and matched groups, cached until the pod relaxes
// a term.
func (m *Member) keys(active []Term) []string {
	if m.keysCache == nil || m.keysFor != m.Relaxed {
		m.keysCache = RuleKeys(active, m.Matched)
		m.keysFor = m.Relaxed
	}
	return m.keysCache
}

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

// What a pod's terms and matched groups say about the keys of a node, independent of counts.

// RuleKeys lists, sorted and once each, the keys of a pod's active terms and of the groups
// counting it: the keys whose domain a node must settle before the pod joins it.
func RuleKeys(active []Term, matched []*Group) []string {
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

// FirstOn returns the group of the first active term on key, or nil.
func FirstOn(active []Term, key string) *Group {
	for _, t := range active {
		if t.Group.Key == key {
			return t.Group
		}
	}
	return nil
}

// RequiresKey reports whether a node must carry key for the active terms: spread and affinity
// need a domain, anti-affinity is met by a node outside every domain.
func RequiresKey(active []Term, key string) bool {
	for _, t := range active {
		if t.Group.Key == key && t.Group.Kind != AntiAffinity {
			return true
		}
	}
	return false
}

// RequiredOnly drops preferred terms (Terms lists them after the required ones).
func RequiredOnly(terms []Term) []Term {
	for i, t := range terms {
		if !t.Required {
			return terms[:i]
		}
	}
	return terms
}

// HasRequiredAffinity reports whether the pod declares required pod affinity.
func HasRequiredAffinity(pod *corev1.Pod) bool {
	a := pod.Spec.Affinity
	return a != nil && a.PodAffinity != nil && len(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0
}

// HasRequiredAntiAffinity reports whether the pod declares required pod anti-affinity.
func HasRequiredAntiAffinity(pod *corev1.Pod) bool {
	a := pod.Spec.Affinity
	return a != nil && a.PodAntiAffinity != nil && len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0
}

// DeclaresTerms reports whether the pod declares a topology spread constraint or a pod
// (anti-)affinity term, required or preferred: a pod that declares none brings no rule and no
// group of its own to a solve.
func DeclaresTerms(pod *corev1.Pod) bool {
	if len(pod.Spec.TopologySpreadConstraints) > 0 {
		return true
	}
	a := pod.Spec.Affinity
	if a == nil {
		return false
	}
	if pa := a.PodAffinity; pa != nil && len(pa.RequiredDuringSchedulingIgnoredDuringExecution)+len(pa.PreferredDuringSchedulingIgnoredDuringExecution) > 0 {
		return true
	}
	pa := a.PodAntiAffinity
	return pa != nil && len(pa.RequiredDuringSchedulingIgnoredDuringExecution)+len(pa.PreferredDuringSchedulingIgnoredDuringExecution) > 0
}

// RankDomains orders domains, the values key may take for a pod on a new node, in the order
// to try them, in place: for spread the least-populated domain first, for affinity the
// most-populated, otherwise as given. The spread or affinity is the pod's first active term on
// key, else the first spread group on key counting the pod.
func RankDomains(active []Term, matched []*Group, key string, domains []string) {
	ranked := domains
	var spread, affinity *Group
	for _, t := range active {
		if t.Group.Key != key {
			continue
		}
		switch t.Group.Kind {
		case Spread:
			if spread == nil {
				spread = t.Group
			}
		case Affinity:
			if affinity == nil {
				affinity = t.Group
			}
		}
	}
	if spread == nil && affinity == nil {
		for _, g := range matched {
			if g.Key == key && g.Kind == Spread {
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
}
