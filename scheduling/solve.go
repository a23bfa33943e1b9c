package scheduling

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/daemonset"
	"github.com/nodeplan/nodeplan/hostport"
	"github.com/nodeplan/nodeplan/internal/freeindex"
	"github.com/nodeplan/nodeplan/internal/parallel"
	"github.com/nodeplan/nodeplan/internal/resources"
	"github.com/nodeplan/nodeplan/nodetemplate"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
	"github.com/nodeplan/nodeplan/volume"
)

// solver holds the state of one Solve call.
type solver struct {
	opts     Options
	dims     *resources.Dims
	pools    []*poolState
	existing []*existingNode
	// byIndex are the existing nodes by their position in existingFree (nil for a node the
	// change removed), existingPos their positions in existing: copy-on-write puts a node's
	// copy in both.
	byIndex     []*existingNode
	existingPos []int32
	// attached holds, by free-index position, each existing node's attached claims, filled
	// when first asked for (existingAttach).
	attached []*volume.AttachCounter
	nodes    []*newNode
	volumes  *volume.Index
	// pins pins ReadWriteOnce claims to the node their first user was planned on.
	pins      volume.Pins
	usedNames nameSet
	topology  *topology.State
	alts      []requirements.Requirements // the last nodeRequirements result
	// portTaken marks, per host port and protocol, the new nodes where a pod binds it on every
	// address, so pods needing that port skip them without trying each.
	portTaken hostport.Taken
	scratch   resources.Vector
	// room holds a node's free room between free or snug and the index that copies it;
	// existingRoom does for existing nodes.
	room, existingRoom resources.Vector
	// allowedCache and optionsCache memoise per-requirement-set work shared by many nodes.
	allowedCache    map[string][]*nodetemplate.Option
	optionsCache    map[string][]string
	priceOrderCache map[string]nodetemplate.PriceOrder
	// poolRooms memoises, per pool, the element-wise maximum room of its types: an empty
	// node's maxRoom (shared, never written).
	poolRooms map[*poolState]resources.Vector
	altOrigin []requirements.Requirements // the pod alternative behind each alts entry
	// existingFree and newFree index the free room of existing and new nodes.
	existingFree, newFree *freeindex.Index
	// snugFree indexes the room new nodes have left at their current price (snug).
	snugFree *freeindex.Index
	// refused[i] is the attempt (a count of placeSnug calls) in which the pod being placed
	// was found unable to join s.nodes[i].
	refused []int
	attempt int
	// softTaints is set when some node or NodePool has a PreferNoSchedule taint to relax.
	softTaints bool
	// nodeCost is each new node's cost beyond its instance price.
	nodeCost float64
	// keptScratch holds fitOptions' verdicts between its two passes.
	keptScratch []bool
	// fitRoomsOf is the list fitOptions last narrowed to, fitRooms its most then least room of
	// each resource.
	fitRoomsOf []*nodetemplate.Option
	fitRooms   resources.Vector
	freshFits  map[freshKey][]*nodetemplate.Option
	// joinFailures remembers, per planned node, the last class of plain pods that could not
	// join it, and the node's version then: a pod of that class skips the node until it
	// changes. Reset at every call of schedule.
	joinFailures map[*newNode]joinFailure
	// karpenter is set under StrategyKarpenter (see karpenter.go).
	karpenter *karpenterState
	// daemons are the prepared DaemonSets, whose pods topology groups may count.
	daemons []*daemonset.Template
	// offer holds a new node's options while topology settles its DaemonSets.
	offer nodetemplate.Offer
	// earlyBound is the lower bound being worked out during the placement, if any.
	earlyBound *earlyBound
	// stopFrom is the input position of the first pod a change displaces or adds when
	// Options.StopOnUninitialized holds (-1 otherwise); stopped is set once such a pod lands
	// on a node not initialized yet, and ends the placement.
	stopFrom int
	stopped  *UninitializedError
	// existingFull is set while the pods being placed are known to fit no existing node (see
	// existingFirst), so placing them skips the existing nodes.
	existingFull bool
	// spares are the arrays the solve takes from its prepared cluster and hands back when it
	// ends (see solveSpares).
	spares *solveSpares
}

