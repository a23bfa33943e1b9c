package disruption

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/internal/parallel"
	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/workloadcost"
)

// classifyChunk is how many nodes a core classifies at a time: the caller takes chunk after
// chunk while the core it woke starts, so that neither waits on the other. Fewer than
// classifyAlone nodes are classified on the caller alone: a node takes about 1.5 µs, and
// at 136 nodes (BenchmarkReplayDay's Day32cpu) the caller had classified them all before the
// core it woke started, so waking it only cost the caller.
const (
	classifyChunk = 32
	classifyAlone = 256
)

// decider holds the state of one Decide call.
type decider struct {
	now time.Time
	// poolFacts are the NodePools as Decide reads them (shared with a Pools when given).
	*poolFacts
	nodes   []*nodeState // by name
	byRank  []*nodeState // the nodes in rankLess order, once ranked sorts them
	byName  map[string]*nodeState
	pdbs    *pdbIndex
	budgets map[string]*poolBudget
	sim     *simulator
	// rooms (made when consolidation first needs it) holds what the nodes have left.
	rooms    *roomIndex
	commands []Command
	winner   string
	// staying keeps the pods that stay valid (see staying.go).
	staying *stayingRules
	// memoize is set when the input has a Memo and this decision's simulation state can be
	// matched (see Memo); the decision then reuses what the Memo holds for that state, and
	// keeps what it finds.
	memoize bool
	state   simulationState
	// karpenterMultiNode is Input.KarpenterMultiNode.
	karpenterMultiNode bool
	// commandsOnly is Input.CommandsOnly.
	commandsOnly bool
	// states is which of its Memo's arrays holds the nodes' states (see Memo.nodeStates).
	states int
	// driftMemo, when set, keeps nodes' static drift between decisions (see Memo.drift).
	driftMemo *Memo
	// after is Input.After.
	after string
}

// Decide answers which nodes to delete or replace now, in which order, and why not the
// others. It tries Emptiness, Expiration, Drift, multi-node and single-node consolidation in
// turn; the first method that yields commands decides. Every removal is simulated with
// the scheduler, so evicted pods keep their constraints. The error is only for unusable
// input (a nil object, a duplicate name, an invalid budget); a node that cannot be disrupted
// is listed in Decisions.Blocked instead.
//
// The rules, Karpenter's unless said otherwise:
//   - Pending pods come first: they are planned onto the cluster as it is, and a node that
//     receives one is nominated for it and not disrupted gracefully; every simulation plans
//     them too, so room they need is not promised to evicted pods.
//   - Nodes without a NodePool, not initialized or already disrupting are never candidates;
//     a node already disrupting takes no pods either, and its own pods are simulated as
//     pending. do-not-disrupt (node or running pod, and the v1alpha5 do-not-evict /
//     do-not-consolidate) and PodDisruptionBudgets that allow no eviction now (or a pod
//     selected by two of them) keep a node from graceful methods.
//   - Emptiness and consolidation wait for consolidateAfter (never when it is Never);
//     consolidationPolicy WhenEmpty limits a NodePool to Emptiness.
//   - Budgets: per NodePool and reason, the least of the active budgets (cron windows in
//     UTC at Now), percentages of the NodePool's initialized nodes rounded up, minus nodes
//     disrupting, NotReady or taken by earlier commands. Expiration is not budgeted: it is
//     forceful, and its notes say what slows its evictions (PDBs, do-not-disrupt) and which
//     pods it leaves pending.
//   - Within a decision, each command builds on the previous ones: removed nodes are gone,
//     moved pods take their room, PDB disruptions are used up. Replacements of earlier
//     commands count for spread and affinity but take no pods, so every command stands on
//     its own: its pods move to nodes that exist now and stay, or to its own replacements.
//   - Consolidation must save money: replacements strictly cheaper than the candidates, also
//     at their worst launch price (the dearest offering of their capacity type in a zone the
//     NodePool allows), never one of a candidate's own instance type at no lower price; spot
//     candidates are replaced only by spot while the NodePool allows it, one spot node only
//     with 15 cheaper spot types to choose from, one node into one at most, and
//     several nodes only into fewer (beyond Karpenter: into more than one when cheaper).
//     Multi-node consolidation runs Karpenter's binary search over the prefixes of the first
//     MaxMultiNodeCandidates of the ranked list (and, beyond Karpenter, over longer
//     prefixes than one found too short to pay for its one new node), then grows the best
//     set (or an empty one) by one node at a time, which finds sets that are not prefixes;
//     Input.KarpenterMultiNode keeps it to Karpenter's search and several nodes into one at
//     most. Single-node stops at the first success. Candidates rank by hourly price per unit of
//     disruption cost (pod-deletion-cost, priority, lifetime left), ties by name.
//   - Pods that stay are constraints too (beyond Karpenter, which checks only the pods it
//     moves): a move that leaves a staying pod's required pod affinity without a matching
//     pod in its domain is refused, and the set is blocked with a reason naming both pods.
//     A moved pod never lands where a staying pod's required anti-affinity forbids it.
//   - Every candidate is simulated, or ruled out by a sound bound whose reason says so. All
//     simulations run on one scheduling.Cluster prepared per decision (Simulate per candidate
//     set, Apply after each command); independent ones run in parallel on GOMAXPROCS workers,
//     each with its own Cluster, and the decisions do not depend on how many there are.
func Decide(in Input) (Decisions, error) {
	d, err := newDecider(in)
	if err != nil {
		return Decisions{}, err
	}
	methods := []struct {
		name string
		run  func() error
	}{
		{MethodEmptiness, d.emptiness},
		{MethodExpiration, d.expiration},
		{MethodDrift, d.drift},
		{MethodMultiNodeConsolidation, d.multiNode},
		{MethodSingleNodeConsolidation, d.singleNode},
	}
	for _, m := range methods {
		if d.skips(m.name) {
			continue
		}
		if err := m.run(); err != nil {
			return Decisions{}, err
		}
		if len(d.commands) > 0 {
			d.winner = m.name
			break
		}
	}
	if d.memoize {
		in.Memo.keep(d)
	}
	return d.decisions(), nil
}

