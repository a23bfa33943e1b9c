package disruption

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/topology"
)

// Annotations that keep a node, or the node a pod runs on, from voluntary disruption. The
// v1alpha5 names are honoured as well.
const (
	AnnotationDoNotDisrupt     = "karpenter.sh/do-not-disrupt"
	AnnotationDoNotEvict       = "karpenter.sh/do-not-evict"
	AnnotationDoNotConsolidate = "karpenter.sh/do-not-consolidate"
	annotationMirror           = "kubernetes.io/config.mirror"
)

var doNotDisruptAnnotations = []string{AnnotationDoNotDisrupt, AnnotationDoNotEvict, AnnotationDoNotConsolidate}

// nodeState is a node with everything Decide derived about it: the one representation of a
// node inside Decide. Its view is what the scheduler is shown, built once; the scheduling
// Cluster tracks the pods that commands move onto it.
type nodeState struct {
	in           *Node
	view         *scheduling.ExistingNode
	name         string
	poolName     string
	pool         *scheduling.NodePool
	instanceType string
	zone         string
	capacityType string
	price        float64
	// unpriced says why the node's price is unknown ("" when known); priceWarning is the
	// warning about its price, unknown or taken from another offering.
	unpriced     string
	priceWarning string
	created      time.Time
	// pods are the node's pods that are not finished; movable those that must be
	// rescheduled elsewhere when the node goes (not DaemonSet, mirror or terminating pods).
	pods    []*corev1.Pod
	movable []*corev1.Pod
	// affine are the pods with a required pod affinity, which staying pods' rules read
	// (see newStayingRules).
	affine []*corev1.Pod
	// podFacts are the node's pods as the decision's Memo holds them (see stateOf), nil
	// without a Memo.
	podFacts []podFacts
	// needs are the movable pods' requests, one per pod, and kinds the same by kind; used
	// is what the pods take by their requests (see podLists) and room what the node's
	// allocatable leaves them: for the bounds (see bounds.go).
	needs []vec
	kinds []needKind
	used  vec
	room  vec
	// indexed is set when the decision's room index holds the node (see newRoomIndex).
	indexed bool
	// counted is set when the node already counts against its NodePool's budgets (it is
	// being disrupted or NotReady).
	counted bool

	// Why the node may not be disrupted at all (unmanaged, not initialized, already
	// disrupting), gracefully (nominated for a pending pod, do-not-disrupt,
	// PodDisruptionBudgets), by consolidation
	// (consolidateAfter), or when not empty (consolidationPolicy WhenEmpty).
	hard         string
	nominated    string
	doNotDisrupt string
	pdb          string
	// nodeDoNotDisrupt is set when the annotation is on the node itself, not on a pod.
	nodeDoNotDisrupt bool
	consolidation    consolidationWait
	underutilized    string
	// pdbUse counts, per budget, the disruptions evicting the node's pods takes.
	pdbUse []pdbUse
	// unevictable names the first pod selected by more than one PodDisruptionBudget.
	unevictable string
	// blockEnding says the node runs in a capacity block EC2 is about to reclaim.
	blockEnding string
	// drifted and expired describe why the node drifted or expired; empty when it did not.
	drifted string
	expired string
	// cost is Karpenter's disruption cost: the eviction cost of its pods times the share of
	// its lifetime left.
	cost float64

	acted bool
	why   string
	// removed is set once the node is gone in simulations: a candidate of an earlier command,
	// or a node already being disrupted. received is set once an earlier command of this
	// decision planned pods onto it.
	removed  bool
	received bool
	// kept is what the decision's Memo keeps of the node for the next decision, gathered
	// while nodes are classified in parallel (the Memo is only read meanwhile); nil without
	// a Memo.
	kept *memoEntry
}

type pdbUse struct {
	limit *pdbLimit
	pods  int
}

func (n *nodeState) empty() bool { return len(n.movable) == 0 }

// block records why the node is not acted on; the first reason recorded stays.
func (n *nodeState) block(format string, args ...any) {
	if n.why == "" {
		n.why = fmt.Sprintf(format, args...)
	}
}