// Solve plans nodes for the pending pods of in. Every pod ends on an existing node, on a new
// node, or in Plan.Unschedulable with a reason. The error is only for unusable input (for
// example a NodePool with an invalid requirement); a pod's own problems make it
// unschedulable instead. Solve is Prepare followed by one Simulate without a change.
func Solve(in Input) (Plan, error) {
	c, err := Prepare(in)
	if err != nil {
		return Plan{}, err
	}
	return c.Simulate(Change{}, in.Options)
}

// solve runs one placement over the prepared parts, from st (see start).
func solve(in Input, prep *prepared, st start) (Plan, error) {
	s, pods, unschedulable, err := newSolver(in, prep, st)
	if err != nil {
		return Plan{}, err
	}
	// The plan copies what it reports of the pods and nodes, so its arrays may serve the next solve.
	defer prep.recycle(s.spares)
	s.openStaticNodes()
	failed := s.run(pods)
	for len(failed) > 0 && s.stopped == nil && s.settleLimits() {
		// Pods refused for limits may fit now that planned nodes hold only their chosen type.
		failed = s.run(failed)
	}
	if s.stopped != nil {
		return Plan{}, s.stopped
	}
	for _, p := range failed {
		unschedulable = append(unschedulable, s.explainFailure(p))
	}
	if !s.opts.SkipImprovement {
		s.improve()
	}
	plan := s.plan(len(in.Pods), unschedulable)
	plan.TopologyDomains = prep.topologyDomains()
	plan.Traces = s.traces(pods)
	plan.Placements = s.placements(in.Pods, plan)
	return plan, nil
}

// traces closes the traced pods' stories with where they ended (repacking may have moved them).
func (s *solver) traces(pods []*podInfo) []PodTrace {
	if len(s.opts.Trace) == 0 {
		return nil
	}
	final := map[*podInfo]string{}
	for _, n := range s.nodes {
		for _, p := range n.pods {
			if p.trace != nil {
				final[p] = fmt.Sprintf("ends on new node %s (%d pods; %d instance-type option(s))", n.name, len(n.pods), s.offeredOptions(n))
			}
		}
	}
	var out []PodTrace
	for _, p := range pods {
		if p.trace == nil {
			continue
		}
		if f, ok := final[p]; ok {
			p.trace.note("%s", f)
		}
		out = append(out, PodTrace{Pod: p.key, Steps: p.trace.steps})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Pod < out[j].Pod })
	return out
}

// podTrace collects the placement steps of a pod Options.Trace names. The solver writes to it
// through these methods alone; a nil *podTrace (every pod not traced) records nothing.
type podTrace struct {
	steps []string
	// lastRound holds the steps of the pod's last failed round (foldRepeat), nil before one.
	lastRound *[]string
}

// note records a placement step.
func (t *podTrace) note(format string, args ...any) {
	if t == nil {
		return
	}
	switch n := len(t.steps); {
	case n < maxTraceSteps:
		t.steps = append(t.steps, fmt.Sprintf(format, args...))
	case n == maxTraceSteps:
		t.steps = append(t.steps, "… (further steps left out)")
	}
}

// mark is where the steps of one round start, to compare rounds.
func (t *podTrace) mark() int {
	if t == nil {
		return 0
	}
	return len(t.steps)
}

// foldRepeat replaces the steps since mark with one line when they repeat the pod's previous
// round word for word: a round retried after another made no progress (or loosened only what
// does not touch this pod) fails the same way, and the explanation should not say it twice.
func (t *podTrace) foldRepeat(mark int) {
	if t == nil || mark > len(t.steps) {
		return
	}
	round := t.steps[mark:]
	if t.lastRound == nil || !slices.Equal(round, *t.lastRound) {
		last := slices.Clone(round)
		t.lastRound = &last
		return
	}
	t.steps = t.steps[:mark]
	if mark == 0 || t.steps[mark-1] != repeatedRound {
		t.steps = append(t.steps, repeatedRound)
	}
}

// repeatedRound stands for a round whose steps are those of the round before.
const repeatedRound = "tried again in a later round: the same steps, the same result"

// maxTraceSteps bounds a trace: a pod retried over many rounds and nodes would repeat itself.
const maxTraceSteps = 200

