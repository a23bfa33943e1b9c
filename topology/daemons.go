package topology

import (
	"sort"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/daemonset"
	"github.com/nodeplan/nodeplan/requirements"
)

// Daemon is a DaemonSet whose pods some topology group counts. Every node that runs the
// DaemonSet holds one of those pods, which kube-scheduler's spread and pod-affinity filters
// count like any other pod: a DaemonSet in a workload's own namespace with the workload's
// labels raises its zone's count with every node the plan opens there.
type Daemon struct {
	Template *daemonset.Template
	// Groups are the topology groups whose selector and namespaces match the daemon's pod.
	Groups []*Group
	// Runs[pool][type] says whether the daemon runs on a node of that NodePool and instance
	// type (both numbered by the caller).
	Runs [][]bool
}

// CountedDaemons returns the daemons of templates some of groups counts, with no Runs yet.
func CountedDaemons(templates []*daemonset.Template, groups []*Group) []*Daemon {
	var out []*Daemon
	for _, d := range templates {
		var matched []*Group
		for _, g := range groups {
			if g.Matches(d.Pod) {
				matched = append(matched, g)
			}
		}
		if len(matched) > 0 {
			out = append(out, &Daemon{Template: d, Groups: matched})
		}
	}
	return out
}

// AddDaemons notes the daemons' pods that every fresh node of a pool brings: those of the
// daemons running on every type of the pool.
func (r *Rules) AddDaemons(daemons []*Daemon) {
	for _, d := range daemons {
		everywhere := make([]bool, len(d.Runs))
		for i, runs := range d.Runs {
			everywhere[i] = allTrue(runs)
		}
		for _, g := range d.Groups {
			r.AddFreshDaemon(g, everywhere)
		}
	}
}

func allTrue(bs []bool) bool {
	for _, b := range bs {
		if !b {
			return false
		}
	}
	return len(bs) > 0
}

