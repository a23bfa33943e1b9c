package scheduling

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
)

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

// RepackAlways is opts with improve repacking every group of new nodes, a lone node that no
// repacking can beat too (see solver.repackCannotBeat).
func RepackAlways(opts Options) Options {
	opts.repackAlways = true
	return opts
}

// CountingRepackSkips is opts counting, in skips, the lone new nodes improve leaves alone.
func CountingRepackSkips(opts Options, skips *int) Options {
	opts.repackSkips = skips
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

// Conversions checks the Cluster's node conversions against fresh ones (one for each node,
// none for a node it no longer has, each what converting the node now gives), and its index
// of node names against a fresh one. owned is whether the next Apply updates the
// conversions in place.
func Conversions(c *Cluster) (owned bool, err error) {
	named := 0
	for _, en := range c.in.ExistingNodes {
		if en == nil || en.Node == nil || en.Node.Name == "" {
			continue
		}
		named++
		got, ok := c.prep.existing[en]
		if !ok {
			return false, fmt.Errorf("node %s has no conversion", en.Node.Name)
		}
		want, err := newExistingNode(en, c.prep.dims, requestsMap{}, nil)
		if err != nil {
			return false, err
		}
		if got.name != want.name || got.node != want.node || got.nodePool != want.nodePool || got.initialized != want.initialized ||
			!maps.Equal(got.labels, want.labels) || !slices.Equal(got.capacity, want.capacity) || !slices.Equal(got.allocatable, want.allocatable) ||
			!slices.Equal(got.used, want.used) || !reflect.DeepEqual(got.taints, want.taints) || len(got.volumePods) != len(want.volumePods) ||
			len(got.antiAffinityPods) != len(want.antiAffinityPods) || !maps.Equal(got.daemonSets, want.daemonSets) {
			return false, fmt.Errorf("node %s's conversion is not the node's", en.Node.Name)
		}
	}
	if len(c.prep.existing) != named {
		return false, fmt.Errorf("%d conversions for %d nodes", len(c.prep.existing), named)
	}
	if ix, fresh := c.nodeNames(), newNodeIndex(c.in); (ix == nil) != (fresh == nil) || ix != nil &&
		(!maps.Equal(ix.index, fresh.index) || !slices.Equal(ix.inputNodes, fresh.inputNodes)) {
		return false, fmt.Errorf("the index of node names is not the nodes'")
	}
	return c.prep.ownsExisting, nil
}

// BaseDiff builds the base c's simulations start from, which takes what still holds from an
// earlier state's (see newBaseFrom), and says how it differs from one newBase works out from
// c's input alone: "" when it does not.
func BaseDiff(c *Cluster) string {
	got := c.base()
	want := newBase(c.nodeNames(), c.in, c.prep)
	if got == nil || want == nil {
		if (got == nil) != (want == nil) {
			return fmt.Sprintf("base %v, afresh %v", got != nil, want != nil)
		}
		return ""
	}
	switch {
	case !slices.Equal(got.rank, want.rank):
		return fmt.Sprintf("ranks %v, afresh %v", got.rank, want.rank)
	case !slices.Equal(got.positions, want.positions):
		return fmt.Sprintf("positions %v, afresh %v", got.positions, want.positions)
	case !slices.Equal(got.listing, want.listing):
		return fmt.Sprintf("listing %v, afresh %v", got.listing, want.listing)
	case !maps.Equal(got.used, want.used):
		return fmt.Sprintf("names taken %v, afresh %v", slices.Sorted(maps.Keys(got.used)), slices.Sorted(maps.Keys(want.used)))
	case !maps.Equal(got.firstFree, want.firstFree):
		return fmt.Sprintf("first free numbers %v, afresh %v", got.firstFree, want.firstFree)
	case !slices.Equal(got.tmpls, want.tmpls):
		return "conversions differ"
	case !maps.Equal(got.index, want.index) || !slices.Equal(got.inputNodes, want.inputNodes):
		return "index of names differs"
	}
	for r := range want.nodes {
		if !reflect.DeepEqual(*got.nodes[r], *want.nodes[r]) {
			return fmt.Sprintf("node at rank %d: %+v, afresh %+v", r, *got.nodes[r], *want.nodes[r])
		}
		if !slices.Equal(got.free.Free(r), want.free.Free(r)) {
			return fmt.Sprintf("room at rank %d: %v, afresh %v", r, got.free.Free(r), want.free.Free(r))
		}
	}
	return ""
}

// BaseTakenFromLast reports whether c's base, once built, was taken from an earlier state's.
func BaseTakenFromLast(c *Cluster) bool {
	if c.baseBuilt {
		return false
	}
	last, ix := c.last, c.nodeNames()
	return newBaseFrom(last, ix, c.in, c.prep) != nil
}
