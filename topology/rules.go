package topology

import (
	"maps"
	"slices"

	"github.com/nodeplan/nodeplan/internal/skipset"
	"github.com/nodeplan/nodeplan/requirements"
)

// Rules keeps a plan's final state true, not only the state each pod met when placed:
// kube-scheduler checks the incoming pod's rules, but a plan must hold whatever the order its
// pods are bound in. Beyond a pod's own rules it keeps those of pods already placed: required
// anti-affinity selecting the pod, required spread counting it in a domain that holds (or may
// still get) a declaring pod, and a self-affine group's first pod (its seed) still waiting
// for company. It also indexes, per hostname group, the planned nodes a pod of the group must
// skip, so that a pod repelling its kind costs O(1) per placement, not O(nodes).
//
// The solver asks Violated for each domain a pod could take on a node, Records each placement,
// and RecordDaemonPod for each counted DaemonSet pod a new node brings.
type Rules struct {
	// full[g] marks planned nodes where g's count leaves no room for another matching pod of
	// a pod declaring g; owned[g] marks planned nodes holding a pod with g as required
	// anti-affinity; declaredFull[g] marks, for a hostname spread g, planned nodes holding a
	// pod declaring g and as many pods g counts as its maxSkew. They only grow.
	full, owned, declaredFull map[*Group]*skipset.Set
	// declarerDomains[g] is the union of the eligible domains of the pending pods declaring
	// the required spread g: the skew a pod counted by g must keep is measured over them.
	declarerDomains map[*Group]*domainSet
	// seeds[g] is the domain where a pod declaring the required affinity g, and matching it,
	// started g's first domain; while it is g's only pod, pods g counts must join it there.
	seeds map[*Group]string
	// seedsAllowed is set once a whole round placed nothing: only then may a pod start a
	// self-affine group's first domain, so that pods it will count are placed first.
	seedsAllowed bool
	epoch        int
	// freshDaemons[g][pool] is how many pods g counts a fresh node of the pool brings: the
	// DaemonSets g counts that run on every type of the pool (nil when there are none).
	freshDaemons map[*Group][]int
}

// NewRules starts the final-state rules of one solve.
func NewRules() *Rules {
	return &Rules{full: map[*Group]*skipset.Set{}, owned: map[*Group]*skipset.Set{}, declaredFull: map[*Group]*skipset.Set{},
		declarerDomains: map[*Group]*domainSet{}, seeds: map[*Group]string{}}
}

// Pod is a pod as the rules judge it.
type Pod struct {
	// Active are the pod's terms in force; Matched the groups that count it.
	Active  []Term
	Matched []*Group
	// Loose is set once the pod, after a round without progress, may unbalance spread groups
	// it matches where no declaring pod is yet, and leave a self-affine group's seed alone.
	Loose bool
	// Eligible returns the domains the skew of spread group g is measured over for the pod.
	Eligible func(g *Group) []string
}

// Node is the node a pod is judged on.
type Node struct {
	// Fresh marks a node about to open for the pod, of NodePool number Pool: the DaemonSet pods
	// it brings (AddFreshDaemon) come with it into the same domain.
	Fresh bool
	Pool  int
	// Existing marks a node of the cluster, with these labels.
	Existing bool
	Labels   map[string]string
}

// Violated returns the first group whose rule forbids p to take domain of key on node n, or nil.
func (r *Rules) Violated(p Pod, n Node, key, domain string) *Group {
	for _, t := range p.Active {
		g := t.Group
		if g.Key != key {
			continue
		}
		self := containsGroup(p.Matched, g)
		fresh := r.daemons(n, g)
		minCount := 0
		switch g.Kind {
		case Spread:
			minCount = g.MinCount(p.Eligible(g))
			if fresh > 0 && !p.Loose && g.Count(domain)+fresh+boolInt(self)-minCount > int(g.MaxSkew) {
				return g
			}
		case Affinity:
			if fresh > 0 {
				continue // the daemon's pods meet the affinity
			}
			if t.Required && self && g.Total() == 0 && !r.seedsAllowed {
				return g
			}
		case AntiAffinity:
			if fresh > 0 {
				return g
			}
		}
		if !g.Allowed(domain, self, minCount) {
			return g
		}
	}
	for _, g := range p.Matched {
		if g.Key != key {
			continue
		}
		switch g.Kind {
		case AntiAffinity:
			if g.Owners(domain) > 0 {
				return g
			}
		case Spread:
			if r.spreadBroken(p, n, g, domain) {
				return g
			}
		case Affinity:
			if seed, ok := r.seeds[g]; ok && g.Total() == 1 && domain != seed && !p.Loose {
				return g
			}
		}
	}
	return nil
}

// spreadBroken reports whether counting p in domain would break the required spread g that
// other pods declare: the domain holds a declaring pod, or (until p is loose) a declaring pod
// may still come to it, and its count would exceed the least count over the declaring pods'
// eligible domains by more than maxSkew. Keeping groups balanced before their declaring pods
// arrive is what lets those pods be placed at all.
func (r *Rules) spreadBroken(p Pod, n Node, g *Group, domain string) bool {
	declared := r.declarerDomains[g]
	if declared == nil {
		return false
	}
	if n.Existing && !g.CountsOn(n.Labels) {
		return false
	}
	anticipated := g.Key != requirements.LabelHostname && !p.Loose && declared.seen[domain]
	if g.Owners(domain) == 0 && !anticipated {
		return false
	}
	fresh := 0
	if !p.Loose {
		fresh = r.daemons(n, g) // they join the domain with p
	}
	return g.Count(domain)+fresh+1-g.MinCount(declared.sorted) > int(g.MaxSkew)
}

