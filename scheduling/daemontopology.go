package scheduling

import (
	"sort"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/daemonset"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
	"github.com/nodeplan/nodeplan/typeindex"
)

// daemonCount is a DaemonSet whose pods some topology group counts. Every node that runs the
// DaemonSet holds one of those pods, which kube-scheduler's spread and pod-affinity filters
// count like any other pod: a DaemonSet in a workload's own namespace with the workload's
// labels raises its zone's count with every node the plan opens there.
type daemonCount struct {
	d *daemonset.Template
	// groups are the topology groups whose selector and namespaces match the daemon's pod.
	groups []*topology.Group
	// runs[pool index][type index] says whether the daemon runs on a node of that pool and
	// type, judged as applyDaemons judges the room it takes, so count and room agree.
	runs [][]bool
}

// setupDaemonTopology finds the daemons some group counts and counts the pods they will add to
// existing nodes still starting (initialized nodes already run theirs, counted as running pods).
// With no such daemon it leaves ts.daemons nil and nothing else of the solve changes.
func (s *solver) setupDaemonTopology(daemons []*daemonset.Template) {
	ts := s.topology
	groups := ts.tracker.Groups()
	for _, d := range daemons {
		var matched []*topology.Group
		for _, g := range groups {
			if g.Matches(d.Pod) {
				matched = append(matched, g)
			}
		}
		if len(matched) == 0 {
			continue
		}
		dc := &daemonCount{d: d, groups: matched, runs: make([][]bool, len(s.pools))}
		for i, pool := range s.pools {
			dc.runs[i] = make([]bool, len(pool.types))
			for j, t := range pool.types {
				reqs := pool.reqs.Copy()
				reqs.AddAll(t.Reqs)
				dc.runs[i][j] = d.RunsOn(pool.np.Taints, reqs, pool.allowUndefined)
			}
		}
		ts.daemons = append(ts.daemons, dc)
	}
	if len(ts.daemons) == 0 {
		return
	}
	for _, dc := range ts.daemons {
		everywhere := make([]bool, len(s.pools))
		for i := range s.pools {
			everywhere[i] = allTrue(dc.runs[i])
		}
		for _, g := range dc.groups {
			ts.rules.AddFreshDaemon(g, everywhere)
		}
	}
	for _, n := range s.existing {
		if n.initialized {
			continue
		}
		for _, dc := range ts.daemons {
			if n.daemonSets[dc.d.Name] || !dc.d.RunsOnNode(n.taints, n.labels) {
				continue
			}
			for _, g := range dc.groups {
				if v, ok := n.labels[g.Key]; ok && g.CountsOn(n.labels) {
					g.RecordIn(v, true, false)
				}
			}
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

// settleDaemons decides, for a node about to open with reqs and options, which counted daemons
// will run on it, and fixes every label key their groups spread over (but the hostname) to one
// value, returning the narrowed requirements and options and the daemons to record once the node
// has its index. Fixing the key now, rather than counting the daemon when the last offering is
// chosen, is what keeps the final state valid: the pods placed after it see the daemon's pod
// in its domain, whereas a count made at the end would come after every check. The value is the
// one that breaks no placed pod's required spread or anti-affinity, then the cheapest, then the
// least counted. Options that disagree with the cheapest on whether a daemon runs are dropped,
// so the count does not depend on the type launched. With no counted daemon it does nothing.
func (s *solver) settleDaemons(pool *poolState, reqs requirements.Requirements, options []*typeOption) (requirements.Requirements, []*typeOption, []*daemonCount) {
	ts := s.topology
	if ts == nil || len(ts.daemons) == 0 || len(options) == 0 {
		return reqs, options, nil
	}
	var running []*daemonCount
	for _, dc := range ts.daemons {
		if !anyTrue(dc.runs[pool.index], options) || !dc.d.RunsOn(pool.np.Taints, reqs, pool.allowUndefined) {
			continue
		}
		running = append(running, dc)
	}
	if len(running) == 0 {
		return reqs, options, nil
	}
	copied := false
	for _, key := range daemonKeys(running) {
		if key == requirements.LabelHostname {
			continue
		}
		if r, ok := reqs[key]; ok && r.Len() == 1 {
			continue
		}
		best, bestPrice, bestBreaks, bestCount, found := "", 0.0, false, 0, false
		for _, v := range s.domainCandidates(key, reqs, nodeView{pool: pool}) {
			narrowed := reqs.Copy()
			narrowed.Add(requirements.New(key, corev1.NodeSelectorOpIn, v))
			c, ok := cheapestChoice(options, narrowed)
			if !ok {
				continue
			}
			breaks, count := s.daemonsBreak(running, key, v)
			price := c.offering.Price
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
		options = filterOptions(options, func(t *typeOption) bool { return typeindex.Allows(&t.Type, reqs) })
	}
	if c, ok := cheapestChoice(options, reqs); ok {
		for _, dc := range running {
			want := dc.runs[pool.index][c.option.index]
			options = filterOptions(options, func(t *typeOption) bool { return dc.runs[pool.index][t.index] == want })
		}
		kept := running[:0]
		for _, dc := range running {
			if dc.runs[pool.index][c.option.index] {
				kept = append(kept, dc)
			}
		}
		running = kept
	}
	return reqs, options, running
}

// anyTrue reports whether runs holds for one of the options.
func anyTrue(runs []bool, options []*typeOption) bool {
	for _, t := range options {
		if runs[t.index] {
			return true
		}
	}
	return false
}

// filterOptions returns the options keep accepts: options itself when it accepts all, else a
// new array (options may be shared with the pool or other nodes).
func filterOptions(options []*typeOption, keep func(*typeOption) bool) []*typeOption {
	for i, t := range options {
		if keep(t) {
			continue
		}
		out := append([]*typeOption(nil), options[:i]...)
		for _, u := range options[i+1:] {
			if keep(u) {
				out = append(out, u)
			}
		}
		return out
	}
	return options
}

// daemonKeys lists, sorted, the keys of the groups counting the daemons.
func daemonKeys(running []*daemonCount) []string {
	seen := map[string]bool{}
	for _, dc := range running {
		for _, g := range dc.groups {
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

// daemonsBreak reports whether the daemons' pods in domain v of key would break a rule of pods
// already placed there (a required spread whose declaring pod is in v and whose count would
// exceed the least count over the declarers' domains by more than maxSkew, or a required
// anti-affinity owned in v), and the sum of the counts of their spread groups in v.
func (s *solver) daemonsBreak(running []*daemonCount, key, v string) (bool, int) {
	breaks, count := false, 0
	for _, g := range daemonGroupsOn(running, key) {
		added := 0
		for _, dc := range running {
			if containsGroup(dc.groups, g) {
				added++
			}
		}
		if g.Kind == topology.Spread {
			count += g.Count(v)
		}
		if s.topology.rules.DaemonPodsBreak(g, v, added) {
			breaks = true
		}
	}
	return breaks, count
}

// daemonGroupsOn lists, once each, the groups on key counting one of the daemons.
func daemonGroupsOn(running []*daemonCount, key string) []*topology.Group {
	var out []*topology.Group
	for _, dc := range running {
		for _, g := range dc.groups {
			if g.Key == key && !containsGroup(out, g) {
				out = append(out, g)
			}
		}
	}
	return out
}

// recordDaemons counts the pods of the daemons settleDaemons found running on new node n, in
// the domains its requirements fix. A group whose node filter the node does not yet imply does
// not count them (as it does not count the node's pods).
func (s *solver) recordDaemons(n *newNode, running []*daemonCount) {
	for _, dc := range running {
		for _, g := range dc.groups {
			if !g.CountsOnNew(n.reqs) {
				continue
			}
			v := n.name
			if g.Key != requirements.LabelHostname {
				r, ok := n.reqs[g.Key]
				if !ok || r.Len() != 1 {
					continue
				}
				v, _ = r.Any()
			}
			s.topology.rules.RecordDaemonPod(g, v, n.index)
			n.daemonCounted = true
		}
	}
}
