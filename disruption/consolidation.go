package disruption

import (
	"fmt"
	"math"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduling"
)

// MinSpotToSpotOptions is how many cheaper spot instance types a replacement must be able to
// choose from before one spot node is replaced by another (Karpenter's rule against
// chasing the spot market one type at a time).
const MinSpotToSpotOptions = 15

// priceEpsilon absorbs float noise when prices are compared.
const priceEpsilon = 1e-9

// consolidationCandidates are the nodes consolidation may remove, best first. Empty nodes
// are Emptiness's, under the Empty budget.
func (d *decider) consolidationCandidates() []*nodeState {
	return d.ranked(func(n *nodeState) bool {
		return !n.acted && !n.empty() && n.hard == "" && n.nominated == "" && n.doNotDisrupt == "" && n.pdb == "" && n.consolidation == "" && n.underutilized == "" && n.unpriced == ""
	})
}

// check says why an outcome is not a valid consolidation, or "" when it is: every evicted pod
// must land, and replacements must cost strictly less than the candidates, must not be the
// same instance type at no lower price, and spot must not replace spot without flexibility.
func (d *decider) check(o *outcome) string {
	if !o.allPlaced() {
		return o.failure()
	}
	if len(o.replacements) == 0 {
		return ""
	}
	price := 0.0
	allSpot := true
	for _, c := range o.cands {
		price += c.price
		allSpot = allSpot && c.capacityType == requirements.CapacityTypeSpot
	}
	if len(o.cands) == 1 && len(o.replacements) > 1 {
		return fmt.Sprintf("its pods need %d new nodes; a node is only replaced by one cheaper node", len(o.replacements))
	}
	if len(o.cands) > 1 && len(o.replacements) >= len(o.cands) {
		return fmt.Sprintf("removing %d nodes needs %d new ones; several nodes are only consolidated into fewer", len(o.cands), len(o.replacements))
	}
	if o.cost >= price-priceEpsilon {
		return fmt.Sprintf("replacing it needs %s costing $%.4f/h, not less than the $%.4f/h it costs now", describeClaims(o.replacements), o.cost, price)
	}
	for _, r := range o.replacements {
		for _, c := range o.cands {
			if c.instanceType == r.InstanceType && r.Price >= c.price-priceEpsilon {
				return fmt.Sprintf("the replacement %s would be the same instance type as %s at no lower price", r.InstanceType, c.name)
			}
		}
	}
	if limit := sameTypeLimit(o); o.cost >= limit-priceEpsilon {
		return fmt.Sprintf("the replacement costs $%.4f/h, not less than a candidate of one of its own instance types ($%.4f/h): keeping that node is better", o.cost, limit)
	}
	if allSpot {
		for _, r := range o.replacements {
			if r.CapacityType != requirements.CapacityTypeSpot && d.poolAllows(r.NodePool, requirements.LabelCapacityType, requirements.CapacityTypeSpot) {
				return fmt.Sprintf("its replacement would be %s %s, but spot nodes are replaced only by spot while their NodePool allows spot (Karpenter's rule)", r.CapacityType, r.InstanceType)
			}
		}
	}
	worst := 0.0
	for _, r := range o.replacements {
		worst += d.worstLaunchPrice(r.NodePool, r.InstanceType, r.CapacityType)
	}
	if worst >= price-priceEpsilon {
		return fmt.Sprintf("replacing it needs %s, which may launch in any zone its NodePool allows and cost up to $%.4f/h there, not less than the $%.4f/h it costs now", describeClaims(o.replacements), worst, price)
	}
	if allSpot && len(o.cands) == 1 {
		for _, r := range o.replacements {
			if r.CapacityType != requirements.CapacityTypeSpot {
				continue
			}
			if k := d.cheaperSpotOptions(r, price); k < MinSpotToSpotOptions {
				return fmt.Sprintf("spot-to-spot consolidation needs at least %d cheaper spot instance types among the replacement's options, found %d", MinSpotToSpotOptions, k)
			}
		}
	}
	return ""
}

// poolAllows reports whether a NodePool's requirements allow a value of a key.
func (d *decider) poolAllows(pool, key, value string) bool {
	r, ok := d.poolReqs[pool][key]
	return !ok || r.Has(value)
}

// worstLaunchPrice is what a NodePool's instance type costs at its dearest available
// offering of the capacity type in a zone the NodePool allows: a launch may land in any of
// them, so a replacement must be cheaper even there (Karpenter's rule). +Inf when there is
// none.
func (d *decider) worstLaunchPrice(pool, name, capacityType string) float64 {
	worst, found := 0.0, false
	if it := d.catalog[pool][name]; it != nil {
		for _, o := range it.Offerings {
			if o.Available && o.CapacityType == capacityType && d.poolAllows(pool, requirements.LabelTopologyZone, o.Zone) {
				worst, found = math.Max(worst, o.Price), true
			}
		}
	}
	if !found {
		return math.Inf(1)
	}
	return worst
}

