package disruption

import (
	"math"
	"sort"

	"github.com/nodeplan/nodeplan/scheduling"
)

// multiNode removes several nodes in one command. It looks at the candidates the budgets and
// PodDisruptionBudgets allow together and keeps the best valid set it finds: first
// Karpenter's binary search over prefixes of the ranked list (of its first
// MaxMultiNodeCandidates); then, beyond Karpenter, a binary search over longer prefixes than
// one found too short (see prefixSearch); then it grows the best set (or an empty one) by
// each other candidate in rank order whose addition saves more, which finds sets that are
// not prefixes. Under karpenterMultiNode it runs Karpenter's binary search alone.
func (d *decider) multiNode() error {
	list, skipped := d.multiNodeList()
	if len(list) < 2 {
		return nil
	}
	best := d.prefixSearch(list)
	// stranded says, per candidate whose addition to the set would strand a staying pod's
	// required affinity, which (see staying.go), for its explanation.
	stranded := map[*nodeState]string{}
	if !d.karpenterMultiNode {
		d.grow(list, &best, stranded)
	}
	if best == nil || len(best.cands) < 2 {
		return nil
	}
	sort.SliceStable(best.cands, func(i, j int) bool { return rankLess(best.cands[i], best.cands[j]) })
	d.trimOptions(best)
	d.commands = append(d.commands, d.command(MethodMultiNodeConsolidation, scheduling.ReasonUnderutilized, best))
	if err := d.commit(best); err != nil {
		return err
	}
	for _, c := range list {
		if c.acted {
			continue
		}
		if why := stranded[c]; why != "" {
			c.block("multi-node consolidation removed other nodes in this decision (%s); removing this one: %s", namesKey(best.cands), why)
			continue
		}
		c.block("multi-node consolidation removed other nodes in this decision (%s)", namesKey(best.cands))
	}
	for n, why := range skipped {
		n.blockWith(why)
	}
	return nil
}

// prefixSearch returns the best valid consolidation among the prefixes of list it simulates,
// or nil. Like Karpenter, it binary-searches the longest valid prefix of the first
// MaxMultiNodeCandidates (of two nodes or more), taking every failure as "too long"; its
// first try is about half of them, not all (Karpenter's firstNConsolidationOption). But a
// prefix can also fail for being too short: its pods fit on fewer new nodes, which cost no
// less than it, while a longer prefix's pods fit on new nodes that cost less than the longer
// prefix (an 8-cpu type cheaper per cpu than the 2-cpu nodes it replaces: two or three of
// them cost no more than it, four do). So beyond Karpenter, after its search it
// binary-searches once more above the longest prefix found too short (see
// searchPrefixLengths), which costs nothing when no prefix fails that way. The search is
// sequential, but with a second worker the prefixes it tries next while its tries fail are
// simulated, one after the other, while it simulates the current one (see ahead): on two
// cores most of its simulations are off its critical path, and which prefixes it tries, so
// the result, stays the same. Once those are done, the worker simulates the single nodes that
// grow and single-node consolidation try next.
func (d *decider) prefixSearch(list []*nodeState) *outcome {
	tried := map[string]bool{}
	bounds := map[string]string{}
	var best *outcome
	tooShort := 0 // the longest prefix whose pods fewer new nodes held at no lower price
	// bound is multiNodeBound, once per set: a set is bounded when it is next in line and
	// again when it is tried.
	bound := func(set []*nodeState, key string) string {
		why, ok := bounds[key]
		if !ok {
			why = d.multiNodeBound(set)
			bounds[key] = why
		}
		return why
	}
	// failChain is what the search tries after list[:n] while its tries fail, down to
	// list[:lo]: each a binary search's next, below the last.
	failChain := func(n, lo int) [][]*nodeState {
		var chain [][]*nodeState
		for m := (lo + n - 1) / 2; m >= lo && m < n; m = (lo + m - 1) / 2 {
			chain = append(chain, list[:m])
		}
		return chain
	}
	ahead := d.newAhead(d.singleCandidates())
	defer ahead.end()
	// try simulates a set, whose search goes down to list[:lo] while it fails; it reports
	// whether the set is a valid consolidation. Most tries fail: what the search would try
	// next then is simulated meanwhile on a second worker when there is one, and found in
	// the memo.
	try := func(set []*nodeState, lo int) bool {
		key := namesKey(set)
		if tried[key] || !canBeat(set, best) {
			return false
		}
		tried[key] = true
		if bound(set, key) != "" {
			return false
		}
		ahead.follow(failChain(len(set), lo))
		ahead.wait(set)
		o, why := d.consolidate(d.sim.cluster, set)
		if why != "" {
			if o.allPlaced() && len(o.replacements) < len(set) && o.cost >= priceOf(set)-priceEpsilon {
				tooShort = max(tooShort, len(set))
			}
			return false
		}
		if better(o, best) {
			best = o
		}
		return true
	}
	top := min(len(list), MaxMultiNodeCandidates)
	if d.karpenterMultiNode {
		binarySearchLengths(2, top, func(n, lo int) bool { return try(list[:n], lo) })
		return best
	}
	searchPrefixLengths(top, func(n, lo int) bool { return try(list[:n], lo) }, func() int { return tooShort })
	return best
}