// blockWith is block with a reason already made: most reasons come made, and neither
// formatting them nor passing them as an argument (which boxes them) is free.
func (n *nodeState) blockWith(why string) {
	if n.why == "" {
		n.why = why
	}
}

func (n *nodeState) candidate() Candidate {
	return Candidate{Node: n.name, NodePool: n.poolName, InstanceType: n.instanceType, Zone: n.zone, CapacityType: n.capacityType, Price: roundPrice(n.price)}
}

// classify derives a node's facts and everything that blocks it into n.
func (d *decider) classify(n *nodeState, in *Node, kept *memoEntry) *nodeState {
	node := in.Node
	*n = nodeState{in: in, name: node.Name, kept: kept}
	n.poolName = orLabel(in.NodePool, node, requirements.LabelNodePool)
	n.instanceType = orLabel(in.InstanceType, node, requirements.LabelInstanceType, "beta.kubernetes.io/instance-type")
	n.zone = orLabel(in.Zone, node, requirements.LabelTopologyZone, "failure-domain.beta.kubernetes.io/zone")
	n.capacityType = orLabel(in.CapacityType, node, requirements.LabelCapacityType)
	n.pool = d.pools[n.poolName]
	n.price = in.Price
	if n.price == 0 && n.poolName != "" {
		d.priceNode(n)
	}
	n.created = in.Created
	if n.created.IsZero() {
		n.created = node.CreationTimestamp.Time
	}
	// newDecider refused nil pods.
	var lists podLists
	var alloc vec
	if m := d.driftMemo; m != nil {
		n.kept.pods, n.kept.fresh = m.classified(n.name, in.Pods, n.kept.held)
		if n.kept.pods != nil {
			lists = n.kept.pods.lists // shared with the next decision: only read
			n.podFacts = n.kept.pods.facts
		}
		n.kept.seen, n.kept.seenFresh = m.seen(node)
		alloc = n.kept.seen.alloc
	} else {
		sorted := slices.Clone(in.Pods)
		sortPods(sorted)
		lists = listPods(sorted)
		alloc = vecOf(allocatable(node))
	}
	n.pods, n.movable, n.affine, n.needs, n.kinds, n.used = lists.running, lists.movable, lists.affine, lists.needs, lists.kinds, lists.used
	n.room = alloc.sub(n.used)

	n.counted = in.Initialized && n.poolName != "" && (in.Disrupting || notReady(node))

	switch {
	case n.poolName == "":
		n.hard = "the node is not managed by a NodePool (no karpenter.sh/nodepool label or NodeClaim)"
	case n.pool == nil:
		n.hard = fmt.Sprintf("its NodePool %s is not in the input", n.poolName)
	case in.Disrupting:
		n.hard = "the node is already being disrupted"
	case !in.Initialized && n.poolName != "":
		n.hard = "the node is not initialized yet"
	}
	n.doNotDisrupt = nodeDoNotDisruptReason(node)
	n.nodeDoNotDisrupt = n.doNotDisrupt != ""
	if n.doNotDisrupt == "" {
		n.doNotDisrupt = lists.doNotDisrupt
	}
	d.checkPDBs(n)
	if n.pool != nil {
		n.consolidation = d.consolidationWaitOf(n)
		n.underutilized = underutilizedBlock(n)
		n.drifted = d.driftReason(n)
		n.expired = d.expiredReason(n)
		n.cost = lists.cost * lifetimeRemaining(n.expireAfter(), d.now.Sub(n.created))
	}
	return n
}

// allocatable is what the node offers pods: its allocatable, its capacity when it gives none.
func allocatable(node *corev1.Node) corev1.ResourceList {
	if len(node.Status.Allocatable) == 0 {
		return node.Status.Capacity
	}
	return node.Status.Allocatable
}

// orLabel is given when set, else the first of the node's labels keys that is set: the labels
// are read only for what the NodeClaim facts leave out (a replay gives them all, for every
// node at every decision).
func orLabel(given string, node *corev1.Node, keys ...string) string {
	if given != "" {
		return given
	}
	for _, k := range keys {
		if v := node.Labels[k]; v != "" {
			return v
		}
	}
	return ""
}

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