func newSolver(in Input, prep *prepared, st start) (*solver, []*podInfo, []Unschedulable, error) {
	opts := in.Options
	if err := resolveStrategy(&opts); err != nil {
		return nil, nil, nil, err
	}
	if opts.PreferencePolicy == "" {
		opts.PreferencePolicy = PreferencesRespect
	}
	if opts.MinValuesPolicy == "" {
		opts.MinValuesPolicy = MinValuesStrict
	}
	if opts.MaxInstanceTypeOptions <= 0 {
		opts.MaxInstanceTypeOptions = DefaultMaxInstanceTypeOptions
	}
	switch opts.PreferencePolicy {
	case PreferencesRespect, PreferencesIgnore:
	default:
		return nil, nil, nil, fmt.Errorf("options: preference policy %q is not Respect or Ignore", opts.PreferencePolicy)
	}
	switch opts.MinValuesPolicy {
	case MinValuesStrict, MinValuesBestEffort:
	default:
		return nil, nil, nil, fmt.Errorf("options: minValues policy %q is not Strict or BestEffort", opts.MinValuesPolicy)
	}
	s := &solver{opts: opts, nodeCost: opts.nodeCost(), dims: prep.dims,
		allowedCache: map[string][]*nodetemplate.Option{}, optionsCache: map[string][]string{}, priceOrderCache: map[string]nodetemplate.PriceOrder{},
		poolRooms: map[*poolState]resources.Vector{}, stopFrom: -1, spares: &solveSpares{}}
	if !st.keeps {
		s.spares = prep.takeSpares()
	}
	if opts.StopOnUninitialized {
		s.stopFrom = st.fresh
	}
	var err error
	var inputOrder []*existingNode
	b := st.base
	if st.fromBase() {
		if inputOrder, err = s.existingFromBase(b, st.delta, prep); err != nil {
			return nil, nil, nil, err
		}
	} else {
		if s.existing, inputOrder, err = newExistingNodes(in.ExistingNodes, s.dims, prep, b); err != nil {
			return nil, nil, nil, err
		}
		s.byIndex = s.existing
	}
	scratch := make(resources.Vector, 3*s.dims.Len()) // one array for scratch and fitRooms
	s.scratch, s.fitRooms = scratch[:s.dims.Len():s.dims.Len()], scratch[s.dims.Len():]
	s.existingRoom = make(resources.Vector, s.dims.Len())
	s.newFree = freeindex.New(s.dims.Len())
	s.snugFree = freeindex.New(s.dims.Len())
	if b != nil {
		// The base's names are the Cluster's nodes and reserved names; a change removes
		// nodes only by reserving their names.
		s.usedNames.shared, s.usedNames.firstFree = b.used, b.firstFree
	} else {
		for _, n := range s.existing {
			s.usedNames.add(n.name)
		}
		for _, name := range in.ReservedNodeNames {
			s.usedNames.add(name)
		}
	}
	s.pools = bindPools(prep.pools, s.existing, prep.daemons, s.dims)
	s.daemons = prep.daemons
	var bound []*corev1.Pod
	if b != nil {
		// The index reads only the pods with volumes.
		for _, n := range inputOrder {
			bound = append(bound, n.volumePods...)
		}
	} else {
		for _, en := range in.ExistingNodes {
			bound = append(bound, en.Pods...)
		}
	}
	if len(in.PersistentVolumeClaims)+len(in.PersistentVolumes)+len(in.StorageClasses)+len(bound) == 0 && prep.noVolumes != nil {
		s.volumes = prep.noVolumes
	} else {
		s.volumes = volume.NewIndex(in.PersistentVolumeClaims, in.PersistentVolumes, in.StorageClasses, bound)
	}
	if st.fromBase() {
		s.indexOwnExisting(b, st.delta)
	} else {
		s.existingFree = freeindex.New(s.dims.Len())
		s.existingFree.Grow(len(s.existing))
		for _, n := range s.existing {
			n.index = s.existingFree.Add(n.freeInto(s.existingRoom))
		}
	}

	pods := make([]*podInfo, 0, len(in.Pods))
	var unschedulable []Unschedulable
	seen := s.spares.seenKeys(len(in.Pods))
	var traced map[string]bool // nil, and only read, when nothing is traced
	if len(opts.Trace) > 0 {
		traced = make(map[string]bool, len(opts.Trace))
		for _, k := range opts.Trace {
			traced[k] = true
		}
	}
	converted, err := prep.convertPods(in.Pods, s.volumes, opts.PreferencePolicy, s.spares)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, c := range converted {
		p, constraint, err := c.info, c.constraint, c.err
		if err == nil && seen[p.key] {
			constraint, err = ConstraintValidation, fmt.Errorf("pod %s is given more than once", p.key)
		}
		seen[p.key] = true
		if err != nil {
			unschedulable = append(unschedulable, Unschedulable{Pod: p.key, Reason: err.Error(), Constraint: constraint})
			continue
		}
		if traced[p.key] {
			p.trace = &podTrace{steps: []string{}}
		}
		pods = append(pods, p)
	}
	s.softTaints = hasSoftTaints(s)
	pods, bad := s.setupTopology(in, pods, b != nil, inputOrder)
	unschedulable = append(unschedulable, bad...)
	parallel.EachMin(len(pods), cheapPerWorker, func(i int) { pods[i].setMemoClass() })
	sortPods(pods)
	s.startLowerBound(pods)
	if opts.Strategy == StrategyKarpenter {
		s.startKarpenter(pods)
	}
	return s, pods, unschedulable, nil
}

