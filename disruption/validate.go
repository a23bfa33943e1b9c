package disruption

import (
	"fmt"
	"time"

	"github.com/nodeplan/nodeplan/scheduling"
)

// CommandValidationDelay is how long Karpenter's disruption controller waits between
// computing a consolidation command (Emptiness, multi-node or single-node consolidation) and
// validating it; it starts the command only if it is still valid then (see Validate).
const CommandValidationDelay = 15 * time.Second

// Validate checks a command Decide returned against the cluster as it is now (in), as
// Karpenter's disruption controller does CommandValidationDelay after computing a
// consolidation command, before it starts it. It returns the command to start, or why the
// command is abandoned (the command is then the zero value):
//   - Emptiness: the candidates still empty, consolidatable, not nominated for a pending pod
//     and within the Empty budgets; it is abandoned when none is left.
//   - Consolidation: every candidate must still be a candidate (consolidatable, not
//     nominated, no do-not-disrupt or blocking PodDisruptionBudget) within the budgets, and
//     removing them all is simulated again: every pod must still land, the simulation must
//     need as many replacements as the command launches, at no higher price, and pass every
//     rule Decide applies. Karpenter checks the replacements' count and that the command's
//     instance types are among the simulation's; fewer replacements now also abandons the
//     command, as a better consolidation is then likely.
//   - Drift and Expiration are not validated (Karpenter starts them at once).
//
// The error is only for unusable input, as Decide's. A Memo given in in serves Validate as
// it serves a Decide: it counts as the last decision.
func Validate(in Input, c Command) (Command, string, error) {
	if !Validated(c.Method) {
		return c, "", nil
	}
	d, err := newDecider(in)
	if err != nil {
		return Command{}, "", err
	}
	if d.memoize {
		defer in.Memo.keep(d)
	}
	if c.Method == MethodEmptiness {
		return d.validateEmptiness(c)
	}
	return d.validateConsolidation(c)
}

// Validated reports whether Karpenter validates a command of method before it starts it
// (see Validate): Emptiness and consolidation's, not Drift's or Expiration's.
func Validated(method string) bool {
	switch method {
	case MethodEmptiness, MethodMultiNodeConsolidation, MethodSingleNodeConsolidation:
		return true
	}
	return false
}

// validateEmptiness keeps the candidates Emptiness would still take.
func (d *decider) validateEmptiness(c Command) (Command, string, error) {
	var valid []*nodeState
	allow := d.allowance(scheduling.ReasonEmpty)
	for _, cand := range c.Candidates {
		if n := d.byName[cand.Node]; n != nil && emptinessCandidate(n) && allow.admit(n) == "" {
			valid = append(valid, n)
		}
	}
	if len(valid) == 0 {
		return Command{}, fmt.Sprintf("none of its %d nodes is still empty and disruptable within the budgets", len(c.Candidates)), nil
	}
	return d.command(MethodEmptiness, scheduling.ReasonEmpty, &outcome{cands: valid}), "", nil
}

// validateConsolidation simulates the command's candidates again.
func (d *decider) validateConsolidation(c Command) (Command, string, error) {
	set := make([]*nodeState, 0, len(c.Candidates))
	allow := d.allowance(scheduling.ReasonUnderutilized)
	for _, cand := range c.Candidates {
		n := d.byName[cand.Node]
		if n == nil {
			return Command{}, fmt.Sprintf("node %s is gone", cand.Node), nil
		}
		if !consolidationCandidate(n) {
			return Command{}, fmt.Sprintf("node %s is no longer a consolidation candidate: %s", n.name, d.notCandidate(n)), nil
		}
		if why := allow.admit(n); why != "" {
			return Command{}, fmt.Sprintf("node %s: %s", n.name, why), nil
		}
		set = append(set, n)
	}
	o, why := d.consolidate(d.sim.cluster, set)
	if why != "" {
		return Command{}, why, nil
	}
	if len(o.replacements) != len(c.Replacements) {
		return Command{}, fmt.Sprintf("the simulation now needs %d new node(s) where the command launches %d", len(o.replacements), len(c.Replacements)), nil
	}
	planned := 0.0
	for _, r := range c.Replacements {
		planned += r.Price
	}
	if o.cost > planned+priceEpsilon {
		return Command{}, fmt.Sprintf("its replacements now cost $%.4f/h, more than the $%.4f/h the command launches", o.cost, planned), nil
	}
	return c, "", nil
}

// notCandidate says why a node is not a consolidation candidate (see consolidationCandidate).
func (d *decider) notCandidate(n *nodeState) string {
	if why := firstNonEmpty(n.hard, n.nominated, n.doNotDisrupt, n.pdb, n.underutilized, n.unpriced); why != "" {
		return why
	}
	if n.empty() {
		return "it is empty now: Emptiness deletes it"
	}
	return d.describeWait(n)
}