// priceNode finds the node's price in its NodePool's instance types, else in any NodePool's
// (a type that left the NodePool is still priced): the offering of its zone and capacity
// type, else the cheapest available one of its capacity type, which a warning names. When
// neither is there, the node is unpriced, and says why.
func (d *decider) priceNode(n *nodeState) {
	it := d.catalog[n.poolName][n.instanceType]
	if it == nil {
		for _, name := range sortedKeys(d.poolNames) {
			if it = d.catalog[name][n.instanceType]; it != nil {
				break
			}
		}
	}
	switch {
	case n.instanceType == "":
		n.unpriced = "the node names no instance type (label node.kubernetes.io/instance-type)"
	case it == nil:
		n.unpriced = fmt.Sprintf("instance type %s is not among the NodePools' instance types", n.instanceType)
	}
	if n.unpriced != "" {
		n.priceWarning = fmt.Sprintf("node %s: its price is unknown: %s; it counts as $0/h and is not consolidated", n.name, n.unpriced)
		return
	}
	if n.capacityType == instancetype.CapacityTypeReserved && d.priceReserved(n, it) {
		return
	}
	exact, fallback, fallbackZone := 0.0, math.Inf(1), ""
	for _, o := range it.Offerings {
		if n.capacityType != "" && o.CapacityType != n.capacityType {
			continue
		}
		if n.capacityType != "" && o.Zone == n.zone {
			exact = o.Price
			break
		}
		if o.Available && o.Price < fallback {
			fallback, fallbackZone = o.Price, o.Zone
		}
	}
	switch {
	case exact > 0:
		n.price = exact
	case !math.IsInf(fallback, 1):
		n.price = fallback
		n.priceWarning = fmt.Sprintf("node %s: %s has no %s offering in zone %q; priced at its cheapest %s offering, $%.4f/h in %s", n.name, n.instanceType, orAny(n.capacityType), n.zone, orAny(n.capacityType), fallback, fallbackZone)
	default:
		n.unpriced = fmt.Sprintf("instance type %s has no available %s offering", n.instanceType, orAny(n.capacityType))
		n.priceWarning = fmt.Sprintf("node %s: its price is unknown: %s; it counts as $0/h and is not consolidated", n.name, n.unpriced)
	}
}

// priceReserved prices a node launched into a capacity reservation at its reservation's
// offering (next to free, as Karpenter models it) and notes a capacity block EC2 is about to
// reclaim. A reservation its NodeClass no longer lists has ended or dropped the instance:
// Karpenter relabels such a node on-demand, so it is priced and consolidated as on-demand.
// It reports whether the node is priced.
func (d *decider) priceReserved(n *nodeState, it *instancetype.InstanceType) bool {
	id := n.in.Node.Labels[LabelCapacityReservationID]
	if id == "" {
		return false // no reservation named: priced by capacity type and zone, as any node
	}
	for _, o := range it.Offerings {
		if o.ReservationID == "" || o.ReservationID != id {
			continue
		}
		n.price = o.Price
		if o.ReservationExpiring && o.ReservationType == "capacity-block" {
			n.blockEnding = fmt.Sprintf("its capacity block %s is expiring: EC2 terminates its instances ahead of the end time, and Karpenter drains them first", id)
		}
		return true
	}
	n.priceWarning = fmt.Sprintf("node %s: its capacity reservation %q is not in its EC2NodeClass's status.capacityReservations: the reservation ended or released the instance, which now runs on-demand (Karpenter relabels it); priced and consolidated as on-demand", n.name, id)
	n.capacityType = requirements.CapacityTypeOnDemand
	return false
}

// LabelCapacityReservationID is the label Karpenter's AWS provider puts on nodes launched into
// a capacity reservation.
const LabelCapacityReservationID = scheduling.LabelCapacityReservationID

// orAny names a capacity type, or any when the node names none.
func orAny(capacityType string) string {
	if capacityType == "" {
		return "(any capacity type)"
	}
	return capacityType
}

// reschedulable pods move when their node goes: not DaemonSet or mirror pods, not pods that
// are already terminating or finished.
func reschedulable(p *corev1.Pod) bool {
	if isTerminal(p) || p.DeletionTimestamp != nil {
		return false
	}
	if _, ok := p.Annotations[annotationMirror]; ok {
		return false
	}
	for _, o := range p.OwnerReferences {
		if o.Kind == "DaemonSet" || o.Kind == "Node" {
			return false
		}
	}
	return true
}