func newDecider(in Input) (*decider, error) {
	if in.Now.IsZero() {
		return nil, fmt.Errorf("now must be set: Decide measures ages, consolidateAfter and budget schedules against it")
	}
	d := &decider{
		now:     in.Now.UTC(),
		budgets: map[string]*poolBudget{},
		byName:  make(map[string]*nodeState, len(in.Nodes)),

		commandsOnly:       in.CommandsOnly,
		karpenterMultiNode: in.KarpenterMultiNode,
		after:              in.After,
	}
	if in.After != "" && !slices.Contains(methodOrder, in.After) {
		return nil, fmt.Errorf("after: unknown method %q (use one of %s)", in.After, strings.Join(methodOrder, ", "))
	}
	facts, prepared, err := in.Pools.factsFor(in.NodePools)
	if err != nil {
		return nil, err
	}
	d.poolFacts = facts
	pools := facts.normalized

	var pending []*corev1.Pod
	for i, p := range in.PendingPods {
		if p == nil {
			return nil, fmt.Errorf("pendingPods[%d] is nil", i)
		}
		pending = append(pending, pendingCopy(p))
	}
	sortPods(pending)
	var memo *Memo // the Memo when it may serve this decision
	if in.Memo != nil && in.Pools != nil && in.Pools.facts == d.poolFacts {
		memo = in.Memo
	}
	var bound []*corev1.Pod
	seen := make(map[string]bool, len(in.Nodes))
	var kept []memoEntry // what the memo keeps of each node, and the pod list it holds for it
	if memo != nil {
		kept = memo.entries(len(in.Nodes))
	}
	for i, n := range in.Nodes {
		if n == nil || n.Node == nil {
			return nil, fmt.Errorf("nodes[%d]: node is nil", i)
		}
		if n.Node.Name == "" {
			return nil, fmt.Errorf("nodes[%d]: node has no name", i)
		}
		if seen[n.Node.Name] {
			return nil, fmt.Errorf("node %q is given twice", n.Node.Name)
		}
		seen[n.Node.Name] = true
		var held *sortedPods
		if memo != nil {
			held = memo.heldList(n.Pods)
			kept[i].held = held
		}
		if held == nil { // a list the memo holds was looked at before
			for j, p := range n.Pods {
				if p == nil {
					return nil, fmt.Errorf("node %s: pods[%d] is nil", n.Node.Name, j)
				}
			}
		}
		if len(in.PodDisruptionBudgets) > 0 { // they count every pod, and only they
			bound = append(bound, n.Pods...)
		}
	}
	if d.pdbs, err = newPDBIndex(in.PodDisruptionBudgets, bound, pending); err != nil {
		return nil, err
	}
	if memo != nil {
		d.driftMemo = memo
		memo.beginDrift(d.poolFacts)
	}
	// Nodes are classified on every core (classify only reads the decision and the memo),
	// then indexed, and what the memo keeps of them stored, in input order.
	d.nodes = make([]*nodeState, len(in.Nodes))
	var states []nodeState // one array for the decision's nodes
	states, d.states = d.driftMemo.nodeStates(len(in.Nodes))
	classify := func(from, to int) {
		for i := from; i < to; i++ {
			var k *memoEntry
			if kept != nil {
				k = &kept[i]
			}
			d.nodes[i] = d.classify(&states[i], in.Nodes[i], k)
		}
	}
	if len(in.Nodes) < classifyAlone {
		classify(0, len(in.Nodes))
	} else {
		parallel.RangesMin(len(in.Nodes), classifyChunk, classifyChunk, classify)
	}
	for _, ns := range d.nodes {
		d.byName[ns.name] = ns
		if d.driftMemo != nil {
			d.driftMemo.keepEntry(ns)
		}
	}
	if d.driftMemo != nil {
		d.driftMemo.endDrift(len(d.nodes))
	}
	byName := func(a, b *nodeState) int { return strings.Compare(a.name, b.name) }
	if !slices.IsSortedFunc(d.nodes, byName) {
		slices.SortFunc(d.nodes, byName)
	}
	var prev *scheduling.Cluster
	if in.Memo != nil {
		d.state, d.memoize = d.stateOf(in, prepared)
	}
	if d.memoize {
		prev = in.Memo.views(d)
	} else {
		for _, n := range d.nodes {
			n.view = view(n)
		}
	}

	for _, np := range pools {
		count, busy := 0, 0
		for _, n := range d.nodes {
			if n.poolName == np.Name && n.in.Initialized {
				count++
				if n.counted {
					busy++
				}
			}
		}
		b, err := newPoolBudget(np, count, d.now)
		if err != nil {
			return nil, err
		}
		b.busy = busy
		d.budgets[np.Name] = b
	}

	base := scheduling.Input{
		NodePools:              pools,
		DaemonSets:             sortedDaemonSets(in.DaemonSets),
		Namespaces:             in.Namespaces,
		PersistentVolumeClaims: in.PersistentVolumeClaims,
		PersistentVolumes:      in.PersistentVolumes,
		StorageClasses:         in.StorageClasses,
		Pools:                  prepared,
	}
	// Preparing validates the NodePools (requirements, labels) and the nodes: what it refuses
	// is unusable input.
	if d.sim, err = newSimulator(base, d.nodes, pending, prev, d.driftMemo); err != nil {
		return nil, err
	}
	d.staying = newStayingRules(d.nodes, in.Namespaces)
	if d.memoize {
		for key, c := range in.Memo.begin(d.state) {
			d.sim.consolidated.put(key, d.rebind(c))
		}
	}
	d.nominate(pending)
	return d, nil
}