// DeclareSpread notes that a pending pod declares the required spread g and may go to domains.
func (r *Rules) DeclareSpread(g *Group, domains []string) {
	set := r.declarerDomains[g]
	if set == nil {
		set = &domainSet{seen: map[string]bool{}}
		r.declarerDomains[g] = set
	}
	set.addAll(domains)
}

// AllowSeeds lets pods start a self-affine group's first domain, once a whole round placed
// nothing; it reports whether they were not allowed yet.
func (r *Rules) AllowSeeds() bool {
	if r.seedsAllowed {
		return false
	}
	r.seedsAllowed = true
	return true
}

// SeedsAllowed reports whether AllowSeeds was called.
func (r *Rules) SeedsAllowed() bool { return r.seedsAllowed }

// Epoch counts the changes to the counts: a verdict of Violated holds within one epoch (for
// the same pod and the same seedsAllowed).
func (r *Rules) Epoch() int { return r.epoch }

// Placement is where a pod was placed, for Record.
type Placement struct {
	// Domain returns the node's value of a key, if decided.
	Domain func(key string) (string, bool)
	// Counts reports whether group g counts pods on the node (its node filter).
	Counts func(g *Group) bool
	// Node is the planned node's position in the solver's list, or -1 for an existing node.
	Node int
	// Undecided returns the domains of key the planned node may still land in (required
	// anti-affinity is held against them all); nil for an existing node.
	Undecided func(key string) []string
}

// Record counts p where it was placed: in the groups counting it, and as the owner of its
// required anti-affinity and spread terms.
func (r *Rules) Record(p Pod, at Placement) {
	r.epoch++
	for _, g := range p.Matched {
		owner := (g.Kind == AntiAffinity || g.Kind == Spread) && ownsRequired(p.Active, g)
		counted := at.Counts(g)
		if !counted && !owner {
			continue
		}
		if d, ok := at.Domain(g.Key); ok {
			if g.Kind == Affinity && g.Total() == 0 && ownsRequired(p.Active, g) {
				r.seeds[g] = d
			}
			g.RecordIn(d, counted, owner)
			if at.Node >= 0 && g.Key == requirements.LabelHostname {
				r.noteHostname(g, d, at.Node)
			}
		}
	}
	for _, t := range p.Active {
		g := t.Group
		if !t.Required || containsGroup(p.Matched, g) || (g.Kind != AntiAffinity && g.Kind != Spread) {
			continue
		}
		if d, ok := at.Domain(g.Key); ok {
			g.RecordIn(d, false, true)
			if at.Node >= 0 && g.Key == requirements.LabelHostname {
				r.noteHostname(g, d, at.Node)
			}
		} else if g.Kind == AntiAffinity && g.Key != requirements.LabelHostname && at.Undecided != nil {
			// Undecided: hold the term against every domain the node could still land in.
			for _, v := range at.Undecided(g.Key) {
				g.RecordIn(v, false, true)
			}
		}
	}
}

// noteHostname marks planned node i in the skip sets of a hostname group after a pod was
// counted there.
func (r *Rules) noteHostname(g *Group, node string, i int) {
	limit := 1 // anti-affinity: one matching pod closes the node
	switch g.Kind {
	case Spread:
		limit = int(g.MaxSkew) // hostname spread is measured against an empty new node
	case Affinity:
		limit = -1
	}
	if limit > 0 && g.Count(node) >= limit {
		skipset.For(r.full, g).Block(i)
	}
	if g.Kind == AntiAffinity && g.Owners(node) > 0 {
		skipset.For(r.owned, g).Block(i)
	}
	if g.Kind == Spread && g.Owners(node) > 0 && g.Count(node) >= int(g.MaxSkew) {
		skipset.For(r.declaredFull, g).Block(i)
	}
}

// HostnameSkip returns the planned nodes p must skip for one of its hostname groups, or nil
// when it has none to skip.
func (r *Rules) HostnameSkip(p Pod) *skipset.Set {
	for _, t := range p.Active {
		g := t.Group
		if g.Key != requirements.LabelHostname || (g.Kind != AntiAffinity && g.Kind != Spread) {
			continue
		}
		if g.Kind == AntiAffinity || containsGroup(p.Matched, g) {
			if set := r.full[g]; set != nil {
				return set
			}
		}
	}
	for _, g := range p.Matched {
		if g.Key != requirements.LabelHostname {
			continue
		}
		switch g.Kind {
		case AntiAffinity:
			if set := r.owned[g]; set != nil {
				return set
			}
		case Spread:
			if set := r.declaredFull[g]; set != nil {
				return set
			}
		}
	}
	return nil
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

func ownsRequired(active []Term, g *Group) bool {
	for _, t := range active {
		if t.Group == g && t.Required {
			return true
		}
	}
	return false
}

func containsGroup(list []*Group, g *Group) bool {
	return slices.Contains(list, g)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