func notReady(node *corev1.Node) bool {
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status != corev1.ConditionTrue
		}
	}
	return false // no status (a manifest): taken as ready
}

// podLists are a node's pods as classify keeps them: those still running, and those of them
// that move when the node goes (reschedulable), sorted by name (sortPods); with what
// decisions read of them alone, worked out once per node rather than once per decision: the
// movable pods' requests, each and by kind (podVec), and what the running ones take
// (usedVec), for the bounds; the movable pods' disruption cost; the pod that keeps the
// node (podDoNotDisruptReason); and the running pods with a required pod affinity, which
// most nodes have none of.
type podLists struct {
	running, movable, affine []*corev1.Pod
	needs                    []vec
	kinds                    []needKind
	used                     vec
	cost                     float64
	doNotDisrupt             string
}

// listPods makes the lists of a node's pods, sorted.
func listPods(sorted []*corev1.Pod) podLists {
	l := podLists{running: make([]*corev1.Pod, 0, len(sorted)), movable: make([]*corev1.Pod, 0, len(sorted)), needs: make([]vec, 0, len(sorted))}
	for _, p := range sorted {
		if isTerminal(p) {
			continue
		}
		l.running = append(l.running, p)
		if topology.HasRequiredAffinity(p) {
			l.affine = append(l.affine, p)
		}
		used, v := podVecs(p)
		l.used = l.used.add(used)
		if reschedulable(p) {
			l.movable = append(l.movable, p)
			l.needs = append(l.needs, v)
			l.kinds = addNeed(l.kinds, v)
		}
	}
	l.cost = disruptionCost(l.movable)
	l.doNotDisrupt = podDoNotDisruptReason(l.running)
	return l
}

// sortPods sorts pods by their namespace/name keys, stably.
func sortPods(pods []*corev1.Pod) {
	if !slices.IsSortedFunc(pods, comparePodKeys) {
		slices.SortStableFunc(pods, comparePodKeys)
	}
}

// comparePodKeys compares the pods' namespace/name keys as strings, without building them.
func comparePodKeys(a, b *corev1.Pod) int {
	nsA, nsB := namespaceOf(a.Namespace), namespaceOf(b.Namespace)
	if nsA == nsB {
		return strings.Compare(a.Name, b.Name)
	}
	key := func(ns, name string, i int) (byte, bool) {
		switch {
		case i < len(ns):
			return ns[i], true
		case i == len(ns):
			return '/', true
		case i-len(ns)-1 < len(name):
			return name[i-len(ns)-1], true
		}
		return 0, false
	}
	for i := 0; ; i++ {
		x, okA := key(nsA, a.Name, i)
		y, okB := key(nsB, b.Name, i)
		switch {
		case !okA && !okB:
			return 0
		case !okA:
			return -1
		case !okB:
			return 1
		case x != y:
			return cmp.Compare(x, y)
		}
	}
}

// nodeDoNotDisruptReason says which annotation keeps the node ("" when none does).
func nodeDoNotDisruptReason(node *corev1.Node) string {
	for _, a := range doNotDisruptAnnotations {
		if node.Annotations[a] == "true" {
			return fmt.Sprintf("the node has %s", a)
		}
	}
	return ""
}

// podDoNotDisruptReason names the first of pods that keeps its node ("" when none does).
func podDoNotDisruptReason(pods []*corev1.Pod) string {
	for _, p := range pods {
		// Karpenter ignores the annotation on pods that are terminating (or finished).
		if p.DeletionTimestamp != nil {
			continue
		}
		for _, a := range doNotDisruptAnnotations {
			if p.Annotations[a] == "true" {
				return fmt.Sprintf("pod %s has %s", podKey(p), a)
			}
		}
	}
	return ""
}