// searchPrefixLengths runs prefixSearch's search over the prefix lengths 2 to top: try
// reports whether the prefix of length n is valid, and is told the shortest length the search
// goes down to while its tries fail; tooShort is the longest length found too short so far.
// The first round is Karpenter's binary search (firstNConsolidationOption: from about half,
// up after a success, down after a failure). When it found a length too short at or above
// where it ended, a second round binary-searches the lengths above that one. Only one: a
// length the second round finds too short again says the longer prefixes fit on more of the
// same nodes, not on fewer cheaper ones.
func searchPrefixLengths(top int, try func(n, lo int) bool, tooShort func() int) {
	end := binarySearchLengths(2, top, try)
	if short := tooShort(); short >= end {
		binarySearchLengths(short+1, top, try)
	}
}

// binarySearchLengths binary-searches the longest valid length from lo to hi, taking every
// failure as too long, and returns the length after the last it found valid (lo when none).
func binarySearchLengths(lo, hi int, try func(n, lo int) bool) int {
	for lo <= hi {
		mid := (lo + hi) / 2
		if try(mid, lo) {
			lo = mid + 1
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// grow adds to the best set, one at a time in rank order, each other candidate among the
// first MaxMultiNodeCandidates whose addition is a valid consolidation saving more. The additions are simulated in parallel
// until the first that succeeds, which then becomes the set the next ones are added to.
// Candidates whose addition strands a staying pod's required affinity are noted in stranded
// (only those before the first success, which are always simulated, so the notes do not
// depend on the number of workers).
func (d *decider) grow(list []*nodeState, best **outcome, stranded map[*nodeState]string) {
	var set []*nodeState
	if *best != nil {
		if len(list) <= len((*best).cands) || len((*best).cands) >= MaxMultiNodeCandidates {
			return
		}
		set = (*best).cands
	}
	rest := make([]*nodeState, 0, len(list))
	for _, c := range list[:min(len(list), MaxMultiNodeCandidates)] {
		if !containsNode(set, c) {
			rest = append(rest, c)
		}
	}
	for len(rest) > 0 && len(set) < MaxMultiNodeCandidates {
		current := *best
		// A sound bound skips additions that cannot save more than the current set: the pods
		// of the set and of the added node that fit on no staying node need new nodes.
		rooms, extra := d.growRooms(set)
		floor := 0.0
		if current != nil {
			floor = savings(current)
		}
		results, _, first := firstSuccess(d.sim, len(rest), func(cluster *scheduling.Cluster, i int) (*outcome, bool) {
			if d.growBound(set, rest[i], rooms, extra, floor) != "" {
				return nil, false
			}
			grown := append(append(make([]*nodeState, 0, len(set)+1), set...), rest[i])
			o, why := d.consolidate(cluster, grown)
			return o, why == "" && better(o, current)
		})
		tried := first
		if first < 0 {
			tried = len(rest)
		}
		for i, o := range results[:tried] {
			if o != nil && o.stranded != "" && stranded[rest[i]] == "" {
				stranded[rest[i]] = o.stranded
			}
		}
		if first < 0 {
			return
		}
		*best = results[first]
		set = (*best).cands
		rest = rest[first+1:]
	}
}

// better reports whether a is a better consolidation than b: more savings, then more nodes
// removed, then the names that sort first.
func better(a, b *outcome) bool {
	if b == nil {
		return true
	}
	sa, sb := savings(a), savings(b)
	if math.Abs(sa-sb) > priceEpsilon {
		return sa > sb
	}
	if len(a.cands) != len(b.cands) {
		return len(a.cands) > len(b.cands)
	}
	return namesKey(a.cands) < namesKey(b.cands)
}

func priceOf(set []*nodeState) float64 {
	price := 0.0
	for _, c := range set {
		price += c.price
	}
	return price
}

// canBeat reports whether removing set could save more than best: savings never exceed what
// the removed nodes cost.
func canBeat(set []*nodeState, best *outcome) bool {
	if best == nil {
		return true
	}
	price := 0.0
	for _, c := range set {
		price += c.price
	}
	return price > savings(best)+priceEpsilon || (math.Abs(price-savings(best)) <= priceEpsilon && len(set) > len(best.cands))
}

func containsNode(list []*nodeState, n *nodeState) bool {
	for _, x := range list {
		if x == n {
			return true
		}
	}
	return false
}

// multiNodeList returns the consolidation candidates that fit the budgets and
// PodDisruptionBudgets together, in rank order, and why the others were left out.
func (d *decider) multiNodeList() ([]*nodeState, map[*nodeState]string) {
	var list []*nodeState
	skipped := map[*nodeState]string{}
	allow := d.allowance(scheduling.ReasonUnderutilized)
	for _, c := range d.consolidationCandidates() {
		if why := allow.admit(c); why != "" {
			skipped[c] = why
			continue
		}
		list = append(list, c)
	}
	return list, skipped
}