// DaemonKeys lists, sorted, the keys of the groups counting the daemons.
func DaemonKeys(running []*Daemon) []string {
	seen := map[string]bool{}
	for _, d := range running {
		for _, g := range d.Groups {
			seen[g.Key] = true
		}
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// DaemonsBreak reports whether the running daemons' pods in domain v of key would break a
// rule of pods already placed there (DaemonPodsBreak), and the sum of the counts of their
// spread groups in v.
func (r *Rules) DaemonsBreak(running []*Daemon, key, v string) (bool, int) {
	breaks, count := false, 0
	for _, g := range daemonGroupsOn(running, key) {
		added := 0
		for _, d := range running {
			if containsGroup(d.Groups, g) {
				added++
			}
		}
		if g.Kind == Spread {
			count += g.Count(v)
		}
		if r.DaemonPodsBreak(g, v, added) {
			breaks = true
		}
	}
	return breaks, count
}

// daemonGroupsOn lists, once each, the groups on key counting one of the daemons.
func daemonGroupsOn(running []*Daemon, key string) []*Group {
	var out []*Group
	for _, d := range running {
		for _, g := range d.Groups {
			if g.Key == key && !containsGroup(out, g) {
				out = append(out, g)
			}
		}
	}
	return out
}

// RecordDaemons counts the pods of the daemons running on new node number node, named name,
// in the domains its requirements reqs fix. A group whose node filter reqs do not yet imply
// does not count them (as it does not count the node's pods). It reports whether any pod was
// counted.
func (r *Rules) RecordDaemons(running []*Daemon, reqs requirements.Requirements, name string, node int) bool {
	counted := false
	for _, d := range running {
		for _, g := range d.Groups {
			if !g.CountsOnNew(reqs) {
				continue
			}
			v := name
			if g.Key != requirements.LabelHostname {
				req, ok := reqs[g.Key]
				if !ok || req.Len() != 1 {
					continue
				}
				v, _ = req.Any()
			}
			r.RecordDaemonPod(g, v, node)
			counted = true
		}
	}
	return counted
}

// Offer is a new node's instance-type options as SettleDaemons sees them: the solver keeps
// them, and narrows them when asked.
type Offer interface {
	// AnyRuns reports whether runs (by the pool's type number) holds for one of the options.
	AnyRuns(runs []bool) bool
	// Cheapest returns the type number and price of the cheapest offering an option allows
	// under reqs.
	Cheapest(reqs requirements.Requirements) (typ int, price float64, ok bool)
	// Narrow drops the options reqs does not allow.
	Narrow(reqs requirements.Requirements)
	// Keep drops the options whose runs (by type number) is not want.
	Keep(runs []bool, want bool)
}

// SettleDaemons decides, for a node of NodePool pool about to open with requirements reqs and
// the options offer, which counted daemons will run on it, and fixes every label key their
// groups spread over (but the hostname) to one value, returning the narrowed requirements and
// the daemons to record (RecordDaemons) once the node has its number. Fixing the key now,
// rather than counting the daemon when the last offering is chosen, is what keeps the final
// state valid: the pods placed after it see the daemon's pod in its domain, whereas a count
// made at the end would come after every check. The value is the one that breaks no placed
// pod's required spread or anti-affinity, then the cheapest, then the least counted. Options
// that disagree with the cheapest on whether a daemon runs are dropped, so the count does not
// depend on the type launched. With no counted daemon it does nothing.
func (s *State) SettleDaemons(pool int, reqs requirements.Requirements, offer Offer) (requirements.Requirements, []*Daemon) {
	if s == nil || len(s.daemons) == 0 {
		return reqs, nil
	}
	var running []*Daemon
	for _, dc := range s.daemons {
		if !offer.AnyRuns(dc.Runs[pool]) || !s.cluster.DaemonRuns(dc.Template, pool, -1, reqs) {
			continue
		}
		running = append(running, dc)
	}
	if len(running) == 0 {
		return reqs, nil
	}
	copied := false
	for _, key := range DaemonKeys(running) {
		if key == requirements.LabelHostname {
			continue
		}
		if r, ok := reqs[key]; ok && r.Len() == 1 {
			continue
		}
		best, bestPrice, bestBreaks, bestCount, found := "", 0.0, false, 0, false
		for _, v := range s.domains.Within(pool, key, reqs) {
			narrowed := reqs.Copy()
			narrowed.Add(requirements.New(key, corev1.NodeSelectorOpIn, v))
			_, price, ok := offer.Cheapest(narrowed)
			if !ok {
				continue
			}
			breaks, count := s.rules.DaemonsBreak(running, key, v)
			better := !found || (!breaks && bestBreaks) ||
				(breaks == bestBreaks && (price < bestPrice || (price == bestPrice && count < bestCount)))
			if better {
				best, bestPrice, bestBreaks, bestCount, found = v, price, breaks, count, true
			}
		}
		if !found {
			continue // no option carries the key: the daemon is counted in no domain of it
		}
		if !copied {
			reqs = reqs.Copy()
			copied = true
		}
		reqs.Add(requirements.New(key, corev1.NodeSelectorOpIn, best))
	}
	if copied {
		offer.Narrow(reqs)
	}
	if typ, _, ok := offer.Cheapest(reqs); ok {
		for _, dc := range running {
			offer.Keep(dc.Runs[pool], dc.Runs[pool][typ])
		}
		kept := running[:0]
		for _, dc := range running {
			if dc.Runs[pool][typ] {
				kept = append(kept, dc)
			}
		}
		running = kept
	}
	return reqs, running
}

// RecordDaemons counts the pods of the daemons SettleDaemons found running on new node number
// index, named name, with requirements reqs. It reports whether any pod was counted.
func (s *State) RecordDaemons(running []*Daemon, reqs requirements.Requirements, name string, index int) bool {
	return s != nil && s.rules.RecordDaemons(running, reqs, name, index)
}

// The rules of the DaemonSet pods fresh nodes bring.

// daemons is how many pods counted by g node n brings with it before any pod joins.
func (r *Rules) daemons(n Node, g *Group) int {
	if !n.Fresh || r.freshDaemons == nil {
		return 0
	}
	if per := r.freshDaemons[g]; per != nil {
		return per[n.Pool]
	}
	return 0
}

// AddFreshDaemon notes a DaemonSet whose pods g counts and that runs on every node of the
// pools marked in everywhere (indexed by NodePool number): each fresh node of those pools
// brings one such pod.
func (r *Rules) AddFreshDaemon(g *Group, everywhere []bool) {
	if r.freshDaemons == nil {
		r.freshDaemons = map[*Group][]int{}
	}
	per := r.freshDaemons[g]
	if per == nil {
		per = make([]int, len(everywhere))
		r.freshDaemons[g] = per
	}
	for i, runs := range everywhere {
		if runs {
			per[i]++
		}
	}
}

// DeclaresDaemonGroup reports whether the pod declares a spread whose count fresh nodes' DaemonSet
// pods raise: judging a fresh node with those pods in it is something a loose pod gives up,
// since a zone spread whose every node holds a counted daemon pod cannot be kept by a pod that
// starts a domain alone (the empty zones stay at 0).
func (r *Rules) DeclaresDaemonGroup(terms []Term) bool {
	if r.freshDaemons == nil {
		return false
	}
	for _, t := range terms {
		if t.Group.Kind == Spread && r.freshDaemons[t.Group] != nil {
			return true
		}
	}
	return false
}

// RecordDaemonPod counts, in group g, a DaemonSet pod that comes with new node number node in
// domain.
func (r *Rules) RecordDaemonPod(g *Group, domain string, node int) {
	r.epoch++
	g.RecordIn(domain, true, false)
	if g.Key == requirements.LabelHostname {
		r.noteHostname(g, domain, node)
	}
}

// DaemonPodsBreak reports whether added more pods counted by g, coming with a node into
// domain, would break a rule of pods already placed there: a required spread whose declaring
// pod is in the domain and whose count would exceed the least count over the declarers'
// domains by more than maxSkew, or a required anti-affinity owned there.
func (r *Rules) DaemonPodsBreak(g *Group, domain string, added int) bool {
	switch g.Kind {
	case Spread:
		if g.Owners(domain) == 0 {
			return false
		}
		declared := r.declarerDomains[g]
		return declared != nil && g.Count(domain)+added-g.MinCount(declared.sorted) > int(g.MaxSkew)
	case AntiAffinity:
		return g.Owners(domain) > 0
	}
	return false
}
