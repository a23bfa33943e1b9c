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

// MaxMultiNodeCandidates bounds the nodes one multi-node command removes (Karpenter's batch
// of 100).
const MaxMultiNodeCandidates = 100

// priceEpsilon absorbs float noise when prices are compared.
const priceEpsilon = 1e-9

// spotOnly narrows every NodePool to spot offerings, for spot candidates.
var spotOnly = []corev1.NodeSelectorRequirement{{Key: requirements.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: []string{requirements.CapacityTypeSpot}}}

// consolidationCandidates are the nodes consolidation may remove, best first. Empty nodes
// are Emptiness's, under the Empty budget.
func (d *decider) consolidationCandidates() []*nodeState {
	return d.ranked(func(n *nodeState) bool { return !n.acted && consolidationCandidate(n) })
}

// consolidationCandidate reports whether consolidation may remove the node, budgets and the
// decision's earlier commands aside.
func consolidationCandidate(n *nodeState) bool {
	return !n.empty() && n.hard == "" && n.nominated == "" && n.doNotDisrupt == "" && n.pdb == "" && n.consolidation == waitNone && n.underutilized == "" && n.unpriced == ""
}

// consolidate simulates removing set on cluster and says why the outcome is not a valid
// consolidation ("" when it is). Spot candidates whose replacement would not be spot, though
// its NodePool allows spot, are simulated again with spot offerings only: spot stays spot.
func (d *decider) consolidate(cluster *scheduling.Cluster, set []*nodeState) (*outcome, string) {
	key := orderedNames(set)
	c, ok := d.sim.consolidated.get(key)
	if !ok {
		c.o, c.why = d.simulateConsolidation(cluster, set)
		d.sim.consolidated.put(key, c)
	}
	// The caller of a valid consolidation gets its own outcome: commands sort their
	// candidates and trim their replacements' options, and the memoised one must stay as it
	// was found. A failed one is only read.
	if c.why != "" {
		return c.o, c.why
	}
	return c.o.own(c.o.cands), c.why
}

// simulateConsolidation is consolidate without the memo.
func (d *decider) simulateConsolidation(cluster *scheduling.Cluster, set []*nodeState) (*outcome, string) {
	// Spot candidates are simulated in full: whether a failed outcome is tried again with
	// spot offerings only depends on its replacements.
	stopEarly := d.commandsOnly && !allSpot(set)
	if stopEarly {
		if o, told := d.firstRound(cluster, set); told {
			return o, d.check(o)
		}
	}
	o := d.simulate(cluster, set, nil, nil, stopEarly)
	if !allSpot(set) || !d.leavesSpot(o) {
		return o, d.check(o)
	}
	why := d.check(o)
	if why == "" {
		why = d.spotRule(o)
	}
	spot := d.simulate(cluster, set, nil, spotOnly, d.commandsOnly)
	if again := d.check(spot); again != "" {
		return spot, fmt.Sprintf("%s; with spot offerings only: %s", why, again)
	}
	return spot, ""
}

// spotRule says which replacement breaks the rule that spot stays spot.
func (d *decider) spotRule(o *outcome) string {
	for _, r := range o.replacements {
		if r.CapacityType != requirements.CapacityTypeSpot {
			return fmt.Sprintf("its replacement would be %s %s, but spot nodes are replaced only by spot while their NodePool allows spot (Karpenter's rule)", r.CapacityType, r.InstanceType)
		}
	}
	return ""
}

func allSpot(set []*nodeState) bool {
	for _, c := range set {
		if c.capacityType != requirements.CapacityTypeSpot {
			return false
		}
	}
	return true
}

// leavesSpot reports whether a replacement is not spot though its NodePool allows spot.
func (d *decider) leavesSpot(o *outcome) bool {
	for _, r := range o.replacements {
		if r.CapacityType != requirements.CapacityTypeSpot && d.poolAllows(r.NodePool, requirements.LabelCapacityType, requirements.CapacityTypeSpot) {
			return true
		}
	}
	return false
}

