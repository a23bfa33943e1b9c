package topology

import (
	"maps"
	"slices"

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