// collectDims gathers every resource name the solve will meet; "nodes", a NodePool's limit on
// its node count, is none.
func collectDims(in Input) *resources.Dims {
	// At least this many lists: a pool's limits and types, a node's two, a container's two and
	// a pod's overhead; sized once rather than grown a dozen times.
	n := 2*len(in.ExistingNodes) + 3*(len(in.Pods)+len(in.DaemonSets))
	for _, np := range in.NodePools {
		if np != nil {
			n += 1 + len(np.InstanceTypes)
		}
	}
	lists := make([]corev1.ResourceList, 0, n)
	add := func(l corev1.ResourceList) {
		if _, has := l["nodes"]; has {
			l = l.DeepCopy()
			delete(l, "nodes")
		}
		lists = append(lists, l)
	}
	for _, np := range in.NodePools {
		if np == nil {
			continue
		}
		add(np.Limits)
		for _, it := range np.InstanceTypes {
			if it != nil {
				add(it.Capacity)
			}
		}
	}
	for _, en := range in.ExistingNodes {
		if en != nil && en.Node != nil {
			add(en.Node.Status.Allocatable)
			add(en.Node.Status.Capacity)
		}
	}
	for _, p := range in.Pods {
		if p != nil {
			resources.VisitPodSpec(&p.Spec, add)
		}
	}
	for _, ds := range in.DaemonSets {
		if ds != nil {
			resources.VisitPodSpec(&ds.Spec.Template.Spec, add)
		}
	}
	return resources.NewDims(lists...)
}

// schedule places pods in order; pods that fail are retried while others make progress, and
// when a whole round makes none, every failing pod gives up one preference. It returns the
// pods that could not be placed.
func (s *solver) schedule(queue []*podInfo) []*podInfo {
	s.joinFailures = map[*newNode]joinFailure{}
	if s.existingFirst(queue) {
		if queue = s.placeOnExisting(queue); s.stopped != nil {
			return nil
		}
		s.existingFull = true
		defer func() { s.existingFull = false }()
	}
	for {
		var next []*podInfo
		progress := false
		for _, p := range queue {
			mark := p.trace.mark()
			if s.place(p, false).failed() {
				p.trace.foldRepeat(mark)
				next = append(next, p)
				continue
			}
			progress = true
			if s.stopped != nil {
				return nil
			}
		}
		if len(next) == 0 {
			return nil
		}
		if !progress && s.loosen(next) {
			queue = next
			continue
		}
		if !progress {
			relaxed := false
			for _, p := range next {
				if p.relax(s.softTaints) {
					relaxed = true
					if p.trace != nil {
						p.trace.note("nothing could be placed in a whole round: relaxed %s", p.relaxations[len(p.relaxations)-1])
					}
				}
			}
			if !relaxed {
				return next
			}
		}
		queue = next
	}
}