// nominate plans the pending pods first, as Karpenter's provisioner does before any
// disruption: a node that receives one is nominated for it, and a nominated node is not a
// candidate of a graceful method (Expiration still takes it). The pods of nodes already being
// disrupted are rescheduled the same way and nominate nodes too.
func (d *decider) nominate(pending []*corev1.Pod) {
	if d.sim.pending == 0 {
		return
	}
	isPending := make(map[string]bool, len(pending))
	for _, p := range pending {
		isPending[podKey(p)] = true
	}
	opts := scheduling.Options{SkipLowerBound: true, SkipCostByWorkload: true}
	onto := map[*nodeState][]string{}
	// The solve's first round tells where most pending pods land without a solve.
	landings, ok := d.sim.cluster.PendingOnExisting(opts)
	if !ok {
		plan, err := d.sim.cluster.Simulate(scheduling.Change{}, opts)
		if err != nil {
			return // every simulation reports the solver's refusal
		}
		for _, pl := range plan.Placements {
			if pl.NodeClaim < 0 && pl.Node != "" {
				landings = append(landings, scheduling.Landing{Pod: pl.Pod, Node: pl.Node})
			}
		}
	}
	for _, l := range landings {
		if n := d.byName[l.Node]; n != nil {
			onto[n] = append(onto[n], podKey(l.Pod))
		}
	}
	for n, pods := range onto {
		slices.Sort(pods)
		more := ""
		if len(pods) > 1 {
			more = fmt.Sprintf(" (and %d more)", len(pods)-1)
		}
		if isPending[pods[0]] {
			n.nominated = fmt.Sprintf("the node is nominated for pending pod %s%s, planned onto it before any disruption", pods[0], more)
		} else {
			n.nominated = fmt.Sprintf("the node is nominated for pod %s%s, which leaves a node being disrupted and is planned onto it", pods[0], more)
		}
	}
}

