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
	rooms := d.roomIndex()
	bound := make([]string, len(cands))
	var simulated []int // indices of cands no bound rules out
	for i, c := range cands {
		if bound[i] = d.singleNodeBound(c, rooms); bound[i] == "" {
			simulated = append(simulated, i)
		}
	}
	type result struct {
		o   *outcome
		why string
	}
	results, done, first := firstSuccess(d.sim, len(simulated), func(cluster *scheduling.Cluster, k int) (result, bool) {
		o, why := d.consolidate(cluster, []*nodeState{cands[simulated[k]]})
		return result{o, why}, why == ""
	})
	winner := -1
	if first >= 0 {
		winner = simulated[first]
	}
	at := 0
	for i, c := range cands {
		switch {
		case winner >= 0 && i > winner:
			// The winner took its budgets: say so when that alone keeps this node.
			if !d.budgetAllows(c, scheduling.ReasonUnderutilized) || !d.pdbsAllow(c) {
				break
			}
			c.block("single-node consolidation acts on one node per decision and removed %s; this node is considered again in the next decision", cands[winner].name)
		case bound[i] != "":
			c.block("%s", bound[i])
		case i == winner:
			o := results[first].o
			d.trimOptions(o)
			d.commands = append(d.commands, d.command(MethodSingleNodeConsolidation, scheduling.ReasonUnderutilized, o))
			if err := d.commit(o); err != nil {
				return err
			}
		default:
			if done[at] {
				c.block("%s", results[at].why)
			}
		}
		if bound[i] == "" {
			at++
		}
	}
	return nil
}