// place puts p on the first existing node that takes it, else on the first node opened in
// this plan, else on a new node from the first NodePool (by weight) that can launch one.
func (s *solver) place(p *podInfo, explain bool) rejection {
	traced := p.trace != nil
	if !s.existingFull && s.placeOnExistingNode(p, traced) {
		return ok
	}
	tried := 0
	memo := p.memoClass != "" && !traced && s.joinFailures != nil && s.karpenter == nil
	try := func(i int) bool {
		n := s.nodes[i]
		tried++
		if s.karpenter == nil && !traced && s.refusedNow(i) {
			return false // placeSnug tried it just now
		}
		if memo && !n.pool.limits.Set() && s.joinFailures[n].is(p, n) {
			return false // a pod just like p failed on this node as it is now
		}
		if !traced && s.topology.Refuses(&p.topo, n.pool.Index, n.reqs) {
			return false
		}
		c, r := s.tryNewNode(n, p, traced)
		if r.failed() {
			if memo && !n.pool.limits.Set() {
				s.joinFailures[n] = joinFailure{class: p.memoClass, prefIndex: p.prefIndex, tolerateSoft: p.tolerateSoft, version: n.version}
			}
			if traced {
				p.trace.note("new node %s of nodepool %s holding %d pod(s): %s", n.name, n.pool.NodePool.Name, len(n.pods), r.reason)
			}
			return false
		}
		s.commitNewNode(n, p, c)
		if traced {
			p.trace.note("joined new node %s of nodepool %s, now %d pods; %d instance-type option(s) left", n.name, n.pool.NodePool.Name, len(n.pods), s.offeredOptions(n))
		}
		return true
	}
	skip := s.topology.Skip(&p.topo)
	if skip == nil {
		skip = s.portTaken.Skip(p.hostPorts)
	}
	scan := traced || !s.topology.NoneTakes(&p.topo)
	if scan && s.karpenter == nil && s.placeSnug(p, skip) {
		return ok
	}
	if !scan {
		// No planned node can take p: a new node may.
	} else if s.karpenter != nil {
		if s.eachInflight(p, skip, try) {
			return ok
		}
	} else if skip != nil {
		for i := skip.Find(0); i < len(s.nodes); i = skip.Find(i + 1) {
			if p.requests.Fits(s.newFree.Free(i)) && try(i) {
				return ok
			}
		}
	} else if s.newFree.Each(p.requests, try) {
		return ok
	}
	if skipped := len(s.nodes) - tried; traced && skipped > 0 {
		p.trace.note("%d new node(s) of this plan skipped without a full check: too little room they may still grow into, or a hostname or host-port rule of the pod already rules them out", skipped)
	}
	var reasons []string
	var best rejection
	for _, pool := range s.pools {
		n, r := s.openNewNode(pool, p, explain || traced)
		if !r.failed() {
			s.addFree(n)
			s.nodes = append(s.nodes, n)
			if traced {
				p.trace.note("opened new node %s of nodepool %s: %d instance-type option(s), from $%.4f/h", n.name, pool.NodePool.Name, len(n.options), n.price)
			}
			return ok
		}
		best = worse(best, r)
		if traced {
			p.trace.note("nodepool %s: %s", pool.NodePool.Name, r.reason)
		}
		if explain {
			reasons = append(reasons, fmt.Sprintf("nodepool %s: %s", pool.NodePool.Name, r.reason))
		}
	}
	if len(s.pools) == 0 {
		return reject(explain, ConstraintResources, checkLaunch, "no existing node fits and there is no NodePool to launch a node from")
	}
	if explain {
		best.reason = strings.Join(reasons, "; ")
	}
	return best
}

// explainFailure re-runs the placement of a pod that failed, collecting reasons.
func (s *solver) explainFailure(p *podInfo) Unschedulable {
	// The trace already holds the failed attempts; the re-run would only repeat them.
	trace := p.trace
	p.trace = nil
	r := s.place(p, true)
	p.trace = trace
	if !r.failed() {
		// The state changed since the pod last failed, and it fits now.
		return Unschedulable{}
	}
	reason := r.reason
	if len(s.existing) > 0 {
		reason = "no existing node fits; " + reason
	}
	if len(p.relaxations) > 0 {
		reason += " (preferences relaxed: " + strings.Join(p.relaxations, ", ") + ")"
	}
	return Unschedulable{Pod: p.key, Reason: reason, Constraint: r.constraint}
}

