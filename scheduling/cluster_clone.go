package scheduling

// Clone returns a Cluster equal to c, for another goroutine: it plans exactly as c does, and
// c and the clone may then Simulate and Apply concurrently, each on its own goroutine,
// without either seeing the other's changes. Clone itself must not run concurrently with a
// use of c.
//
// It costs next to nothing, where Prepare converts every node and pod again: the clone
// shares what no solve modifies (the input's objects, the NodePools' instance-type options,
// the DaemonSets, the dimensions, the existing nodes' conversions and the base that solves
// start from, which a solve copies before it writes; the first Clone of a state works the
// base out) and owns what solves write, the memos: each NodePool's compatible types and the
// narrowed NodePools (cloned alike, so the clone does not prepare them again). The pods' own
// conversions and the running pods' requests (podMemo) and the NodePools' memos
// (nodetemplate.Memos) are shared under locks, so that what one clone worked out is not
// worked out again by the others. Since the clone reads c's node conversions, c's next Apply
// copies them instead of updating them in place.
func (c *Cluster) Clone() *Cluster {
	// The base is worked out here, once, rather than by each clone's first Simulate.
	out := &Cluster{in: c.in, prep: c.prep.clone(), shared: c.base(), baseBuilt: true}
	if len(c.narrowed) > 0 {
		out.narrowed = make(map[string]*prepared, len(c.narrowed))
		for key, prep := range c.narrowed {
			out.narrowed[key] = prep.clone()
		}
	}
	return out
}

// clone copies prep with memos of its own: the pools' compatible types start empty (a memo's
// content never changes a plan), while everything solves only read, or write under a lock,
// stays shared.
func (prep *prepared) clone() *prepared {
	prep.ownsExisting = false // the clone reads the same conversions from now on
	next := *prep
	next.pools = ownPools(prep.pools)
	return &next
}