// check says why an outcome is not a valid consolidation, or "" when it is: every evicted pod
// must land, and replacements must cost strictly less than the candidates (also at their worst
// launch price), must not be the same instance type at no lower price, and spot must not
// replace spot without flexibility.
func (d *decider) check(o *outcome) string {
	if !o.allPlaced() {
		return o.failure()
	}
	if len(o.replacements) == 0 {
		return ""
	}
	price := 0.0
	for _, c := range o.cands {
		price += c.price
	}
	spot := allSpot(o.cands)
	if len(o.cands) == 1 && len(o.replacements) > 1 {
		return fmt.Sprintf("its pods need %d new nodes; a node is only replaced by one cheaper node", len(o.replacements))
	}
	if len(o.cands) > 1 && len(o.replacements) > 1 && d.karpenterMultiNode {
		return fmt.Sprintf("removing %d nodes needs %d new ones; Karpenter consolidates several nodes into one new node at most", len(o.cands), len(o.replacements))
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
	if spot && d.leavesSpot(o) {
		return d.spotRule(o)
	}
	worst := 0.0
	for _, r := range o.replacements {
		worst += d.worstLaunchPrice(r, r.InstanceType)
	}
	if worst >= price-priceEpsilon {
		return fmt.Sprintf("replacing it needs %s, which may launch in any zone its NodePool allows and cost up to $%.4f/h there, not less than the $%.4f/h it costs now", describeClaims(o.replacements), worst, price)
	}
	if spot && len(o.cands) == 1 {
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

// worstLaunchPrice is what the replacement costs as instance type name at its dearest
// available offering of its capacity type in a zone it may launch in (its requirements, which
// hold its NodePool's and its pods'): a launch may land in any of them, so a replacement must
// be cheaper even there (Karpenter's rule). +Inf when there is none.
func (d *decider) worstLaunchPrice(r scheduling.NodeClaim, name string) float64 {
	zones, narrowed := r.Requirements.Get(requirements.LabelTopologyZone)
	worst, found := 0.0, false
	if it := d.catalog[r.NodePool][name]; it != nil {
		for _, o := range it.Offerings {
			if !o.Available || o.CapacityType != r.CapacityType || (narrowed && !zones.Has(o.Zone)) || !d.poolAllows(r.NodePool, requirements.LabelTopologyZone, o.Zone) {
				continue
			}
			worst, found = math.Max(worst, o.Price), true
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
	r.CapacityType = requirements.CapacityTypeSpot
	for _, name := range r.InstanceTypeOptions {
		if d.worstLaunchPrice(r, name) < price-priceEpsilon {
			k++
		}
	}
	return k
}

// trimOptions keeps, for a single replacement, only the instance-type options cheaper than
// the nodes it replaces at their worst launch price (with its capacity type, in any zone it
// may launch in), so a launch that cannot get the cheapest one never lands on something
// pricier. When an option is the type of one of the candidates, options must also be cheaper
// than that candidate, or keeping it would be the better move. A spot replacement of one spot
// node keeps the 15 cheapest, so the new node is not itself consolidated right away
// (Karpenter's rules).
func (d *decider) trimOptions(o *outcome) {
	if len(o.replacements) != 1 {
		return
	}
	limit := 0.0
	for _, c := range o.cands {
		limit += c.price
	}
	r := &o.replacements[0]
	limit = math.Min(limit, sameTypeLimit(o))
	kept := []string{}
	for _, name := range r.InstanceTypeOptions {
		if p := d.worstLaunchPrice(*r, name); p < limit-priceEpsilon {
			kept = append(kept, name)
		}
	}
	if allSpot(o.cands) && len(o.cands) == 1 && r.CapacityType == requirements.CapacityTypeSpot && len(kept) > MinSpotToSpotOptions {
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

func namesKey(nodes []*nodeState) string {
	names := make([]string, len(nodes))
	for i, n := range nodes {
		names[i] = n.name
	}
	sort.Strings(names)
	return strings.Join(names, ",")
}

// orderedNames names the nodes in their order: the order a set is simulated and priced in.
func orderedNames(nodes []*nodeState) string {
	names := make([]string, len(nodes))
	for i, n := range nodes {
		names[i] = n.name
	}
	return strings.Join(names, ",")
}