func (s *solver) tryExisting(n *existingNode, p *podInfo, explain bool) rejection {
	_, r := s.try(target{existing: n}, p, explain)
	return r
}

func (s *solver) commitExisting(n *existingNode, p *podInfo) {
	n = s.ownExisting(n)
	n.ownUsed().Add(p.requests)
	s.existingFree.Update(n.index, n.freeInto(s.existingRoom))
	n.ports = append(n.ports, p.hostPorts...)
	s.existingAttach(n).Add(p.volumes.Claims)
	n.placed = append(n.placed, p)
	s.topology.Record(&p.topo, topology.Joining{Name: n.name, Existing: true, Labels: n.labels}, n.reqs, -1)
	s.pins.Record(p.volumes.Claims, n.name)
	if s.stopFrom >= 0 && p.index >= s.stopFrom && !n.initialized && s.stopped == nil {
		s.stopped = &UninitializedError{Pod: p.key, Node: n.name}
	}
}

// nextNodeName returns the next free <nodepool>-<n> name without taking it.
func (s *solver) nextNodeName(pool *poolState) string {
	i := pool.nodeCount + 1
	if first := s.usedNames.firstFree[pool.NodePool.Name]; i < first {
		i = first // every lower number's name is the base's
	}
	for ; ; i++ {
		name := pool.NodePool.Name + "-" + strconv.Itoa(i)
		if !s.usedNames.has(name) {
			return name
		}
	}
}

func (s *solver) claimNodeName(pool *poolState, name string) {
	s.usedNames.add(name)
	// The name is nextNodeName's: the pool's name, a dash and a number.
	n, _ := strconv.Atoi(strings.TrimPrefix(name, pool.NodePool.Name+"-"))
	pool.nodeCount = n
}

// effective returns the pod's requirement alternatives with the preference in force, cached
// until the pod relaxes.
func (p *podInfo) effective() []requirements.Requirements {
	if p.effectiveCache == nil || p.effectiveFor != p.prefIndex {
		p.effectiveCache = p.effectiveAlternatives()
		if len(p.effectiveCache) == 1 && len(p.effectiveCache[0]) == 0 {
			p.effectiveFlat = anyNode // most pods: only read, shared
		} else {
			p.effectiveFlat = make([]requirements.Flat, len(p.effectiveCache))
			for i, alt := range p.effectiveCache {
				p.effectiveFlat[i] = alt.Flat()
			}
		}
		p.effectiveFor = p.prefIndex
	}
	return p.effectiveCache
}

// anyNode is the effective alternatives, as lists, of a pod that selects no node label.
var anyNode = []requirements.Flat{nil}

// effectiveLists is effective() as lists, for matching many nodes' labels.
func (p *podInfo) effectiveLists() []requirements.Flat {
	p.effective()
	return p.effectiveFlat
}

// sortedPodKeys returns the keys of pods, sorted.
func sortedPodKeys(pods []*podInfo) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = p.key
	}
	sort.Strings(out)
	return out
}

func hasSoftTaints(s *solver) bool {
	for _, pool := range s.pools {
		for _, t := range pool.NodePool.Taints {
			if t.Effect == corev1.TaintEffectPreferNoSchedule {
				return true
			}
		}
	}
	for _, n := range s.existing {
		for _, t := range n.taints {
			if t.Effect == corev1.TaintEffectPreferNoSchedule {
				return true
			}
		}
	}
	return false
}

// matchesAny reports whether labels satisfy at least one of the alternatives.
func matchesAny(alts []requirements.Requirements, labels map[string]string) bool {
	for _, alt := range alts {
		if alt.Matches(labels) {
			return true
		}
	}
	return false
}

// matchesAnyList is matchesAny for alternatives as lists.
func matchesAnyList(alts []requirements.Flat, labels map[string]string) bool {
	for _, alt := range alts {
		if alt.Matches(labels) {
			return true
		}
	}
	return false
}

