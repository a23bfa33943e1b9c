package scheduling

import (
	"slices"
	"strconv"
)

// base is what every Simulate on one state of a Cluster shares about its existing nodes: it
// is worked out on the first Simulate after Prepare or Apply, then only read (clones share
// it), so that a what-if touching a few nodes does not rebuild it from the whole cluster.
type base struct {
	// index maps each node's name to its position in the input's ExistingNodes.
	index map[string]int
	// rank is each input node's position in the order solves try existing nodes
	// (initialized first, then by name). Names are unique, so that order is a property of the
	// nodes, not of the input's order: a change that keeps every node's readiness keeps it.
	rank []int
	// used holds the names new nodes may not take: every node's and the reserved ones (a
	// node a change removes stays reserved, so a change never frees a name).
	used map[string]bool
	// firstFree is, per NodePool name, the lowest number n from 1 whose name <nodepool>-<n>
	// is not in used: every lower one is taken.
	firstFree map[string]int
}

// base returns the Cluster's base, nil when its input has a node the solver rejects (nil,
// unnamed or given twice): solves then report the problem the slow way.
func (c *Cluster) base() *base {
	if c.baseBuilt {
		return c.shared
	}
	c.baseBuilt = true
	c.shared = newBase(c.in, c.prep)
	return c.shared
}

func newBase(in Input, prep *prepared) *base {
	b := &base{index: make(map[string]int, len(in.ExistingNodes)), used: make(map[string]bool, len(in.ExistingNodes)+len(in.ReservedNodeNames))}
	order := make([]*existingNode, len(in.ExistingNodes))
	for i, en := range in.ExistingNodes {
		if en == nil || en.Node == nil || en.Node.Name == "" {
			return nil
		}
		if _, twice := b.index[en.Node.Name]; twice {
			return nil
		}
		tmpl, ok := prep.existing[en]
		if !ok {
			return nil
		}
		b.index[en.Node.Name] = i
		b.used[en.Node.Name] = true
		order[i] = tmpl
	}
	for _, name := range in.ReservedNodeNames {
		b.used[name] = true
	}
	b.firstFree = make(map[string]int, len(prep.pools))
	for _, pool := range prep.pools {
		n := 1
		for b.used[pool.np.Name+"-"+strconv.Itoa(n)] {
			n++
		}
		b.firstFree[pool.np.Name] = n
	}
	positions := make([]int, len(order))
	for i := range positions {
		positions[i] = i
	}
	slices.SortFunc(positions, func(i, j int) int { return compareExisting(order[i], order[j]) })
	b.rank = make([]int, len(order))
	for r, i := range positions {
		b.rank[i] = r
	}
	return b
}

// compareExisting orders existing nodes as solves try them: initialized nodes first, then
// nodes still starting; by name within each group.
func compareExisting(a, b *existingNode) int {
	if a.initialized != b.initialized {
		if a.initialized {
			return -1
		}
		return 1
	}
	switch {
	case a.name < b.name:
		return -1
	case a.name > b.name:
		return 1
	}
	return 0
}

// nameSet is the set of node names taken, over a base set shared by every solve of a
// Cluster state: names added by one solve go to its own map.
type nameSet struct {
	shared map[string]bool
	own    map[string]bool
	// firstFree is the base's (see base.firstFree), nil without one.
	firstFree map[string]int
}

func (s *nameSet) has(name string) bool { return s.shared[name] || s.own[name] }

func (s *nameSet) add(name string) {
	if s.own == nil {
		s.own = map[string]bool{}
	}
	s.own[name] = true
}