// cheaperSpotOptions counts the replacement's instance-type options cheaper than price as
// spot at their worst launch price.
func (d *decider) cheaperSpotOptions(r scheduling.NodeClaim, price float64) int {
	k := 0
	for _, name := range r.InstanceTypeOptions {
		if d.worstLaunchPrice(r.NodePool, name, requirements.CapacityTypeSpot) < price-priceEpsilon {
			k++
		}
	}
	return k
}

// trimOptions keeps, for a single replacement, only the instance-type options cheaper than
// the nodes it replaces at their worst launch price (with its capacity type, in any zone
// the NodePool allows), so a launch that cannot get the cheapest one never lands on
// something pricier. When an option is the type of one of the candidates,
// options must also be cheaper than that candidate, or keeping it would be the better move.
// A spot replacement of one spot node keeps the 15 cheapest, so the new node is not itself
// consolidated right away (Karpenter's rules).
func (d *decider) trimOptions(o *outcome) {
	if len(o.replacements) != 1 {
		return
	}
	limit := 0.0
	allSpot := true
	for _, c := range o.cands {
		limit += c.price
		allSpot = allSpot && c.capacityType == requirements.CapacityTypeSpot
	}
	r := &o.replacements[0]
	limit = math.Min(limit, sameTypeLimit(o))
	kept := []string{}
	for _, name := range r.InstanceTypeOptions {
		if p := d.worstLaunchPrice(r.NodePool, name, r.CapacityType); p < limit-priceEpsilon {
			kept = append(kept, name)
		}
	}
	if allSpot && len(o.cands) == 1 && r.CapacityType == requirements.CapacityTypeSpot && len(kept) > MinSpotToSpotOptions {
		kept = kept[:MinSpotToSpotOptions]
	}
	r.InstanceTypeOptions = kept
}

// sameTypeLimit is the price of the cheapest candidate whose instance type is among the
// single replacement's options (+Inf when none is): a replacement not cheaper than that
// candidate only moves pods around it.
func sameTypeLimit(o *outcome) float64 {
	limit := math.Inf(1)
	if len(o.replacements) != 1 {
		return limit
	}
	for _, name := range o.replacements[0].InstanceTypeOptions {
		for _, c := range o.cands {
			if c.instanceType == name {
				limit = math.Min(limit, c.price)
			}
		}
	}
	return limit
}

func describeClaims(claims []scheduling.NodeClaim) string {
	parts := make([]string, len(claims))
	for i, c := range claims {
		parts[i] = fmt.Sprintf("%s %s ($%.4f/h)", c.CapacityType, c.InstanceType, c.Price)
	}
	return strings.Join(parts, " and ")
}

