package scheduling

import "slices"

// SimulateFresh is Simulate worked out from scratch, the oracle of the Cluster's shortcuts:
// the input changed by name (without the Cluster's base), prepared anew and solved without
// the base.
func SimulateFresh(c *Cluster, change Change, opts Options) (Plan, error) {
	c = &Cluster{in: c.in, prep: c.prep, baseBuilt: true} // no base
	in, fresh, err := c.changed(change)
	if err != nil {
		return Plan{}, err
	}
	in.Options = opts
	in.ReservedNodeNames = append(slices.Clip(in.ReservedNodeNames), change.RemoveNodes...)
	if len(change.Requirements) > 0 {
		if _, in.NodePools, err = c.narrow(change.Requirements); err != nil {
			return Plan{}, err
		}
	}
	prep, err := prepare(in)
	if err != nil {
		return Plan{}, err
	}
	return solve(in, prep, start{fresh: fresh}) // the change's own pods are those that stop it
}

// Interleaved is opts with existing-first placement off (see solver.existingFirst): pods
// are placed one by one on existing or new nodes, in queue order.
func Interleaved(opts Options) Options {
	opts.interleaved = true
	return opts
}

// ExistingFirst reports whether a Simulate of change under opts places its pods on existing
// nodes before planning any new one (see solver.existingFirst).
func ExistingFirst(c *Cluster, change Change, opts Options) (bool, error) {
	delta := &nodeDelta{}
	in, fresh, err := c.changedNoting(change, delta)
	if err != nil {
		return false, err
	}
	in.Options = opts
	in.ReservedNodeNames = append(slices.Clip(in.ReservedNodeNames), change.RemoveNodes...)
	s, pods, _, err := newSolver(in, c.prep, start{base: c.base(), delta: delta, ranked: len(change.Initialize) == 0, fresh: fresh})
	if err != nil {
		return false, err
	}
	if opts.Strategy == StrategyKarpenter {
		return false, nil
	}
	return s.existingFirst(pods), nil
}

// FirstMoveStop is what Simulate's shortcut for what-ifs that stop at their first displaced
// pod answers (see firstMoves): the stop, or nil when it cannot tell.
func FirstMoveStop(c *Cluster, change Change, opts Options) error {
	if stop := c.firstMoveStop(change, opts); stop != nil {
		return stop
	}
	return nil
}

// PodHosts is where the Cluster finds the running pods of keys (found), and where reading
// every node's pods finds them (scanned); indexed is false when the Cluster found them by
// reading every node's pods rather than from its index of pods.
func PodHosts(c *Cluster, keys []string) (found, scanned map[string][]int, indexed bool) {
	set := map[string]bool{}
	for _, k := range keys {
		set[k] = true
	}
	ix := c.nodeNames()
	if ix == nil {
		return nil, nil, false
	}
	found = c.podHosts(ix, set)
	return found, ix.hostsOf(set), c.homes != nil
}