// joinFailure is a class of plain pods that could not join a node at one of its versions.
type joinFailure struct {
	class        string
	prefIndex    int
	tolerateSoft bool
	version      int
}

// is reports whether p is of the failed class, with the same preferences given up, and the
// node unchanged since.
func (f joinFailure) is(p *podInfo, n *newNode) bool {
	return f.class != "" && f.class == p.memoClass && f.prefIndex == p.prefIndex && f.tolerateSoft == p.tolerateSoft && f.version == n.version
}

// placeOnExistingNode puts p on the first existing node that takes it, and reports whether
// one did; traced, it notes each node tried and how many it skipped.
func (s *solver) placeOnExistingNode(p *podInfo, traced bool) bool {
	n := s.firstExisting(p, traced)
	if n == nil {
		return false
	}
	s.commitExisting(n, p)
	if traced {
		p.trace.note("placed on existing node %s", n.name)
	}
	return true
}

// firstExisting returns the first existing node, in rank order, that takes p as the nodes
// are now, nil when none does. Traced, it notes each node tried and how many it skipped.
func (s *solver) firstExisting(p *podInfo, traced bool) *existingNode {
	return s.firstExistingFrom(0, p, traced)
}

// firstExistingFrom is firstExisting over the nodes from position from on.
func (s *solver) firstExistingFrom(from int, p *podInfo, traced bool) *existingNode {
	tried := 0
	var found *existingNode
	s.existingFree.EachFrom(from, p.requests, func(i int) bool {
		n := s.byIndex[i]
		tried++
		if r := s.tryExisting(n, p, traced); r.failed() {
			if traced {
				p.trace.note("existing node %s: %s", n.name, r.reason)
			}
			return false
		}
		found = n
		return true
	})
	if skipped := len(s.existing) - tried; found == nil && traced && skipped > 0 {
		p.trace.note("%d existing node(s) skipped: not enough free room", skipped)
	}
	return found
}

// existingFirst reports whether the queue's placements on existing nodes may be made before
// any new node is planned, for the same plan: when no pod's fate on an existing node can
// depend on the new nodes. That holds when every pod is plain (no topology rule counts or
// binds it, no host port, no volume: what it finds on an existing node is the node's room,
// labels and taints, which only pods placed there change) and has nothing to relax (no
// preference left, no PreferNoSchedule taint in the cluster, so a pod that fails everywhere
// fails for good, instead of coming back to the existing nodes with less asked of them), and
// the default strategy places it (an existing node first, else a new one). Then the pods
// placed on existing nodes land where they would have anyway, the others fail on every
// existing node however long they wait (those only fill up), and the new nodes see the same
// pods in the same order.
//
// It spares the planning of new nodes to a what-if that stops at the first displaced pod
// bound for a node still starting: most of consolidation's, in a cluster that grows.
func (s *solver) existingFirst(queue []*podInfo) bool {
	if s.opts.interleaved || s.karpenter != nil || s.softTaints || s.topology.HasGroups() {
		return false
	}
	for _, p := range queue {
		if p.memoClass == "" || p.prefIndex < len(p.preferences) || p.trace != nil {
			return false
		}
	}
	return true
}

// placeOnExisting places each pod of queue, in order, on the first existing node that takes
// it, and returns the others in order; it stops when a placement stops the solve. The pods
// are plain (see existingFirst) and the nodes only fill up meanwhile, so no node before the
// one the last pod of a class landed on takes the next pod of that class, nor any node when
// the last one found none: its search starts there (the first round's walk does the same;
// see firstMoves.firstFit).
func (s *solver) placeOnExisting(queue []*podInfo) []*podInfo {
	var rest []*podInfo
	var from []classFrom
	at := -1
	for _, p := range queue {
		if at = classSlot(from, at, p.memoClass); at < 0 {
			at = len(from)
			from = append(from, classFrom{class: p.memoClass})
		}
		n := s.firstExistingFrom(from[at].from, p, false)
		if n == nil {
			from[at].from = len(s.byIndex)
			rest = append(rest, p)
			continue
		}
		from[at].from = n.index
		if s.commitExisting(n, p); s.stopped != nil {
			return nil
		}
	}
	return rest
}
