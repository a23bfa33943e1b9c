package disruption

import (
	"maps"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/nodeplan/nodeplan/scheduling"
)

// Memo carries what one Decide simulated to the next, for a caller that decides again and
// again on a slowly changing cluster (a replay decides every 10 s). Give the same Memo as
// Input.Memo to every Decide: when the cluster a decision simulates on is the one the last
// decision simulated on, the consolidations that decision simulated before its first command
// are not simulated again; and the nodes that did not change are not converted for the
// scheduler again. Decisions are the same with or without a Memo.
//
// What a consolidation depends on is the whole simulation input: the scheduler places the
// evicted pods on any node, and whether a pod fits, where it lands and what a replacement
// costs can change with any other node's pods, the pending pods or the NodePools (a node that
// frees room may take the pods that found none, a node that fills up may turn a move into a
// replacement). So the Memo keeps a result only while all of that is unchanged: the prepared
// NodePools (Input.Pools, which a Memo needs), the DaemonSets, namespaces and volume objects,
// every node with its NodeClaim facts and pods, and the pending pods. A node's conversion
// depends on that node alone (and the prepared NodePools' resources), so it is kept while
// the node with its facts and pods is unchanged. Objects are matched by identity, as Pools
// are: an object or slice given to Decide is never modified afterwards, a changed one is a
// new value. The one exception is what a caller moving pods changes in place (a pod's
// spec.nodeName, status phase and deletion timestamp), which the Memo compares too.
// What a decision reads besides the simulations (the time, budgets, PodDisruptionBudgets,
// consolidateAfter) is read again every time.
//
// Checking every pod for changes made in place is most of what a decision reads of an
// unchanged cluster of tens of thousands of pods. A caller that knows which pods it changed
// in place sets NamesChanges and names their nodes (PodsChangedInPlace) before the next
// Decide; the Memo then checks those nodes' pods alone.
//
// The zero Memo is ready to use. A Memo is used by one Decide at a time.
type Memo struct {
	// NamesChanges, when set, promises that the caller names with PodsChangedInPlace, before
	// each Decide, every node whose pods it changed in place since the last one (a pod's
	// spec.nodeName, status phase or deletion timestamp, on the same object, while the pod
	// stays in the node's list): the Memo takes the pods of every other node as unchanged.
	// A change it is not told of goes unseen, and decisions may then read stale pods.
	NamesChanges bool
	// changed holds the nodes named since the last decision.
	changed map[string]bool
	// state is the simulation input the results were found on; valid is set once it is.
	state simulationState
	valid bool
	// consolidated are the consolidations of the last decision with that state, found before
	// its first command; their candidates are that decision's nodeStates, rebound by name.
	consolidated map[string]consolidation
	// shown are the nodes as the last decision showed them to the scheduler, by name, with
	// the facts the views were made from; cluster is that decision's, which holds the views'
	// conversions. A node whose facts are unchanged is shown as the same value again, so
	// preparing the next cluster skips converting it.
	shown   map[string]shownNode
	cluster *scheduling.Cluster
	// nodes holds, per node object, what a decision reads of the object alone (its room),
	// and what staticDrift found with the NodeClaim facts it read, for driftFacts (the
	// NodePools as prepared): a node whose object and facts are the same has drifted as
	// before, or not.
	nodes      map[*corev1.Node]*nodeSeen
	driftFacts *poolFacts
	// sorted holds, by each node's first pod, the node's pods as given, sorted and classified
	// (see classified).
	sorted map[*corev1.Pod]*sortedPods
	// Both maps live from one decision to the next: a decision stores only what it found
	// anew, and marks what it used (the entries' decision), so that the entries of nodes and
	// pods gone are dropped once they outnumber the live ones (see endDrift). An entry a
	// decision does not use is never wrong, only unused: it is checked against what it was
	// found on. copies, below, lives and is dropped the same way.
	// kept holds what a decision keeps of each node while its nodes are classified (see
	// entries).
	kept []memoEntry
	// copies holds, by pod, the pending copy (see pendingCopy) a decision made of a pod of a
	// node being disrupted, with the pod's facts it was made from: the next decisions show
	// the scheduler the same copy while the pod is unchanged, so its conversion is kept too.
	copies map[*corev1.Pod]*podCopy
	// states are two arrays of a decision's nodes (see nodeStates); while consolidated is
	// set, named is the one its consolidations' candidates lie in.
	states [2][]nodeState
	named  int
	// decision counts the decisions begun on the memo (beginDrift), so that an entry checked
	// against its pods in this decision is not checked again.
	decision int
}