func savings(o *outcome) float64 {
	price := 0.0
	for _, c := range o.cands {
		price += c.price
	}
	return price - o.cost
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

func namesKey(nodes []*nodeState) string {
	names := make([]string, len(nodes))
	for i, n := range nodes {
		names[i] = n.name
	}
	sort.Strings(names)
	return strings.Join(names, ",")
}

// multiNode removes several nodes in one command. It looks at the candidates the budgets and
// PodDisruptionBudgets allow together, and searches three ways, keeping the best valid set:
// prefixes of the ranked list (all of it first, then Karpenter's binary search); a set
// chosen by packing the candidates' pods into the room the other nodes leave, which need not
// be a prefix; and a greedy extension of the best set by one more node at a time. A set is
// only simulated when its price could beat the best savings found.
func (d *decider) multiNode() {
	list, skipped := d.multiNodeList()
	if len(list) < 2 {
		return
	}
	limit := d.simulations + MaxMultiNodeSimulations
	tried := map[string]bool{}
	var best *outcome
	try := func(set []*nodeState) bool {
		key := namesKey(set)
		if tried[key] || d.simulations >= limit || d.work >= MaxSimulationWork || !canBeat(set, best) {
			return false
		}
		if d.homelessPods(set) > MaxMultiNodeNewPods {
			return false
		}
		tried[key] = true
		o := d.simulate(set, nil)
		if d.check(o) != "" {
			return false
		}
		if better(o, best) {
			best = o
		}
		return true
	}
	searchPrefixes := func(set []*nodeState) {
		hi := min(len(set), MaxMultiNodeCandidates)
		if try(set[:hi]) {
			return
		}
		lo := 2
		hi--
		for lo <= hi {
			mid := (lo + hi) / 2
			if try(set[:mid]) {
				lo = mid + 1
			} else {
				hi = mid - 1
			}
		}
	}
	searchPrefixes(list)
	if best == nil || len(best.cands) < min(len(list), MaxMultiNodeCandidates) {
		if packed := d.packedSet(list); len(packed) >= 2 {
			searchPrefixes(packed)
		}
	}
	if best != nil {
		for _, c := range list {
			if len(best.cands) >= MaxMultiNodeCandidates || d.simulations >= limit || d.work >= MaxSimulationWork {
				break
			}
			if containsNode(best.cands, c) {
				continue
			}
			try(append(append([]*nodeState(nil), best.cands...), c))
		}
	}
	if best == nil {
		return
	}
	sort.SliceStable(best.cands, func(i, j int) bool { return rankLess(best.cands[i], best.cands[j]) })
	d.trimOptions(best)
	d.commands = append(d.commands, d.command(MethodMultiNodeConsolidation, scheduling.ReasonUnderutilized, best))
	d.commit(best)
	for _, c := range list {
		if !c.acted {
			c.block("multi-node consolidation removed other nodes in this decision (%s)", namesKey(best.cands))
		}
	}
	for n, why := range skipped {
		n.block("%s", why)
	}
}

// homelessPods counts, by resources alone, the pods of set that no staying node has room for
// (first fit, largest first): they would need new nodes.
func (d *decider) homelessPods(set []*nodeState) int {
	leaving := map[string]bool{}
	var pods []*corev1.Pod
	for _, c := range set {
		leaving[c.name] = true
		pods = append(pods, d.cluster.byName[c.name].pods...)
	}
	var free []vec
	for _, n := range d.cluster.nodes {
		if !n.removed && !leaving[n.name] && n.initialized {
			free = append(free, n.free)
		}
	}
	homeless := 0
	for _, p := range d.sortPodsBySize(pods) {
		if !reschedulable(p) {
			continue
		}
		need := d.podVec(p)
		placed := false
		for i := range free {
			if need.fits(free[i]) {
				free[i] = free[i].sub(need)
				placed = true
				break
			}
		}
		if !placed {
			homeless++
		}
	}
	return homeless
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
	taken := map[string]int{}
	used := map[*pdbLimit]int{}
	for _, c := range d.consolidationCandidates() {
		b := d.budgets[c.poolName]
		if b.remaining(scheduling.ReasonUnderutilized)-taken[c.poolName] <= 0 {
			skipped[c] = b.blockedReason(scheduling.ReasonUnderutilized)
			continue
		}
		ok := true
		for _, u := range c.pdbUse {
			if u.limit.remaining-used[u.limit] < 1 {
				skipped[c] = fmt.Sprintf("%s, and other candidates of this command already use it", u.limit.describe())
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		taken[c.poolName]++
		for _, u := range c.pdbUse {
			used[u.limit] += u.pods
		}
		list = append(list, c)
	}
	return list, skipped
}

// packedSet picks candidates, in rank order, whose pods fit by resources alone into the room
// of nodes that stay, first-fit largest pod first (the solver's order). A node that received
// pods in this packing stays. The set ignores pod constraints; the simulation checks them.
func (d *decider) packedSet(list []*nodeState) []*nodeState {
	inList := map[string]bool{}
	for _, c := range list {
		inList[c.name] = true
	}
	free := map[string]vec{}
	var others, cands []*simNode
	for _, n := range d.cluster.nodes {
		if n.removed || !n.initialized {
			continue
		}
		free[n.name] = n.free
		if inList[n.name] {
			cands = append(cands, n)
		} else {
			others = append(others, n)
		}
	}
	leaving := map[string]bool{}
	received := map[string]bool{}
	var set []*nodeState
	for _, c := range list {
		if len(set) >= MaxMultiNodeCandidates {
			break
		}
		if received[c.name] {
			continue
		}
		trial := map[string]vec{}
		get := func(name string) vec {
			if v, ok := trial[name]; ok {
				return v
			}
			return free[name]
		}
		fits := true
		for _, p := range d.sortPodsBySize(c.movable) {
			need := d.podVec(p)
			placed := false
			for _, group := range [][]*simNode{others, cands} {
				for _, n := range group {
					if n.name == c.name || leaving[n.name] {
						continue
					}
					if room := get(n.name); need.fits(room) {
						trial[n.name] = room.sub(need)
						placed = true
						break
					}
				}
				if placed {
					break
				}
			}
			if !placed {
				fits = false
				break
			}
		}
		if !fits {
			continue
		}
		for name, v := range trial {
			free[name] = v
			received[name] = true
		}
		leaving[c.name] = true
		set = append(set, c)
	}
	return set
}

// singleNode removes one node, trying candidates in rank order and stopping at the first
// that can be deleted or replaced by something strictly cheaper (Karpenter's rule). A quick
// resource bound skips nodes no simulation could consolidate.
func (d *decider) singleNode() {
	limit := d.simulations + MaxSingleNodeSimulations
	var done *nodeState
	for _, c := range d.consolidationCandidates() {
		if !d.budgetAllows(c, scheduling.ReasonUnderutilized) || !d.pdbsAllow(c) {
			continue
		}
		if done != nil {
			c.block("single-node consolidation acts on one node per decision and removed %s; this node is considered again in the next decision", done.name)
			continue
		}
		if !d.simulationsLeft(c, limit, MethodSingleNodeConsolidation) {
			continue
		}
		if why := d.boundCheck(c); why != "" {
			c.block("%s", why)
			continue
		}
		o := d.simulate([]*nodeState{c}, nil)
		if why := d.check(o); why != "" {
			c.block("%s", why)
			continue
		}
		d.trimOptions(o)
		d.commands = append(d.commands, d.command(MethodSingleNodeConsolidation, scheduling.ReasonUnderutilized, o))
		d.commit(o)
		done = c
	}
}

// boundCheck rules a node out without a simulation when, by resources alone, its pods need
// more new capacity than any replacement cheaper than the node could give: the pods no other
// node has room for, and whatever exceeds the room left on all other nodes together, must go
// to new nodes, which cost at least the cheapest price per cpu and per memory.
func (d *decider) boundCheck(c *nodeState) string {
	if c.empty() {
		return ""
	}
	var targets []vec
	var room vec
	for _, n := range d.cluster.nodes {
		if n.removed || n.name == c.name || !n.initialized {
			continue
		}
		targets = append(targets, n.free)
		room = room.add(maxVec(n.free, vec{}))
	}
	var total, homeless, largest vec
	for _, p := range c.movable {
		v := d.podVec(p)
		total = total.add(v)
		fits := false
		for _, t := range targets {
			if v.fits(t) {
				fits = true
				break
			}
		}
		if !fits {
			homeless = homeless.add(v)
			largest = maxVec(largest, v)
		}
	}
	need := maxVec(homeless, maxVec(total.sub(room), vec{}))
	if need.isZero() {
		return ""
	}
	lower := math.Max(d.prices.fluid(need), d.prices.cheapestFitting(largest))
	if lower >= c.price-priceEpsilon {
		return fmt.Sprintf("no cheaper way to run its pods: %s of their requests fit on no other node, and new capacity for it costs at least $%.4f/h, not less than the node's $%.4f/h", describeVec(need), lower, c.price)
	}
	return ""
}

func describeVec(v vec) string {
	return fmt.Sprintf("%dm cpu, %dMi memory, %d pod(s)", v[0], v[1]>>20, v[2])
}

// priceIndex holds, over every NodePool's instance types, their room and cheapest available
// price, for quick lower bounds on what new capacity costs.
type priceIndex struct {
	types []typePrice // by price
	// perCPU and perByte are the lowest prices per milli-cpu and per byte of memory.
	perCPU, perByte float64
}

type typePrice struct {
	room  vec
	price float64
}

func newPriceIndex(pools []*scheduling.NodePool) *priceIndex {
	ix := &priceIndex{perCPU: math.Inf(1), perByte: math.Inf(1)}
	for _, np := range pools {
		for _, it := range np.InstanceTypes {
			if it == nil {
				continue
			}
			price := math.Inf(1)
			for _, o := range it.Offerings {
				if o.Available {
					price = math.Min(price, o.Price)
				}
			}
			if math.IsInf(price, 1) {
				continue
			}
			room := vecOf(it.Allocatable())
			ix.types = append(ix.types, typePrice{room: room, price: price})
			if room[0] > 0 {
				ix.perCPU = math.Min(ix.perCPU, price/float64(room[0]))
			}
			if room[1] > 0 {
				ix.perByte = math.Min(ix.perByte, price/float64(room[1]))
			}
		}
	}
	sort.SliceStable(ix.types, func(i, j int) bool { return ix.types[i].price < ix.types[j].price })
	return ix
}

// fluid is a lower bound on the price of new nodes with room for need together.
func (ix *priceIndex) fluid(need vec) float64 {
	bound := 0.0
	if need[0] > 0 {
		bound = math.Max(bound, float64(need[0])*ix.perCPU)
	}
	if need[1] > 0 {
		bound = math.Max(bound, float64(need[1])*ix.perByte)
	}
	if math.IsInf(bound, 1) || math.IsNaN(bound) {
		return math.Inf(1)
	}
	return bound
}

// cheapestFitting is the price of the cheapest type with room for need; +Inf when none.
func (ix *priceIndex) cheapestFitting(need vec) float64 {
	if need.isZero() {
		return 0
	}
	for _, t := range ix.types {
		if need.fits(t.room) {
			return t.price
		}
	}
	return math.Inf(1)
}
