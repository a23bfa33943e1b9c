package disruption

import (
	"github.com/nodeplan/nodeplan/scheduling"
)

// singleNode removes one node, trying candidates in rank order and stopping at the first
// that can be deleted or replaced by something strictly cheaper (Karpenter's rule). Every
// candidate before that one is simulated, or ruled out by a sound bound that says so; the
// simulations run in parallel, each worker on its own cluster.
func (d *decider) singleNode() error {
	var cands []*nodeState
	for _, c := range d.consolidationCandidates() {
		if d.budgetAllows(c, scheduling.ReasonUnderutilized) && d.pdbsAllow(c) {
			cands = append(cands, c)
		}
	}
	if len(cands) == 0 {
		return nil
	}
	// The bounds are read on the workers too: a cluster of a thousand nodes has hundreds of
	// candidates, most of them ruled out by a bound or by the scheduler's first round.
	rooms := d.roomIndex()
	type result struct {
		o   *outcome
		why string
	}
	results, done, winner := firstSuccess(d.sim, len(cands), func(cluster *scheduling.Cluster, i int) (result, bool) {
		if why := d.singleNodeBound(cands[i], rooms); why != "" {
			return result{why: why}, false
		}
		o, why := d.consolidate(cluster, []*nodeState{cands[i]})
		return result{o, why}, why == ""
	})
	for i, c := range cands {
		switch {
		case winner >= 0 && i > winner:
			// The winner took its budgets: say so when that alone keeps this node.
			if !d.budgetAllows(c, scheduling.ReasonUnderutilized) || !d.pdbsAllow(c) {
				break
			}
			c.block("single-node consolidation acts on one node per decision and removed %s; this node is considered again in the next decision", cands[winner].name)
		case i == winner:
			o := results[i].o
			d.trimOptions(o)
			d.commands = append(d.commands, d.command(MethodSingleNodeConsolidation, scheduling.ReasonUnderutilized, o))
			if err := d.commit(o); err != nil {
				return err
			}
		case done[i]:
			c.blockWith(results[i].why)
		}
	}
	return nil
}

// singleCandidates are the candidates single-node consolidation would try now, in its order,
// found without recording why the others are left out: the prefix search's worker simulates
// them ahead (see ahead.spare).
func (d *decider) singleCandidates() []*nodeState {
	var cands []*nodeState
	for _, c := range d.consolidationCandidates() {
		if d.budgets[c.poolName].remaining(scheduling.ReasonUnderutilized) > 0 && exhaustedPDB(c) == nil {
			cands = append(cands, c)
		}
	}
	return cands
}