// sortedPods is a node's pods as a decision was given them, and sorted; the lists classify
// keeps of them (see classified) and the Memo's state their facts (see stateOf), both made
// when the pods were as facts has them.
type sortedPods struct {
	given, sorted []*corev1.Pod
	lists         podLists
	facts         []podFacts
	// checked is the decision that last found the pods as facts has them.
	checked int
}

// nodeStates returns an array of n node states for a decision, and which of the memo's it is
// (a new one, -1, when m is nil). It is not the array the consolidations the memo keeps name
// (see keep): those are read until the next decision has taken them over (see rebind), and
// nothing else refers to a decision's nodes once it has returned. Classifying a node
// overwrites its state whole.
func (m *Memo) nodeStates(n int) ([]nodeState, int) {
	if m == nil {
		return make([]nodeState, n), -1
	}
	i := 0
	if m.named == 0 && m.consolidated != nil {
		i = 1
	}
	if cap(m.states[i]) < n {
		m.states[i] = make([]nodeState, grown(n))
	}
	return m.states[i][:n], i
}

// grown is the room for n values of an array kept from one decision to the next: a cluster
// that grows a node at a time would otherwise get a new array with every node (400 MB over a
// day of 1,200 nodes at the peak).
func grown(n int) int { return n + n/4 }

// podCopy is a pending copy of a pod with the facts of the pod it was made from; used is the
// last decision that showed it.
type podCopy struct {
	copy  *corev1.Pod
	facts podFacts
	used  int
}

// pendingCopy is pendingCopy(p): the copy made last while p is unchanged (a new one when m
// is nil). Called after beginDrift.
func (m *Memo) pendingCopy(p *corev1.Pod) *corev1.Pod {
	if m == nil || p.Spec.NodeName == "" {
		return pendingCopy(p)
	}
	facts := factsOfPod(p)
	if was := m.copies[p]; was != nil && was.facts == facts {
		was.used = m.decision
		return was.copy
	}
	if m.copies == nil {
		m.copies = map[*corev1.Pod]*podCopy{}
	}
	c := &podCopy{copy: pendingCopy(p), facts: facts, used: m.decision}
	m.copies[p] = c
	return c.copy
}

// nodeSeen is what a decision reads of a node object alone: its allocatable (capacity when
// it has none), and staticDrift's verdict (when hasDrift) with the NodeClaim facts it was
// found with; used is the last decision that read it.
type nodeSeen struct {
	alloc    vec
	claim    claimFacts
	reason   string
	hasDrift bool
	used     int
}

// claimFacts are what staticDrift reads of a node besides its object and its NodePool.
type claimFacts struct{ instanceType, zone, capacityType, pool string }

type shownNode struct {
	facts *nodeFacts
	view  *scheduling.ExistingNode
}

// simulationState is everything a consolidation's outcome depends on, held as the input gives
// it (see Memo).
type simulationState struct {
	facts          *poolFacts
	prepared       *scheduling.Pools
	daemonSets     []*appsv1.DaemonSet
	namespaces     []*corev1.Namespace
	claims         []*corev1.PersistentVolumeClaim
	volumes        []*corev1.PersistentVolume
	storageClasses []*storagev1.StorageClass
	nodes          []nodeFacts
	pending        []podFacts
	// commandsOnly is Input.CommandsOnly, which changes the reasons of failed consolidations.
	commandsOnly bool
}

