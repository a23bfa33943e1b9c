package disruption

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/scheduling"
)

// outcome is what a simulation of removing some nodes found.
type outcome struct {
	cands  []*nodeState
	change scheduling.Change
	plan   scheduling.Plan
	// to maps each evicted pod to the node it lands on; failed maps the pods that land
	// nowhere to the solver's reason.
	to     map[string]string
	failed map[string]string
	// replacements are the new nodes holding evicted pods (new nodes holding only pending
	// pods are the provisioner's business, not this command's).
	replacements []scheduling.NodeClaim
	cost         float64
	// solveErr is set when the solver refused the input; uninit when an evicted pod would
	// need a node that is not initialized yet (Karpenter does not rely on such nodes).
	solveErr string
	uninit   string
	// stranded names a staying pod the moves leave without the partners its required pod
	// affinity needs (see staying.go).
	stranded string
	// bounded says why a bound rules the change out without a solve (see decider.firstRound).
	bounded string
}

// own returns a copy of the outcome with cands as its candidates and its own replacements,
// sharing what nothing modifies (the plan, the moves and failures).
func (o *outcome) own(cands []*nodeState) *outcome {
	cp := *o
	cp.cands = slices.Clone(cands)
	cp.replacements = slices.Clone(o.replacements)
	return &cp
}

func (o *outcome) allPlaced() bool {
	return len(o.failed) == 0 && o.solveErr == "" && o.uninit == "" && o.stranded == "" && o.bounded == ""
}

// failure says, in a sentence, why the evicted pods cannot all be placed.
func (o *outcome) failure() string {
	if o.solveErr != "" {
		return o.solveErr
	}
	if o.uninit != "" {
		return o.uninit
	}
	if o.bounded != "" {
		return o.bounded
	}
	if len(o.failed) == 0 {
		return o.stranded
	}
	keys := sortedMapKeys(o.failed)
	more := ""
	if len(keys) > 1 {
		more = fmt.Sprintf(" (and %d more)", len(keys)-1)
	}
	return fmt.Sprintf("pod %s cannot be rescheduled: %s%s", keys[0], o.failed[keys[0]], more)
}

// simulate plans the pods of cands onto the rest of the cluster, with new nodes from the
// NodePools when needed, keeping every pod's constraints. Nodes in avoid take no pods (they
// are about to be disrupted too) but keep counting for spread and affinity. It runs on
// cluster (the simulator's own or a worker's) and changes nothing else, so simulations of
// one state may run in parallel, each on its own cluster. With stopEarly (a decision for
// its commands only) it stops at the first evicted pod that would need a node not
// initialized yet: the outcome then fails with that alone.
func (d *decider) simulate(cluster *scheduling.Cluster, cands []*nodeState, avoid []string, reqs []corev1.NodeSelectorRequirement, stopEarly bool) *outcome {
	o := &outcome{cands: cands, change: d.sim.change(cands, avoid)}
	o.change.Requirements = reqs
	plan, err := cluster.Simulate(o.change, scheduling.Options{SkipLowerBound: true, SkipCostByWorkload: true, StopOnUninitialized: stopEarly})
	var uninit *scheduling.UninitializedError
	if errors.As(err, &uninit) {
		o.uninit = uninit.Error()
		return o
	}
	if err != nil {
		o.solveErr = fmt.Sprintf("the simulation failed: %v", err)
		return o
	}
	o.plan = plan
	o.to = make(map[string]string, len(plan.Placements)-d.sim.pending)
	holds := make([]bool, len(plan.NodeClaims))
	var reasons map[string]string
	for _, pl := range plan.Placements[d.sim.pending:] {
		if !reschedulable(pl.Pod) {
			continue // a mirror pod ends with its node
		}
		k := pl.Key
		switch {
		case pl.NodeClaim >= 0:
			o.to[k] = pl.Node
			holds[pl.NodeClaim] = true
		case pl.Node != "":
			o.to[k] = pl.Node
			if n := d.byName[pl.Node]; (n == nil || !n.view.Initialized) && o.uninit == "" {
				o.uninit = fmt.Sprintf("pod %s would move to node %s, which is not initialized yet", k, pl.Node)
			}
		default:
			if reasons == nil {
				reasons = make(map[string]string, len(plan.Unschedulable))
				for _, u := range plan.Unschedulable {
					reasons[u.Pod] = u.Reason
				}
			}
			if o.failed == nil {
				o.failed = map[string]string{}
			}
			o.failed[k] = reasons[k]
		}
	}
	for i, nc := range plan.NodeClaims {
		if holds[i] {
			o.replacements = append(o.replacements, nc)
			o.cost += nc.Price
		}
	}
	if o.allPlaced() {
		o.stranded = d.strandedAffinity(o)
	}
	return o
}

