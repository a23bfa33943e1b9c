package topology

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/requirements"
)

// Domains are the values each topology key can take on a new node of each NodePool: the
// domains a planned node may still settle in. Hostname is not among the keys, since every
// node is its own hostname domain.
type Domains struct {
	// pools[pool][key] are the values, sorted.
	pools []map[string][]string
}

// NewDomains records, for each of the pools NodePools (numbered from 0) and each key a group
// spreads or (anti-)affines over, the sorted values values(pool, key) gives.
func NewDomains(pools int, groups []*Group, values func(pool int, key string) []string) *Domains {
	keys := map[string]bool{}
	for _, g := range groups {
		if g.Key != requirements.LabelHostname {
			keys[g.Key] = true
		}
	}
	d := &Domains{pools: make([]map[string][]string, pools)}
	for i := range d.pools {
		d.pools[i] = make(map[string][]string, len(keys))
		for k := range keys {
			d.pools[i][k] = values(i, k)
		}
	}
	return d
}

// Pools is the number of NodePools the domains were recorded for.
func (d *Domains) Pools() int { return len(d.pools) }

// Of lists the values key can take on a new node of the pool.
func (d *Domains) Of(pool int, key string) []string { return d.pools[pool][key] }

// Within lists the values key can take on a new node of the pool whose requirements are reqs.
// It returns the pool's own list when reqs leave key open.
func (d *Domains) Within(pool int, key string, reqs requirements.Requirements) []string {
	all := d.pools[pool][key]
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

// Anywhere lists, sorted and once each, the values key can take under reqs on a new node of
// any pool.
func (d *Domains) Anywhere(key string, reqs requirements.Requirements) []string {
	seen := map[string]bool{}
	r, constrained := reqs[key]
	for _, domains := range d.pools {
		for _, v := range domains[key] {
			if !constrained || r.Has(v) {
				seen[v] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// Joining is a node a pod may join, as Narrow sees it.
type Joining struct {
	// Name is the node's hostname.
	Name string
	// Existing marks a node of the cluster, with these labels.
	Existing bool
	Labels   map[string]string
	// Pool is a new node's NodePool number.
	Pool int
	// Fresh marks a new node about to open for the pod: the DaemonSet pods it brings come with
	// it into the same domain. A new node neither existing nor fresh is a planned one.
	Fresh bool
}

// Refusal is why Narrow found no domain for a pod on a node: Group refuses it in Domains,
// or, when Domains is nil, in the one domain Domain (kept apart so that a refusal costs no
// allocation).
type Refusal struct {
	Group   *Group
	Domain  string
	Domains []string
}

// Narrow returns reqs, a new node's requirements (or an existing node's), narrowed so that a
// pod with the active terms, counted by the matched groups, joining node n keeps every rule
// on keys (RuleKeys): a key the pod is counted on is fixed to one value, so the count lands
// in exactly the domain the node will be in; the value is the first RankDomains gives that
// launchable accepts (the node can launch with reqs narrowed to key = value). judge answers
// Violated for the pod on n. When no domain is allowed, Narrow returns nil and why (the
// domains a launchable value was sought in only if explain).
func (d *Domains) Narrow(active []Term, matched []*Group, keys []string, reqs requirements.Requirements, n Joining, judge Judge, launchable func(reqs requirements.Requirements, key, value string) bool, explain bool) (requirements.Requirements, Refusal) {
	out := reqs
	copied := false
	for _, key := range keys {
		if key == requirements.LabelHostname {
			if g := judge(key, n.Name); g != nil {
				return nil, Refusal{Group: g, Domain: n.Name}
			}
			continue
		}
		if single, ok := n.single(key, out); ok {
			if g := judge(key, single); g != nil {
				return nil, Refusal{Group: g, Domain: single}
			}
			continue
		}
		candidates := d.candidates(key, out, n)
		allowed := candidates[:0:0]
		var failing *Group
		for _, v := range candidates {
			if g := judge(key, v); g != nil {
				if failing == nil {
					failing = g
				}
				continue
			}
			allowed = append(allowed, v)
		}
		if len(allowed) == 0 {
			if len(candidates) == 0 && !RequiresKey(active, key) {
				continue // no value for the key: anti-affinity holds, spread and affinity do not apply
			}
			if failing == nil {
				failing = FirstOn(active, key)
			}
			if failing == nil {
				continue // only counted here, and the node has no value for the key
			}
			return nil, Refusal{Group: failing, Domains: candidates}
		}
		if n.Existing {
			continue
		}
		if r, ok := out[key]; ok && r.Len() == 1 {
			continue
		}
		choice, found := "", false
		ranked := append([]string(nil), allowed...)
		RankDomains(active, matched, key, ranked)
		for _, v := range ranked {
			if launchable(out, key, v) {
				choice, found = v, true
				break
			}
		}
		if !found {
			g := FirstOn(active, key)
			if g == nil {
				g = matched[0]
			}
			refused := Refusal{Group: g}
			if explain {
				refused.Domains = append([]string(nil), allowed...)
			}
			return nil, refused
		}
		if !copied {
			out = out.Copy()
			copied = true
		}
		out.Add(requirements.New(key, corev1.NodeSelectorOpIn, choice))
	}
	return out, Refusal{}
}

// single returns the one value key has on the node when it is already decided: an existing
// node's label, or a new node's single-valued requirement.
func (n Joining) single(key string, reqs requirements.Requirements) (string, bool) {
	if n.Existing {
		v, ok := n.Labels[key]
		return v, ok
	}
	if r, ok := reqs[key]; ok && r.Len() == 1 {
		return r.Any()
	}
	return "", false
}

// candidates lists the values key (not the hostname) could take on the node: an existing
// node's label, or the values a new node of its pool can still take under reqs.
func (d *Domains) candidates(key string, reqs requirements.Requirements, n Joining) []string {
	if n.Existing {
		if v, ok := n.Labels[key]; ok {
			return []string{v}
		}
		return nil
	}
	return d.Within(n.Pool, key, reqs)
}

// RecordJoined records, in r, pod p joining node n: number node among the planned nodes, or
// -1 for an existing node; a new node's requirements are reqs, and its keys left open may
// still take the values d gives for any pool.
func (d *Domains) RecordJoined(r *Rules, p Pod, n Joining, reqs requirements.Requirements, node int) {
	at := Placement{Node: node}
	at.Domain = func(key string) (string, bool) {
		if key == requirements.LabelHostname {
			return n.Name, true
		}
		return n.single(key, reqs)
	}
	if n.Existing {
		at.Counts = func(g *Group) bool { return g.CountsOn(n.Labels) }
	} else {
		at.Counts = func(g *Group) bool { return g.CountsOnNew(reqs) }
		at.Undecided = func(key string) []string { return d.Anywhere(key, reqs) }
	}
	r.Record(p, at)
}