// checkPDBs records which budgets the node's pods take disruptions from, and whether any
// blocks the node now.
func (d *decider) checkPDBs(n *nodeState) {
	if len(d.pdbs.list) == 0 {
		return // no budget selects a pod
	}
	uses := map[*pdbLimit]int{}
	for _, p := range n.movable {
		matched := d.pdbs.matching(p)
		if len(matched) > 1 {
			keys := make([]string, len(matched))
			for i, l := range matched {
				keys[i] = l.key
			}
			if n.unevictable == "" {
				n.unevictable = fmt.Sprintf("pod %s is selected by more than one PodDisruptionBudget (%s), so the eviction API refuses to evict it", podKey(p), strings.Join(keys, ", "))
			}
			if n.pdb == "" {
				n.pdb = n.unevictable
			}
			continue
		}
		if len(matched) == 1 && matched[0].needsBudget(p) {
			uses[matched[0]]++
			if matched[0].allowed == 0 && n.pdb == "" {
				n.pdb = fmt.Sprintf("pod %s: %s", podKey(p), matched[0].describe())
			}
		}
	}
	for _, l := range d.pdbs.list {
		if k := uses[l]; k > 0 {
			n.pdbUse = append(n.pdbUse, pdbUse{limit: l, pods: k})
		}
	}
}

// underutilizedBlock says why the node may only be consolidated once empty.
func underutilizedBlock(n *nodeState) string {
	if n.pool.Disruption.ConsolidationPolicy == scheduling.ConsolidationWhenEmpty && !n.empty() {
		return fmt.Sprintf("NodePool %s consolidates only empty nodes (consolidationPolicy WhenEmpty) and the node runs %d pod(s) that would move", n.poolName, len(n.movable))
	}
	return ""
}

// driftReason says how the node no longer matches its NodePool: its instance type left the
// NodePool's instance types, its labels (with those its instance type implies) no longer
// meet the NodePool's requirements or template labels, it lacks one of the NodePool's
// taints, its node class changed (AMI, class hash), its NodeClaim is Drifted (beyond what
// the input shows), or the NodePool's expireAfter is no longer the one its NodeClaim was
// launched with.
func (d *decider) driftReason(n *nodeState) string {
	if why := d.memoStaticDrift(n); why != "" {
		return why
	}
	if n.in.NodeClassDrift != "" {
		return "its node class changed: " + n.in.NodeClassDrift
	}
	if n.in.Drifted != "" {
		return fmt.Sprintf("its NodeClaim's Drifted condition is True (%s)", n.in.Drifted)
	}
	return expireAfterDrift(n)
}

// staticDrift compares the node with its NodePool as the input gives them.
func (d *decider) staticDrift(n *nodeState) string {
	types := d.catalog[n.poolName]
	it := types[n.instanceType]
	if len(types) > 0 && n.instanceType != "" && it == nil {
		return fmt.Sprintf("instance type %s is no longer among NodePool %s's instance types", n.instanceType, n.poolName)
	}
	labels := map[string]string{}
	if it != nil {
		for k, v := range it.Labels {
			labels[requirements.NormalizeKey(k)] = v
		}
	}
	implied := map[string]string{
		requirements.LabelInstanceType: n.instanceType,
		requirements.LabelTopologyZone: n.zone,
		requirements.LabelCapacityType: n.capacityType,
		requirements.LabelNodePool:     n.poolName,
	}
	for k, v := range implied {
		if v != "" {
			labels[k] = v
		}
	}
	for k, v := range n.in.Node.Labels {
		labels[requirements.NormalizeKey(k)] = v
	}
	reqs := d.poolReqs[n.poolName]
	for _, k := range reqs.Keys() {
		if (requirements.Requirements{k: reqs[k]}).Matches(labels) {
			continue
		}
		if v, ok := labels[k]; ok {
			return fmt.Sprintf("label %s=%s no longer meets NodePool %s's requirement %s", k, v, n.poolName, reqs[k])
		}
		return fmt.Sprintf("the node has no label %s, which NodePool %s's requirement %s needs", k, n.poolName, reqs[k])
	}
	for _, k := range sortedKeys(n.pool.Labels) {
		want := n.pool.Labels[k]
		if got, ok := labels[requirements.NormalizeKey(k)]; !ok || got != want {
			return fmt.Sprintf("NodePool %s's template label %s=%s is not on the node", n.poolName, k, want)
		}
	}
	for _, t := range n.pool.Taints {
		if !hasTaint(n.in.Node.Spec.Taints, t) {
			return fmt.Sprintf("NodePool %s's taint %s is not on the node", n.poolName, taintString(t))
		}
	}
	return ""
}