// normalizePool reads the legacy consolidation policy name and rejects unknown ones; the
// input NodePool is never modified.
func normalizePool(np *scheduling.NodePool) (*scheduling.NodePool, error) {
	switch np.Disruption.ConsolidationPolicy {
	case scheduling.ConsolidationWhenEmpty, scheduling.ConsolidationWhenEmptyOrUnderutilized:
		return np, nil
	case "", "WhenUnderutilized":
		cp := *np
		cp.Disruption.ConsolidationPolicy = scheduling.ConsolidationWhenEmptyOrUnderutilized
		return &cp, nil
	}
	return nil, fmt.Errorf("nodepool %q: unknown consolidation policy %q (use WhenEmpty or WhenEmptyOrUnderutilized)", np.Name, np.Disruption.ConsolidationPolicy)
}

func sortedDaemonSets(in []*appsv1.DaemonSet) []*appsv1.DaemonSet {
	var out []*appsv1.DaemonSet
	for _, ds := range in {
		if ds != nil {
			out = append(out, ds)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		return objectKey(out[i].Namespace, out[i].Name) < objectKey(out[j].Namespace, out[j].Name)
	})
	return out
}

// roomIndex returns the room every node has left, as the input gives it.
func (d *decider) roomIndex() *roomIndex {
	if d.rooms == nil {
		d.rooms = newRoomIndex(d.nodes)
	}
	return d.rooms
}

// decisions renders the result: the commands, a reason for every other node, the summary.
func (d *decider) decisions() Decisions {
	out := Decisions{Commands: d.commands, Blocked: []Blocked{}}
	if out.Commands == nil {
		out.Commands = []Command{}
	}
	for _, n := range d.nodes {
		if !n.acted {
			out.Blocked = append(out.Blocked, Blocked{Node: n.name, Reason: d.whyNot(n)})
		}
		if n.priceWarning != "" {
			out.Warnings = append(out.Warnings, n.priceWarning)
		}
	}
	before, after := 0.0, 0.0
	for _, n := range d.nodes {
		if n.poolName == "" {
			continue
		}
		out.Summary.Nodes++
		before += n.price
		if !n.acted {
			out.Summary.NodesAfter++
			after += n.price
		}
	}
	for _, c := range d.commands {
		out.Summary.NodesAfter += len(c.Replacements)
		for _, r := range c.Replacements {
			after += r.Price
		}
	}
	out.Summary.HourlyCostBefore = roundPrice(before)
	out.Summary.HourlyCostAfter = roundPrice(after)
	if !d.commandsOnly {
		out.Summary.CostByWorkloadBefore, out.Summary.CostByWorkloadAfter = d.costByWorkload()
	}
	return out
}

// costByWorkload splits the NodePool-managed nodes' costs among workloads before the commands
// and after them: nodes acted on are gone, their evicted pods run where the moves put them,
// on nodes that stay or on replacements.
func (d *decider) costByWorkload() (before, after []workloadcost.Cost) {
	if len(d.commands) == 0 {
		// Nothing moves: the cluster after is the cluster before.
		before = workloadcost.Split(d.nodeCosts())
		return before, append(make([]workloadcost.Cost, 0, len(before)), before...)
	}
	podByKey := map[string]*corev1.Pod{}
	moved := map[string]bool{}
	onNode := map[string][]*corev1.Pod{}
	for _, c := range d.commands {
		for _, m := range c.Moves {
			moved[m.Pod] = true
		}
	}
	for _, n := range d.nodes {
		for _, p := range n.pods {
			podByKey[podKey(p)] = p
		}
		if n.poolName == "" || n.acted {
			continue
		}
		for _, p := range n.pods {
			if !moved[podKey(p)] {
				onNode[n.name] = append(onNode[n.name], p)
			}
		}
	}
	for _, c := range d.commands {
		for _, m := range c.Moves {
			if p := podByKey[m.Pod]; p != nil {
				onNode[m.To] = append(onNode[m.To], p)
			}
		}
	}
	var afterNodes []workloadcost.Node
	for _, n := range d.nodes {
		if n.poolName == "" || n.acted {
			continue
		}
		afterNodes = append(afterNodes, workloadcost.Node{Price: n.price, Allocatable: allocatable(n.in.Node), Pods: onNode[n.name]})
	}
	for _, c := range d.commands {
		for _, r := range c.Replacements {
			afterNodes = append(afterNodes, workloadcost.Node{Price: r.Price, Allocatable: r.Allocatable, Pods: onNode[r.Name]})
		}
	}
	return workloadcost.Split(d.nodeCosts()), workloadcost.Split(afterNodes)
}