// commit applies a command's outcome to the cluster, budgets and PodDisruptionBudgets: its
// candidates leave, the pods it moves (and pending pods it plans onto existing nodes or its
// replacements) run where it put them, and its replacements join as nodes that take no pods.
func (d *decider) commit(o *outcome) error {
	for _, c := range o.cands {
		c.acted = true
		c.removed = true
		// Every candidate takes one of its NodePool's disruptions, a NotReady one too
		// (Karpenter: allowed = budget - deleting - NotReady, and each candidate uses one).
		d.budgets[c.poolName].busy++
		for _, u := range c.pdbUse {
			u.limit.remaining = max(0, u.limit.remaining-u.pods)
		}
	}
	kept := scheduling.Plan{ExistingNodes: o.plan.ExistingNodes, NodeClaims: o.replacements}
	if err := d.sim.cluster.Apply(scheduling.Change{RemoveNodes: o.change.RemoveNodes}, kept); err != nil {
		return fmt.Errorf("internal: committing %s: %w", namesKey(o.cands), err)
	}
	d.sim.workers = nil // clones of the cluster as it was
	d.sim.consolidated.forget()
	d.staying.settle(d, o)
	replacement := map[int]bool{}
	for i, nc := range o.plan.NodeClaims {
		for _, r := range o.replacements {
			if r.Name == nc.Name {
				replacement[i] = true
			}
		}
	}
	still := 0
	for _, pl := range o.plan.Placements {
		switch {
		case pl.NodeClaim >= 0 && replacement[pl.NodeClaim]:
		case pl.NodeClaim < 0 && pl.Node != "":
			if n := d.byName[pl.Node]; n != nil {
				n.received = true
			}
		default:
			still++
		}
	}
	d.sim.pending = still
	for _, r := range o.replacements {
		d.sim.replacements = append(d.sim.replacements, r.Name)
	}
	return nil
}

// command renders an outcome as a command of the decision.
func (d *decider) command(method, reason string, o *outcome) Command {
	cmd := Command{
		Method:       method,
		Reason:       reason,
		Action:       ActionDelete,
		Candidates:   make([]Candidate, 0, len(o.cands)),
		Replacements: o.replacements,
		Evictions:    []string{},
		Moves:        []Move{},
	}
	if cmd.Replacements == nil {
		cmd.Replacements = []scheduling.NodeClaim{}
	}
	if len(o.replacements) > 0 {
		cmd.Action = ActionReplace
	}
	price := 0.0
	for _, c := range o.cands {
		cmd.Candidates = append(cmd.Candidates, c.candidate())
		price += c.price
		for _, p := range c.movable {
			cmd.Evictions = append(cmd.Evictions, podKey(p))
		}
	}
	sort.Strings(cmd.Evictions)
	for _, k := range cmd.Evictions {
		if to, ok := o.to[k]; ok {
			cmd.Moves = append(cmd.Moves, Move{Pod: k, To: to})
		}
	}
	cmd.Savings = roundPrice(price - o.cost)
	cmd.Notes = d.pdbNotes(o.cands)
	for _, c := range o.cands {
		if c.unpriced != "" {
			cmd.Notes = append(cmd.Notes, fmt.Sprintf("node %s's price is unknown (%s): the savings count it as $0/h", c.name, c.unpriced))
		}
	}
	return cmd
}

// pdbNotes tells when PodDisruptionBudgets pace a command's evictions.
func (d *decider) pdbNotes(cands []*nodeState) []string {
	total := map[*pdbLimit]int{}
	for _, c := range cands {
		for _, u := range c.pdbUse {
			total[u.limit] += u.pods
		}
	}
	var notes []string
	for _, l := range d.pdbs.list {
		k := total[l]
		if k == 0 || k <= l.remaining {
			continue
		}
		if l.remaining == 0 {
			notes = append(notes, fmt.Sprintf("%s: the %d evicted pod(s) it selects wait until it allows disruptions again", l.describe(), k))
			continue
		}
		notes = append(notes, fmt.Sprintf("%s: its %d evicted pods are evicted at most %d at a time", l.describe(), k, l.remaining))
	}
	return notes
}

func roundPrice(p float64) float64 {
	if p < 0 {
		return -roundPrice(-p)
	}
	return float64(int64(p*1e6+0.5)) / 1e6
}

func sortedMapKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
