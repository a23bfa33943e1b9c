package scheduling

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/daemonset"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
	"github.com/nodeplan/nodeplan/typeindex"
)

// setupDaemonTopology finds the daemons some group counts and counts the pods they will add to
// existing nodes still starting (initialized nodes already run theirs, counted as running pods).
// With no such daemon it leaves ts.daemons nil and nothing else of the solve changes.
func (s *solver) setupDaemonTopology(daemons []*daemonset.Template) {
	ts := s.topology
	ts.daemons = topology.CountedDaemons(daemons, ts.tracker.Groups())
	if len(ts.daemons) == 0 {
		return
	}
	for _, dc := range ts.daemons {
		dc.Runs = make([][]bool, len(s.pools))
		for i, pool := range s.pools {
			dc.Runs[i] = make([]bool, len(pool.types))
			for j, t := range pool.types {
				reqs := pool.reqs.Copy()
				reqs.AddAll(t.Reqs)
				dc.Runs[i][j] = dc.Template.RunsOn(pool.np.Taints, reqs, pool.allowUndefined)
			}
		}
	}
	ts.rules.AddDaemons(ts.daemons)
	for _, n := range s.existing {
		if n.initialized {
			continue
		}
		for _, dc := range ts.daemons {
			if n.daemonSets[dc.Template.Name] || !dc.Template.RunsOnNode(n.taints, n.labels) {
				continue
			}
			for _, g := range dc.Groups {
				if v, ok := n.labels[g.Key]; ok && g.CountsOn(n.labels) {
					g.RecordIn(v, true, false)
				}
			}
		}
	}
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
func (s *solver) settleDaemons(pool *poolState, reqs requirements.Requirements, options []*typeOption) (requirements.Requirements, []*typeOption, []*topology.Daemon) {
	ts := s.topology
	if ts == nil || len(ts.daemons) == 0 || len(options) == 0 {
		return reqs, options, nil
	}
	var running []*topology.Daemon
	for _, dc := range ts.daemons {
		if !anyTrue(dc.Runs[pool.index], options) || !dc.Template.RunsOn(pool.np.Taints, reqs, pool.allowUndefined) {
			continue
		}
		running = append(running, dc)
	}
	if len(running) == 0 {
		return reqs, options, nil
	}
	copied := false
	for _, key := range topology.DaemonKeys(running) {
		if key == requirements.LabelHostname {
			continue
		}
		if r, ok := reqs[key]; ok && r.Len() == 1 {
			continue
		}
		best, bestPrice, bestBreaks, bestCount, found := "", 0.0, false, 0, false
		for _, v := range ts.domains.Within(pool.index, key, reqs) {
			narrowed := reqs.Copy()
			narrowed.Add(requirements.New(key, corev1.NodeSelectorOpIn, v))
			c, ok := cheapestChoice(options, narrowed)
			if !ok {
				continue
			}
			breaks, count := ts.rules.DaemonsBreak(running, key, v)
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
			want := dc.Runs[pool.index][c.option.index]
			options = filterOptions(options, func(t *typeOption) bool { return dc.Runs[pool.index][t.index] == want })
		}
		kept := running[:0]
		for _, dc := range running {
			if dc.Runs[pool.index][c.option.index] {
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

// recordDaemons counts the pods of the daemons settleDaemons found running on new node n.
func (s *solver) recordDaemons(n *newNode, running []*topology.Daemon) {
	if s.topology != nil && s.topology.rules.RecordDaemons(running, n.reqs, n.name, n.index) {
		n.daemonCounted = true
	}
}