// nodeCosts are the NodePool-managed nodes with their prices and pods, as the input gives them.
func (d *decider) nodeCosts() []workloadcost.Node {
	out := make([]workloadcost.Node, 0, len(d.nodes))
	for _, n := range d.nodes {
		if n.poolName == "" {
			continue
		}
		out = append(out, workloadcost.Node{Price: n.price, Allocatable: allocatable(n.in.Node), Pods: n.pods})
	}
	return out
}

// whyNot says why a node is not acted on: what a method found when it considered the node,
// else what keeps the node out of every method, else which method acted instead.
func (d *decider) whyNot(n *nodeState) string {
	if n.why != "" {
		return n.why
	}
	if n.hard != "" {
		return n.hard
	}
	waits := func(what string) string {
		return fmt.Sprintf("%s; it waits for a later decision because %s acted in this one (one method acts per decision)", what, d.winner)
	}
	notAgain := func(what, method string) string {
		return fmt.Sprintf("%s, but %s is not tried again in this pass, which goes on after a command of %s failed its validation", what, method, d.after)
	}
	switch {
	case n.expired != "" && d.skips(MethodExpiration):
		return notAgain("expired ("+n.expired+")", MethodExpiration)
	case n.drifted != "" && d.skips(MethodDrift) && firstNonEmpty(n.nominated, n.doNotDisrupt, n.pdb) == "":
		return notAgain("drifted ("+n.drifted+")", MethodDrift)
	case n.empty() && n.consolidation == waitNone && d.skips(MethodEmptiness) && firstNonEmpty(n.nominated, n.doNotDisrupt) == "":
		return notAgain("the node is empty", MethodEmptiness)
	}
	if n.expired != "" && d.winner != "" && methodBefore(d.winner, MethodExpiration) {
		return waits(n.expired)
	}
	if blocker := firstNonEmpty(n.nominated, n.doNotDisrupt, n.pdb); blocker != "" {
		if n.drifted != "" {
			return fmt.Sprintf("drifted (%s), but %s", n.drifted, blocker)
		}
		return blocker
	}
	if n.drifted != "" && d.winner != "" && methodBefore(d.winner, MethodDrift) {
		return waits("drifted: " + n.drifted)
	}
	if n.consolidation != waitNone {
		return d.describeWait(n)
	}
	if n.underutilized != "" {
		return n.underutilized
	}
	if n.unpriced != "" && !n.empty() {
		return fmt.Sprintf("its price is unknown (%s), so consolidation cannot tell whether a replacement is cheaper", n.unpriced)
	}
	if d.winner != "" && methodBefore(d.winner, MethodMultiNodeConsolidation) {
		return fmt.Sprintf("consolidation is not evaluated in this decision because %s acted first (one method acts per decision)", d.winner)
	}
	return "consolidation found no cheaper way to run its pods"
}

// skips reports whether the decision does not try method (see Input.After).
func (d *decider) skips(method string) bool {
	return d.after != "" && !methodBefore(d.after, method)
}

var methodOrder = []string{MethodEmptiness, MethodExpiration, MethodDrift, MethodMultiNodeConsolidation, MethodSingleNodeConsolidation}

// methodBefore reports whether method a comes before method b.
func methodBefore(a, b string) bool {
	ia, ib := 0, 0
	for i, m := range methodOrder {
		if m == a {
			ia = i
		}
		if m == b {
			ib = i
		}
	}
	return ia < ib
}
