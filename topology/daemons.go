package topology

import (
	"sort"

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