// nodeFacts is a node as the simulations see it: the objects, and what Decide derived from
// its NodeClaim facts and the catalog.
type nodeFacts struct {
	node                                   *corev1.Node
	pool, instanceType, zone, capacityType string
	price                                  float64
	initialized, disrupting                bool
	volumeAttachLimits                     map[string]int
	pods                                   []podFacts
}

// podFacts is a pod by identity, with the fields a caller moving pods changes in place.
type podFacts struct {
	pod      *corev1.Pod
	nodeName string
	phase    corev1.PodPhase
	deleting bool
}

func factsOfPods(pods []*corev1.Pod) []podFacts {
	out := make([]podFacts, len(pods))
	for i, p := range pods {
		out[i] = factsOfPod(p)
	}
	return out
}

func factsOfPod(p *corev1.Pod) podFacts {
	return podFacts{pod: p, nodeName: p.Spec.NodeName, phase: p.Status.Phase, deleting: p.DeletionTimestamp != nil}
}

// stateOf is the simulation state of a decision's input; ok is false when the NodePools
// were not prepared by a Pools (their facts are then made anew, so they cannot be matched).
func (d *decider) stateOf(in Input, prepared *scheduling.Pools) (simulationState, bool) {
	if prepared == nil || in.Pools == nil || in.Pools.facts != d.poolFacts {
		return simulationState{}, false
	}
	s := simulationState{
		facts:          d.poolFacts,
		prepared:       prepared,
		daemonSets:     slices.Clone(in.DaemonSets),
		namespaces:     slices.Clone(in.Namespaces),
		claims:         slices.Clone(in.PersistentVolumeClaims),
		volumes:        slices.Clone(in.PersistentVolumes),
		storageClasses: slices.Clone(in.StorageClasses),
		nodes:          make([]nodeFacts, len(d.nodes)),
		pending:        factsOfPods(in.PendingPods),
		commandsOnly:   in.CommandsOnly,
	}
	for i, n := range d.nodes {
		s.nodes[i] = nodeFacts{
			node: n.in.Node, pool: n.poolName, instanceType: n.instanceType, zone: n.zone, capacityType: n.capacityType,
			price: n.price, initialized: n.in.Initialized, disrupting: n.in.Disrupting,
			volumeAttachLimits: n.in.VolumeAttachLimits, pods: n.podFacts,
		}
	}
	return s, true
}

func (s *simulationState) equal(o *simulationState) bool {
	return s.facts == o.facts && s.prepared == o.prepared && s.commandsOnly == o.commandsOnly &&
		slices.Equal(s.daemonSets, o.daemonSets) && slices.Equal(s.namespaces, o.namespaces) &&
		slices.Equal(s.claims, o.claims) && slices.Equal(s.volumes, o.volumes) &&
		slices.Equal(s.storageClasses, o.storageClasses) && slices.Equal(s.pending, o.pending) &&
		slices.EqualFunc(s.nodes, o.nodes, func(a, b nodeFacts) bool { return a.equal(&b) })
}

func (a *nodeFacts) equal(b *nodeFacts) bool {
	return a.node == b.node && a.pool == b.pool && a.instanceType == b.instanceType && a.zone == b.zone &&
		a.capacityType == b.capacityType && a.price == b.price && a.initialized == b.initialized &&
		a.disrupting == b.disrupting && maps.Equal(a.volumeAttachLimits, b.volumeAttachLimits) &&
		sameList(a.pods, b.pods)
}

// sameList is slices.Equal(a, b), at once when both are the same list: a caller keeps an
// unchanged node's list of pods (as a scheduling.Cluster does), and a node whose pods did not
// change keeps the facts its memo entry holds.
func sameList[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true
	}
	return slices.Equal(a, b)
}

// views gives each node of the decision its view: the one the last decision showed when the
// node's facts are unchanged (a view is made from them alone), else a new one. It returns the
// last decision's cluster, whose conversions of those views the next one reuses.
func (m *Memo) views(d *decider) *scheduling.Cluster {
	for i, n := range d.nodes {
		if was, ok := m.shown[n.name]; ok && was.facts.equal(&d.state.nodes[i]) {
			n.view = was.view
		} else {
			n.view = view(n)
		}
	}
	return m.cluster
}

// begin matches the memo to a decision's state: the consolidations it holds are kept when
// the state is the one they were found on, and dropped otherwise. It returns those the
// decision may reuse.
func (m *Memo) begin(state simulationState) map[string]consolidation {
	if !m.valid || !m.state.equal(&state) {
		m.valid, m.state, m.consolidated = true, state, nil
	}
	return m.consolidated
}

// keep stores, for the next decision, what a decision begun on the memo's state found on it:
// the consolidations it simulated before its first command, the views it showed and its
// cluster.
func (m *Memo) keep(d *decider) {
	m.consolidated, m.named = d.sim.consolidated.foundOnInput(), d.states
	// The decision read the last views (see views) before it got here: the map serves again.
	if m.shown == nil {
		m.shown = make(map[string]shownNode, len(d.nodes))
	}
	clear(m.shown)
	for i, n := range d.nodes {
		m.shown[n.name] = shownNode{facts: &d.state.nodes[i], view: n.view}
	}
	m.cluster = d.sim.cluster
}

// rebind makes a remembered consolidation the current decision's: its candidates are the
// decision's nodes of the same names (the state matched, so they are all there).
func (d *decider) rebind(c consolidation) consolidation {
	cands := make([]*nodeState, len(c.o.cands))
	for i, n := range c.o.cands {
		cands[i] = d.byName[n.name]
	}
	return consolidation{o: c.o.own(cands), why: c.why}
}

// beginDrift readies the drift verdicts for a decision on facts; endDrift drops the entries
// of nodes and pods gone.
func (m *Memo) beginDrift(facts *poolFacts) {
	if m.driftFacts != facts {
		m.nodes, m.driftFacts = nil, facts
	}
	m.decision++
}

// PodsChangedInPlace names nodes whose pods the caller changed in place since the last
// Decide, for a Memo that NamesChanges.
func (m *Memo) PodsChangedInPlace(nodes ...string) {
	if m.changed == nil {
		m.changed = map[string]bool{}
	}
	for _, n := range nodes {
		m.changed[n] = true
	}
}

// endDrift ends what beginDrift began on a decision of nodes nodes: when the entries
// outnumber twice the nodes (and some), those the decision did not use are dropped, so
// that the maps hold what a few decisions use, not every node and pod the memo saw. The
// nodes named changed were read.
func (m *Memo) endDrift(nodes int) {
	clear(m.changed)
	limit := 2*nodes + 64
	if len(m.sorted) > limit {
		for k, s := range m.sorted {
			if s.checked != m.decision {
				delete(m.sorted, k)
			}
		}
	}
	if len(m.copies) > limit {
		for k, c := range m.copies {
			if c.used < m.decision-1 { // this decision shows its copies after endDrift
				delete(m.copies, k)
			}
		}
	}
	if len(m.nodes) > limit {
		for k, s := range m.nodes {
			if s.used != m.decision {
				delete(m.nodes, k)
			}
		}
	}
}

// heldList returns what the memo holds of pods when pods is a node's list of pods it holds
// (see classified): a list given to an earlier decision, which it found without a nil pod,
// and which is never modified afterwards; nil otherwise. The decision looks each node's list
// up once, when it checks the pods, and classify takes what it found (memoEntry.held).
func (m *Memo) heldList(pods []*corev1.Pod) *sortedPods {
	if len(pods) == 0 {
		return nil
	}
	if was := m.sorted[pods[0]]; was != nil && sameList(was.given, pods) {
		return was
	}
	return nil
}

// classified returns a node's pods as classify keeps them (see podLists), in the entry the
// next decision looks up (keepEntry stores it). The last decision's lists serve while the
// node's pods are the same pods in the same order and none changed in place (the lists read
// phases and deletion marks; the sort reads names alone, which never change). Called
// between beginDrift and endDrift; it only reads the memo, so nodes are classified in
// parallel. An entry it makes anew is fresh; one it returns from the memo is shared with
// the memo and only read until keepEntry (a decision classifies each node once, but a pod
// given on two nodes would share an entry). was is what the memo held of pods when the
// decision began (heldList).
func (m *Memo) classified(node string, pods []*corev1.Pod, was *sortedPods) (s *sortedPods, fresh bool) {
	if len(pods) == 0 {
		return nil, false
	}
	switch {
	case was == nil:
		s = &sortedPods{given: pods, sorted: slices.Clone(pods)}
		sortPods(s.sorted)
	case m.NamesChanges && !m.changed[node]:
		return was, false
	case changedInPlace(was.facts):
		s = &sortedPods{given: was.given, sorted: was.sorted}
	default:
		return was, false
	}
	s.lists, s.facts = listPods(s.sorted), factsOfPods(pods)
	return s, true
}

// memoEntry is what a decision keeps of a node for the next: its pods as classified (made
// anew when fresh), and what it read of the node object (seen; made anew when seenFresh).
type memoEntry struct {
	pods      *sortedPods
	fresh     bool
	seen      *nodeSeen
	seenFresh bool
	// held is what the memo held of the node's pods when the decision began (heldList).
	held *sortedPods
}

// seen returns what the memo holds of a node object (see nodeSeen), made anew (fresh) when
// it holds nothing. Called between beginDrift and endDrift, on every core: it only reads the
// memo, and classify changes an entry only for its own node.
func (m *Memo) seen(node *corev1.Node) (seen *nodeSeen, fresh bool) {
	if was := m.nodes[node]; was != nil {
		return was, false
	}
	return &nodeSeen{alloc: vecOf(allocatable(node))}, true
}

// keepEntry stores, between beginDrift and endDrift, what classifying a node found anew for
// the next decision, and marks what it used.
func (m *Memo) keepEntry(n *nodeState) {
	k := n.kept
	if k.pods != nil {
		k.pods.checked = m.decision
		if k.fresh {
			if m.sorted == nil {
				m.sorted = map[*corev1.Pod]*sortedPods{}
			}
			m.sorted[k.pods.given[0]] = k.pods
		}
	}
	if k.seen != nil {
		k.seen.used = m.decision
		if k.seenFresh {
			if m.nodes == nil {
				m.nodes = map[*corev1.Node]*nodeSeen{}
			}
			m.nodes[n.in.Node] = k.seen
		}
	}
	*k = memoEntry{}
	n.kept = nil
}

// entries returns room for what a decision keeps of n nodes (see keepEntry), the same
// from one decision to the next.
func (m *Memo) entries(n int) []memoEntry {
	if cap(m.kept) < n {
		m.kept = make([]memoEntry, grown(n))
	}
	return m.kept[:n]
}

// changedInPlace reports whether a pod's node name, phase or deletion mark is no longer the
// one facts hold.
func changedInPlace(facts []podFacts) bool {
	for _, f := range facts {
		p := f.pod
		if p.Spec.NodeName != f.nodeName || p.Status.Phase != f.phase || (p.DeletionTimestamp != nil) != f.deleting {
			return true
		}
	}
	return false
}

// memoStaticDrift is d.staticDrift(n), read from the node's memo entry when the node and its
// NodeClaim facts are unchanged, else worked out and noted there for the next decision;
// without a drift memo it is worked out.
func (d *decider) memoStaticDrift(n *nodeState) string {
	if d.driftMemo == nil {
		return d.staticDrift(n)
	}
	seen := n.kept.seen
	claim := claimFacts{n.instanceType, n.zone, n.capacityType, n.poolName}
	if !seen.hasDrift || seen.claim != claim {
		seen.claim, seen.reason, seen.hasDrift = claim, d.staticDrift(n), true
	}
	return seen.reason
}
