package scheduling

import (
	"slices"

	"github.com/nodeplan/nodeplan/internal/resources"
)

// newBaseFrom works in's base out like newBase, taking from last (the base of a state this
// one came from through Apply or PrepareReusing) what still holds: the copy, room and
// listing of every node whose conversion is the same object, and last's names taken when the
// nodes' names and the reserved names are the same. Between two decisions of a replay most
// nodes are unchanged, and building a base of a thousand nodes afresh read each one's
// conversion, scattered in memory, several times over (Day32cpu10x: 6 s of the main
// goroutine's 69). It returns nil when last cannot serve (another resource dimension set),
// and newBase then builds the base.
func newBaseFrom(last *base, ix *nodeIndex, in Input, prep *prepared) *base {
	if last == nil || ix == nil || last.dims != prep.dims {
		return nil
	}
	n := len(in.ExistingNodes)
	b := &base{nodeIndex: *ix, dims: prep.dims, reserved: in.ReservedNodeNames, tmpls: make([]*existingNode, n)}
	// from[i] is the rank in last of the copy node i takes, -1 when it is converted afresh.
	from := make([]int, n)
	sameNames := n == len(last.inputNodes)
	j := 0
	for i, en := range in.ExistingNodes {
		tmpl, ok := prep.existing[en]
		if !ok {
			return nil
		}
		b.tmpls[i] = tmpl
		from[i] = -1
		// Apply keeps the nodes' order and PrepareReusing is given them in the same order, so
		// the two lists are read side by side; a name is looked up only where they differ.
		at := -1
		switch {
		case j < len(last.inputNodes) && last.inputNodes[j] == en:
			at = j
		default:
			if k, ok := last.index[en.Node.Name]; ok && k >= j {
				sameNames = sameNames && k == j
				at = k
			} else {
				sameNames = false
			}
		}
		if at < 0 {
			continue
		}
		j = at + 1
		if last.tmpls[at] == tmpl {
			from[i] = last.rank[at]
		}
	}
	sameNames = sameNames && j == len(last.inputNodes) && slices.Equal(in.ReservedNodeNames, last.reserved) && samePools(last, prep)
	if sameNames {
		b.used, b.firstFree = last.used, last.firstFree
	} else {
		b.used, b.firstFree = namesTaken(in, prep)
	}
	positions := mergeRanks(last, b.tmpls, from)
	b.positions = positions
	b.rank = make([]int, n)
	for r, i := range positions {
		b.rank[i] = r
	}
	lastListing := make([]bool, len(last.inputNodes))
	for _, i := range last.listing {
		lastListing[i] = true
	}
	slots := b.nodeSlots(n, prep.dims)
	room := make(resources.Vector, prep.dims.Len())
	for r, i := range positions {
		was := from[i]
		if was < 0 {
			b.setShared(r, &slots[r], b.tmpls[i], room)
			continue
		}
		slots[r] = *last.nodes[was]
		slots[r].index = b.free.Add(last.free.Free(was))
		b.nodes[r] = &slots[r]
	}
	for i, tmpl := range b.tmpls {
		if was := from[i]; (was >= 0 && lastListing[last.positions[was]]) || (was < 0 && tmpl.listedFirst()) {
			b.listing = append(b.listing, i)
		}
	}
	return b
}

// mergeRanks returns the positions of tmpls in the order solves try them (compareExisting).
// The nodes that take last's copies (from[i] >= 0) keep last's order among themselves, since
// their conversions, and so their readiness and names, are last's; only the others are
// sorted, and each is put in its place by a binary search.
func mergeRanks(last *base, tmpls []*existingNode, from []int) []int {
	kept := make([]int, len(last.positions)) // by rank in last: the position taking its copy
	for i := range kept {
		kept[i] = -1
	}
	var fresh []int
	for i, was := range from {
		if was >= 0 {
			kept[was] = i
		} else {
			fresh = append(fresh, i)
		}
	}
	kept = slices.DeleteFunc(kept, func(i int) bool { return i < 0 })
	slices.SortFunc(fresh, func(a, b int) int { return compareExisting(tmpls[a], tmpls[b]) })
	positions := make([]int, 0, len(tmpls))
	k := 0
	for _, i := range fresh {
		at, _ := slices.BinarySearchFunc(kept, i, func(kp, i int) int { return compareExisting(tmpls[kp], tmpls[i]) })
		positions = append(positions, kept[k:max(k, at)]...)
		k = max(k, at)
		positions = append(positions, i)
	}
	return append(positions, kept[k:]...)
}

// samePools reports whether last numbered the names of prep's NodePools, and no other.
func samePools(last *base, prep *prepared) bool {
	if len(last.firstFree) != len(prep.pools) {
		return false
	}
	for _, pool := range prep.pools {
		if _, ok := last.firstFree[pool.NodePool.Name]; !ok {
			return false
		}
	}
	return true
}
