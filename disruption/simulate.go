package disruption

import (
	"fmt"
	"maps"
	"slices"
	"sort"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/scheduling"
)

// outcome is what a simulation of removing some nodes found.
type outcome struct {
	cands []*nodeState
	plan  scheduling.Plan
	// to maps each evicted pod to the node it lands on; failed maps the pods that land
	// nowhere to the solver's reason.
	to     map[string]string
	failed map[string]string
	// replacements are the new nodes holding evicted pods (new nodes holding only pending
	// pods are the provisioner's business, not this command's).
	replacements []scheduling.NodeClaim
	cost         float64
	// pods are the simulated pods by key, evicted and pending.
	pods map[string]*corev1.Pod
	// solveErr is set when the solver refused the input; uninit when an evicted pod would
	// need a node that is not initialized yet (Karpenter does not rely on such nodes).
	solveErr string
	uninit   string
}

func (o *outcome) allPlaced() bool { return len(o.failed) == 0 && o.solveErr == "" && o.uninit == "" }

// failure says, in a sentence, why the evicted pods cannot all be placed.
func (o *outcome) failure() string {
	if o.solveErr != "" {
		return o.solveErr
	}
	if o.uninit != "" {
		return o.uninit
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
// are about to be disrupted too) but keep counting for spread and affinity.
func (d *decider) simulate(cands []*nodeState, avoid map[string]bool) *outcome {
	d.simulations++
	o := &outcome{cands: cands, to: map[string]string{}, failed: map[string]string{}, pods: map[string]*corev1.Pod{}}
	leaving := make(map[string]bool, len(cands))
	var evicted []*corev1.Pod
	for _, c := range cands {
		leaving[c.name] = true
		for _, p := range d.cluster.byName[c.name].pods {
			if reschedulable(p) {
				evicted = append(evicted, pendingCopy(p))
			}
		}
	}
	pods := make([]*corev1.Pod, 0, len(evicted)+len(d.cluster.pending))
	pods = append(pods, evicted...)
	pods = append(pods, d.cluster.pending...)
	for _, p := range pods {
		o.pods[podKey(p)] = p
	}
	in := d.base
	in.Pods = pods
	in.ExistingNodes = d.cluster.existingFor(leaving, avoid)
	plan, err := scheduling.Solve(in)
	d.work += simulationWork(in, len(plan.NodeClaims), d.typeCount)
	if err != nil {
		o.solveErr = fmt.Sprintf("the simulation failed: %v", err)
		return o
	}
	o.plan = plan
	isEvicted := make(map[string]bool, len(evicted))
	for _, p := range evicted {
		isEvicted[podKey(p)] = true
	}
	for _, placement := range plan.ExistingNodes {
		n := d.cluster.byName[placement.Name]
		for _, k := range placement.Pods {
			if !isEvicted[k] {
				continue
			}
			o.to[k] = placement.Name
			if n != nil && !n.initialized && o.uninit == "" {
				o.uninit = fmt.Sprintf("pod %s would move to node %s, which is not initialized yet", k, n.name)
			}
		}
	}
	for _, nc := range plan.NodeClaims {
		holds := false
		for _, k := range nc.Pods {
			if isEvicted[k] {
				o.to[k] = nc.Name
				holds = true
			}
		}
		if holds {
			o.replacements = append(o.replacements, nc)
			o.cost += nc.Price
		}
	}
	for _, u := range plan.Unschedulable {
		if isEvicted[u.Pod] {
			o.failed[u.Pod] = u.Reason
		}
	}
	return o
}

// commit applies a command's outcome to the cluster, budgets and PodDisruptionBudgets.
func (d *decider) commit(o *outcome) {
	for _, c := range o.cands {
		c.acted = true
		d.cluster.byName[c.name].removed = true
		// Every candidate takes one of its NodePool's disruptions, a NotReady one too
		// (Karpenter: allowed = budget - deleting - NotReady, and each candidate uses one).
		d.budgets[c.poolName].busy++
		for _, u := range c.pdbUse {
			u.limit.remaining = max(0, u.limit.remaining-u.pods)
		}
	}
	placedPending := map[string]bool{}
	for _, placement := range o.plan.ExistingNodes {
		n := d.cluster.byName[placement.Name]
		var pods []*corev1.Pod
		for _, k := range placement.Pods {
			pods = append(pods, o.pods[k])
			placedPending[k] = true
		}
		d.cluster.bind(n, pods)
	}
	for _, nc := range o.replacements {
		var pods []*corev1.Pod
		for _, k := range nc.Pods {
			pods = append(pods, o.pods[k])
			placedPending[k] = true
		}
		d.cluster.addReplacement(nc, pods)
	}
	var still []*corev1.Pod
	for _, p := range d.cluster.pending {
		if !placedPending[podKey(p)] {
			still = append(still, p)
		}
	}
	// Pods a forceful command evicts without a place to go wait as pending pods.
	for _, k := range sortedMapKeys(o.failed) {
		still = append(still, o.pods[k])
	}
	d.cluster.pending = still
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
		// The node's pods now, with those earlier commands moved onto it.
		for _, p := range d.cluster.byName[c.name].pods {
			if reschedulable(p) {
				cmd.Evictions = append(cmd.Evictions, podKey(p))
			}
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

// simulationWork estimates what a solve cost, in units of about 10µs: its setup is linear
// in the nodes and running pods it is shown, placing pods on existing nodes in the pods, and
// placing them on new nodes in pods × new nodes × instance types.
func simulationWork(in scheduling.Input, newNodes, types int) int {
	w := len(in.Pods) + len(in.ExistingNodes)/2
	for _, en := range in.ExistingNodes {
		w += len(en.Pods)
	}
	return w + len(in.Pods)*newNodes*types/64
}
