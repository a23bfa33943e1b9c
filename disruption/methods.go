package disruption

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/nodeplan/nodeplan/scheduling"
)

// ranked returns the nodes keep selects, in rankLess order. The nodes are sorted once per
// decision: a node's rank (its price, disruption cost and name) is fixed when it is
// classified, and a decision asks for its candidates several times (each method, budgets
// and PodDisruptionBudgets between), which sorted hundreds of nodes each time.
func (d *decider) ranked(keep func(*nodeState) bool) []*nodeState {
	if d.byRank == nil {
		d.byRank = rankOrder(d.nodes)
	}
	var out []*nodeState
	for _, n := range d.byRank {
		if keep(n) {
			out = append(out, n)
		}
	}
	return out
}

// rankOrder returns nodes in rankLess order. Each node's share of price per disruption cost
// is worked out once, not at each comparison, and the sort reads it from one array rather
// than from every node.
func rankOrder(nodes []*nodeState) []*nodeState {
	type ranking struct {
		ratio, cost float64
		node        *nodeState
	}
	keys := make([]ranking, len(nodes))
	for i, n := range nodes {
		keys[i] = ranking{ratio: n.price / (1 + math.Max(0, n.cost)), cost: n.cost, node: n}
	}
	slices.SortStableFunc(keys, func(a, b ranking) int {
		switch {
		case a.ratio > b.ratio:
			return -1
		case a.ratio < b.ratio:
			return 1
		case a.ratio != b.ratio:
			return 0 // NaN: rankLess puts neither first
		case a.cost < b.cost:
			return -1
		case a.cost > b.cost:
			return 1
		case a.cost != b.cost:
			return 0
		}
		return strings.Compare(a.node.name, b.node.name)
	})
	out := make([]*nodeState, len(keys))
	for i, k := range keys {
		out[i] = k.node
	}
	return out
}

// budgetAllows checks the node's NodePool budget for reason and records why not.
func (d *decider) budgetAllows(n *nodeState, reason string) bool {
	b := d.budgets[n.poolName]
	if b.remaining(reason) > 0 {
		return true
	}
	n.blockWith(b.blockedReason(reason))
	return false
}

// pdbsAllow checks that every PodDisruptionBudget the node's pods take from still allows a
// disruption after the commands so far, and records why not.
func (d *decider) pdbsAllow(n *nodeState) bool {
	if u := exhaustedPDB(n); u != nil {
		n.block("%s after the earlier commands of this decision, and %d of its pods run on the node", u.limit.describe(), u.pods)
		return false
	}
	return true
}

// exhaustedPDB returns the first PodDisruptionBudget use of the node's pods that no longer
// allows a disruption, nil when every one does.
func exhaustedPDB(n *nodeState) *pdbUse {
	for i := range n.pdbUse {
		if n.pdbUse[i].limit.remaining < 1 {
			return &n.pdbUse[i]
		}
	}
	return nil
}

// allowance counts what the candidates of one command take from their NodePools' budgets
// (for one reason) and from the PodDisruptionBudgets, so that each candidate is checked
// against what those before it left: Emptiness's and multi-node consolidation's sets, and
// Validate's.
type allowance struct {
	d      *decider
	reason string
	taken  map[string]int
	used   map[*pdbLimit]int
}

// allowance is an empty allowance for reason; its maps are made by the first admission.
func (d *decider) allowance(reason string) allowance {
	return allowance{d: d, reason: reason}
}

// admit adds the node to the command when its budget and PodDisruptionBudgets still allow it
// beside the nodes admitted before, and says why not otherwise ("" when admitted).
func (a *allowance) admit(n *nodeState) string {
	b := a.d.budgets[n.poolName]
	if b.remaining(a.reason)-a.taken[n.poolName] <= 0 {
		return b.blockedReason(a.reason)
	}
	for _, u := range n.pdbUse {
		if u.limit.remaining-a.used[u.limit] < 1 {
			return fmt.Sprintf("%s, and other candidates of this command already use it", u.limit.describe())
		}
	}
	if a.taken == nil {
		a.taken = map[string]int{}
	}
	a.taken[n.poolName]++
	for _, u := range n.pdbUse {
		if a.used == nil {
			a.used = map[*pdbLimit]int{}
		}
		a.used[u.limit] += u.pods
	}
	return ""
}

// movedOnto reports whether earlier commands of this decision moved pods onto the node, and
// records why that keeps it: removing it now would evict those pods a second time, beyond
// what its PodDisruptionBudgets were checked for.
func (d *decider) movedOnto(n *nodeState) bool {
	if !n.received {
		return false
	}
	n.block("an earlier command of this decision moves pods onto the node, so it is considered again in the next decision")
	return true
}

// emptiness deletes, in one command, every node that runs no pod that would have to move,
// once consolidateAfter has passed, as many as the Empty budgets allow (Karpenter's one
// emptiness command per decision).
func (d *decider) emptiness() error {
	var cands []*nodeState
	allow := d.allowance(scheduling.ReasonEmpty)
	for _, n := range d.ranked(emptinessCandidate) {
		if why := allow.admit(n); why != "" {
			n.blockWith(why)
			continue
		}
		cands = append(cands, n)
	}
	if len(cands) == 0 {
		return nil
	}
	o := &outcome{cands: cands}
	d.commands = append(d.commands, d.command(MethodEmptiness, scheduling.ReasonEmpty, o))
	for _, c := range cands {
		c.acted, c.removed = true, true
		d.budgets[c.poolName].busy++
	}
	return nil
}