func hasTaint(taints []corev1.Taint, t corev1.Taint) bool {
	for _, x := range taints {
		if x.Key == t.Key && x.Value == t.Value && x.Effect == t.Effect {
			return true
		}
	}
	return false
}

func taintString(t corev1.Taint) string {
	if t.Value == "" {
		return fmt.Sprintf("%s:%s", t.Key, t.Effect)
	}
	return fmt.Sprintf("%s=%s:%s", t.Key, t.Value, t.Effect)
}

// expireAfter is how long the node may live: its NodeClaim's expireAfter when known, else its
// NodePool's; nil means Never.
func (n *nodeState) expireAfter() *time.Duration {
	if n.in.ExpireAfterSet {
		return n.in.ExpireAfter
	}
	return n.pool.ExpireAfter
}

func (d *decider) expiredReason(n *nodeState) string {
	if n.blockEnding != "" {
		return n.blockEnding
	}
	exp := n.expireAfter()
	if exp == nil || n.created.IsZero() {
		return ""
	}
	age := d.now.Sub(n.created)
	if age < *exp {
		return ""
	}
	whose := fmt.Sprintf("NodePool %s's", n.poolName)
	if n.in.ExpireAfterSet {
		whose = "its NodeClaim's"
	}
	return fmt.Sprintf("the node is %s old, past %s expireAfter %s", humanDuration(age), whose, *exp)
}

// expireAfterDrift says how the NodePool's expireAfter changed since it launched the node's
// NodeClaim: Karpenter counts that as drift of the NodePool, not as expiry.
func expireAfterDrift(n *nodeState) string {
	if !n.in.ExpireAfterSet {
		return ""
	}
	claim, pool := n.in.ExpireAfter, n.pool.ExpireAfter
	if (claim == nil) == (pool == nil) && (claim == nil || *claim == *pool) {
		return ""
	}
	return fmt.Sprintf("NodePool %s's expireAfter is now %s, its NodeClaim's is %s", n.poolName, durationText(pool), durationText(claim))
}

// humanDuration writes an age or a wait as kubectl does ("324d", "5h12m", "45s").
func humanDuration(d time.Duration) string { return duration.HumanDuration(d) }

func durationText(d *time.Duration) string {
	if d == nil {
		return "Never"
	}
	return d.String()
}

// disruptionCost sums Karpenter's eviction cost of the pods: 1 each, raised by the
// pod-deletion-cost annotation (scaled by 2^27) and by priority (scaled by 2^25), clamped
// to [-10, 10].
func disruptionCost(pods []*corev1.Pod) float64 {
	cost := 0.0
	for _, p := range pods {
		c := 1.0
		if text, ok := p.Annotations[corev1.PodDeletionCost]; ok {
			if v, err := strconv.ParseFloat(text, 64); err == nil {
				c += v / math.Pow(2, 27)
			}
		}
		if p.Spec.Priority != nil {
			c += float64(*p.Spec.Priority) / math.Pow(2, 25)
		}
		cost += math.Max(-10, math.Min(10, c))
	}
	return cost
}

// lifetimeRemaining is the share of the node's lifetime left before expireAfter, in [0, 1].
func lifetimeRemaining(expireAfter *time.Duration, age time.Duration) float64 {
	if expireAfter == nil || *expireAfter <= 0 {
		return 1
	}
	left := float64(*expireAfter-age) / float64(*expireAfter)
	return math.Max(0, math.Min(1, left))
}

// rankLess orders consolidation and drift candidates: the most hourly price per unit of
// disruption cost first (a node's own disruption counts as one, so empty nodes rank by
// price), then the lower disruption cost, then the name.
func rankLess(a, b *nodeState) bool {
	ra, rb := a.price/(1+math.Max(0, a.cost)), b.price/(1+math.Max(0, b.cost))
	if ra != rb {
		return ra > rb
	}
	if a.cost != b.cost {
		return a.cost < b.cost
	}
	return a.name < b.name
}

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }
