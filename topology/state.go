package topology

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/daemonset"
	"github.com/nodeplan/nodeplan/internal/parallel"
	"github.com/nodeplan/nodeplan/requirements"
)

// State is the topology of one solve: the counts (Tracker), the rules that keep the plan's
// final state true (Rules), the domains each key can take per NodePool (Domains) and the
// DaemonSet pods groups count. The solver asks it four things: which domains a pod may take on
// a node (Narrow), which nodes a pod must skip (Skip, Refuses, NoneTakes), to record a
// placement (Record), and which DaemonSet pods come with a new node (SettleDaemons,
// RecordDaemons). A nil State answers as if no rule existed.
type State struct {
	tracker *Tracker
	rules   *Rules
	// domains are the values each key can take on a new node of each NodePool (nil while no
	// group exists).
	domains *Domains
	// daemons are the DaemonSets some group counts the pods of (nil in the common case: then
	// nothing about daemons costs anything).
	daemons []*Daemon
	// planned memoises the verdicts of the placed pod's rules on planned nodes.
	planned Planned
	// eligibleByClass memoises eligible domains per group and class of pods (Host.HostClass).
	eligibleByClass map[string][]string
	cluster         Cluster
}

// Cluster is the solver's side of the nodes: the existing ones and the NodePools new ones come
// from, numbered by the solver.
type Cluster interface {
	// Nodes is the number of existing nodes; Node describes existing node i.
	Nodes() int
	Node(i int) Existing
	// Pools is the number of NodePools; PoolTaints are a pool's taints.
	Pools() int
	PoolTaints(pool int) []corev1.Taint
	// PoolValues lists the values key can take on a new node of the pool.
	PoolValues(pool int, key string) []string
	// PoolCanHost reports whether the pool can launch a node with key = value for a pod with
	// one of the requirement alternatives.
	PoolCanHost(pool int, alternatives []requirements.Requirements, key, value string) bool
	// PoolTypes is the number of the pool's instance types; DaemonRuns reports whether the
	// DaemonSet runs on a new node of the pool with instance type typ (typ < 0: with the
	// requirements reqs alone).
	PoolTypes(pool int) int
	DaemonRuns(d *daemonset.Template, pool, typ int, reqs requirements.Requirements) bool
}

// Existing is an existing node as topology sees it.
type Existing struct {
	Labels map[string]string
	Taints []corev1.Taint
	// Initialized marks a node that already runs its DaemonSet pods; DaemonSets names
	// (namespace/name) those with a pod bound to it.
	Initialized bool
	DaemonSets  map[string]bool
}

// NewState starts the topology of a solve over the cluster's namespaces.
func NewState(namespaces []*corev1.Namespace) *State {
	return &State{tracker: NewTracker(namespaces), rules: NewRules(), eligibleByClass: map[string][]string{}}
}

// Terms derives a pending pod's terms, its required ones alone when requiredOnly.
func (s *State) Terms(pod *corev1.Pod, requiredOnly bool) ([]Term, error) {
	terms, err := s.tracker.Terms(pod)
	if err == nil && requiredOnly {
		terms = RequiredOnly(terms)
	}
	return terms, err
}

// TermsOfPods is Terms for n pending pods, pod(i) the i-th, derived on every core (pod is
// called from several goroutines at once): the same terms, errors and groups, in the same
// order, as calling Terms for each pod in turn.
func (s *State) TermsOfPods(n int, pod func(i int) *corev1.Pod, requiredOnly bool) ([][]Term, []error) {
	terms, errs := make([][]Term, n), make([]error, n)
	// A few dozen pods (a what-if's) are read quicker on the caller than on a core woken for them.
	parallel.RangesMin(n, 128, n, func(from, to int) {
		memo := selectorMemo{}
		for i := from; i < to; i++ {
			terms[i], errs[i] = declaredTerms(pod(i), memo)
		}
	})
	for i := range n {
		terms[i], errs[i] = s.tracker.internTerms(terms[i], errs[i])
		if errs[i] == nil && requiredOnly {
			terms[i] = RequiredOnly(terms[i])
		}
	}
	return terms, errs
}

// ReadBound reads a running pod's required anti-affinity, which constrains pending pods
// (kube-scheduler's inverse check) and may add groups. Call it for every running pod before
// HasGroups.
func (s *State) ReadBound(pod *corev1.Pod) {
	if HasRequiredAntiAffinity(pod) {
		s.tracker.AntiAffinityTerms(pod)
	}
}

// HasGroups reports whether any rule exists: without one, nothing else need be called.
func (s *State) HasGroups() bool { return len(s.tracker.Groups()) > 0 }

// RecordBound counts a running pod on its node, of these labels.
func (s *State) RecordBound(pod *corev1.Pod, labels map[string]string) {
	var terms []Term
	if HasRequiredAntiAffinity(pod) {
		terms = s.tracker.AntiAffinityTerms(pod)
	}
	s.tracker.RecordOnNode(pod, terms, labels)
}

// Start matches the pending pods (n of them, pod i followed as member i) to the groups that
// count them, on every core (member is called from several goroutines at once), records the
// domains each key can take, what the pods' required spreads declare, and the DaemonSets groups
// count. Call it once the running pods are recorded, and only if HasGroups.
func (s *State) Start(c Cluster, n int, member func(i int) (*Member, *corev1.Pod), daemons []*daemonset.Template) {
	s.cluster = c
	groups := s.tracker.Groups()
	// Groups in the order of their IDs, not of the pods that first declared them, so that a
	// pod's matched groups, and what follows from their order, do not depend on the input's.
	byID := slices.SortedFunc(slices.Values(groups), func(a, b *Group) int { return strings.Compare(a.ID(), b.ID()) })
	parallel.Each(n, func(i int) {
		m, pod := member(i)
		for _, g := range byID {
			if g.Matches(pod) {
				m.Matched = append(m.Matched, g)
			}
		}
	})
	s.domains = NewDomains(c.Pools(), groups, c.PoolValues)
	for i := range n {
		m, _ := member(i)
		for _, t := range m.Terms {
			if !t.Required || t.Group.Kind != Spread {
				continue
			}
			s.rules.DeclareSpread(t.Group, s.eligible(m, t.Group))
		}
	}
	s.startDaemons(daemons)
}

// startDaemons finds the daemons some group counts and counts the pods they will add to
// existing nodes still starting (initialized nodes already run theirs, counted as running
// pods). With no such daemon it leaves s.daemons nil and nothing else of the solve changes.
func (s *State) startDaemons(templates []*daemonset.Template) {
	s.daemons = CountedDaemons(templates, s.tracker.Groups())
	if len(s.daemons) == 0 {
		return
	}
	c := s.cluster
	for _, dc := range s.daemons {
		dc.Runs = make([][]bool, c.Pools())
		for i := range dc.Runs {
			dc.Runs[i] = make([]bool, c.PoolTypes(i))
			for j := range dc.Runs[i] {
				dc.Runs[i][j] = c.DaemonRuns(dc.Template, i, j, nil)
			}
		}
	}
	s.rules.AddDaemons(s.daemons)
	for i := 0; i < c.Nodes(); i++ {
		n := c.Node(i)
		if n.Initialized {
			continue
		}
		for _, dc := range s.daemons {
			if n.DaemonSets[dc.Template.Name] || !dc.Template.RunsOnNode(n.Taints, n.Labels) {
				continue
			}
			for _, g := range dc.Groups {
				if v, ok := n.Labels[g.Key]; ok && g.CountsOn(n.Labels) {
					g.RecordIn(v, true, false)
				}
			}
		}
	}
}

// AsKarpenter makes the rules start as Karpenter's do: a group requiring affinity to its own
// pods may start its first domain at once, not only after a round without progress.
func (s *State) AsKarpenter() {
	if s != nil {
		s.rules.AllowSeeds()
	}
}

// Loosen gives up, after a round without progress, the rules that only serve to place pods in
// a good order: first self-affine groups may start their first domain, then the failing pods
// (n of them, member i) may unbalance spread groups where no declaring pod is yet and leave a
// seed alone (the last can break the seed's affinity in the final state, but never leaves a
// pod unplaced that kube-scheduler would place). note tells failing pod i what it may now do.
// Loosen reports whether anything was loosened.
func (s *State) Loosen(n int, member func(i int) *Member, note func(i int, what string)) bool {
	if s == nil {
		return false
	}
	if s.rules.AllowSeeds() {
		for i := range n {
			if len(member(i).Terms) > 0 {
				note(i, "nothing could be placed in a whole round: a pod may now start the first domain of a group that requires affinity to its own pods")
			}
		}
		return true
	}
	loosened := false
	for i := range n {
		m := member(i)
		if !m.Loose && (len(m.Matched) > 0 || s.rules.DeclaresDaemonGroup(m.Terms)) {
			m.Loose = true
			loosened = true
			note(i, "nothing could be placed in a whole round: may now unbalance spread groups it matches where no declaring pod is yet, or leave a self-affine group's first pod alone")
		}
	}
	return loosened
}