// emptinessCandidate reports whether Emptiness may delete the node, budgets aside.
func emptinessCandidate(n *nodeState) bool {
	return n.hard == "" && n.nominated == "" && n.doNotDisrupt == "" && n.empty() && n.consolidation == waitNone
}

// expiration replaces nodes older than their NodePool's expireAfter, oldest first. It is
// forceful: budgets, do-not-disrupt and PodDisruptionBudgets do not stop it, they only slow
// the evictions down, which the command's notes say.
func (d *decider) expiration() error {
	var cands []*nodeState
	for _, n := range d.nodes {
		if n.hard == "" && n.expired != "" {
			cands = append(cands, n)
		}
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if !cands[i].created.Equal(cands[j].created) {
			return cands[i].created.Before(cands[j].created)
		}
		return cands[i].name < cands[j].name
	})
	for i, n := range cands {
		if d.movedOnto(n) {
			continue
		}
		// Expiration is not budgeted: every later candidate goes too, so none takes pods.
		var avoid []string
		for _, later := range cands[i+1:] {
			avoid = append(avoid, later.name)
		}
		o := d.simulate(d.sim.cluster, []*nodeState{n}, avoid, nil, false)
		if o.solveErr != "" {
			n.block("expired (%s), but %s", n.expired, o.solveErr)
			continue
		}
		cmd := d.command(MethodExpiration, scheduling.ReasonExpired, o)
		cmd.Notes = append([]string{n.expired}, cmd.Notes...)
		if n.doNotDisrupt != "" {
			cmd.Notes = append(cmd.Notes, n.doNotDisrupt+": that pod is evicted only when the NodePool's terminationGracePeriod runs out")
		}
		if n.unevictable != "" {
			cmd.Notes = append(cmd.Notes, n.unevictable+": the node waits for the NodePool's terminationGracePeriod")
		}
		if o.uninit != "" {
			cmd.Notes = append(cmd.Notes, o.uninit)
		}
		for _, k := range sortedMapKeys(o.failed) {
			cmd.Notes = append(cmd.Notes, fmt.Sprintf("pod %s is left pending: %s", k, o.failed[k]))
		}
		d.commands = append(d.commands, cmd)
		if err := d.commit(o); err != nil {
			return err
		}
	}
	return nil
}

// drift replaces nodes that no longer match their NodePool, one command per node, within
// the Drifted budget, when every evicted pod can run elsewhere. do-not-disrupt pods and
// PodDisruptionBudgets stop it unless the NodePool sets a terminationGracePeriod (see
// drainBounded).
func (d *decider) drift() error {
	cands := d.ranked(func(n *nodeState) bool {
		return n.hard == "" && n.nominated == "" && (drainBounded(n) || n.doNotDisrupt == "" && n.pdb == "") && n.drifted != ""
	})
	for i, n := range cands {
		blockedBefore := n.why != ""
		if d.movedOnto(n) || !d.budgetAllows(n, scheduling.ReasonDrifted) || !drainBounded(n) && !d.pdbsAllow(n) {
			if !blockedBefore { // say why the node would go as well as what it waits for
				n.why = fmt.Sprintf("drifted (%s), but %s", n.drifted, n.why)
			}
			continue
		}
		o := d.simulate(d.sim.cluster, []*nodeState{n}, d.nextDrifted(n, cands[i+1:]), nil, d.commandsOnly)
		if !o.allPlaced() {
			n.block("drifted (%s), but %s", n.drifted, o.failure())
			continue
		}
		cmd := d.command(MethodDrift, scheduling.ReasonDrifted, o)
		cmd.Notes = append([]string{"drifted: " + n.drifted}, cmd.Notes...)
		if n.doNotDisrupt != "" {
			cmd.Notes = append(cmd.Notes, n.doNotDisrupt+": that pod is evicted only when the NodePool's terminationGracePeriod runs out")
		}
		if n.pdb != "" {
			cmd.Notes = append(cmd.Notes, n.pdb+": the drain waits for it at most the NodePool's terminationGracePeriod")
		}
		d.commands = append(d.commands, cmd)
		if err := d.commit(o); err != nil {
			return err
		}
	}
	return nil
}

// drainBounded reports whether the blocks that come from the node's pods (do-not-disrupt
// pods, PodDisruptionBudgets) give way to drift: Karpenter takes a node as a candidate for
// an eventual disruption despite them when its NodePool sets a terminationGracePeriod, which
// ends the drain whatever they say. A do-not-disrupt annotation on the node itself still
// keeps it.
func drainBounded(n *nodeState) bool {
	return n.pool != nil && n.pool.TerminationGracePeriod != nil && !n.nodeDoNotDisrupt
}

// nextDrifted returns the later drift candidates the budgets let go after n in this
// decision: pods evicted from n should not land on them.
func (d *decider) nextDrifted(n *nodeState, later []*nodeState) []string {
	left := map[string]int{}
	for name, b := range d.budgets {
		left[name] = b.remaining(scheduling.ReasonDrifted)
	}
	left[n.poolName]--
	var avoid []string
	for _, c := range later {
		if left[c.poolName] > 0 {
			left[c.poolName]--
			avoid = append(avoid, c.name)
		}
	}
	return avoid
}
