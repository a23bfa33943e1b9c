package scheduling

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/daemonset"
	"github.com/nodeplan/nodeplan/internal/parallel"
	"github.com/nodeplan/nodeplan/internal/resources"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/volume"
)

// Cluster is an Input validated and prepared once (NodePools with their instance types and
// DaemonSet overhead, the resource dimensions) for many what-if solves. Simulate never
// changes it; Apply commits a change. A Cluster is not safe for concurrent use.
type Cluster struct {
	in   Input
	prep *prepared
	// narrowed holds, per Change.Requirements, the NodePools prepared with them.
	narrowed map[string]*prepared
	// shared is the base every Simulate of this state starts from (see base), once baseBuilt.
	shared    *base
	baseBuilt bool
	// last is the base of an earlier state, kept while this state's is not built: most of
	// it holds for this one (see newBaseFrom).
	last *base
	// moves follows a what-if's first round on existing nodes (see firstMoves), for one
	// state: Clone and Apply leave it behind.
	moves *firstMoves
	// names indexes the nodes for changes while the base is not built (see nodeNames).
	names      *nodeIndex
	namesBuilt bool
	// homes finds the nodes of running pods, once homesTried (see podHomes); Apply keeps it.
	homes      *podHomes
	homesTried bool
}

// prepared is what every solve over the same NodePools, instance types and DaemonSets shares.
type prepared struct {
	dims    *resources.Dims
	daemons []*daemonset.Template
	pools   []*poolState
	// existing memoises each node's conversion, filled as solves meet them.
	existing map[*ExistingNode]*existingNode
	// ownsExisting is set while existing is this state's alone, which Apply then updates in
	// place for the next state (see after) instead of copying: clones and narrowed NodePools
	// share the map, so a Clone gives it up.
	ownsExisting bool
	// pods memoises what each pending pod converts to on its own (podConversion), and nodes
	// what each node object does (nodeStatics), filled as solves meet them; clones share them.
	pods  *podMemo
	nodes *nodeMemo
	// launchable is nodetemplate.LaunchableDomains of the pools, which every plan reports (a copy of it).
	launchable map[string][]string
	// noVolumes is the volume index of a solve without claims, volumes, storage classes or
	// bound pods using any: most solves, which share it (an index is only read once made).
	noVolumes *volume.Index
	// spares holds the solveSpares of solves that are done, shared by the Cluster's clones and
	// the clusters prepared from it.
	spares *sync.Pool
}

// Change is a what-if on a Cluster: nodes taken away or cordoned, running pods evicted, and
// pending pods added. Pods displaced by the change are placed again with the pending ones.
type Change struct {
	// RemoveNodes names existing nodes to take away; their pods, other than DaemonSet pods and
	// finished or terminating pods, are placed again.
	RemoveNodes []string
	// Cordon names existing nodes that take no new pods; their own pods stay.
	Cordon []string
	// Evict names running pods (namespace/name) taken off their nodes and placed again.
	Evict []string
	// AddPods are pending pods placed as well.
	AddPods []*corev1.Pod
	// RemovePods names pods (namespace/name), pending or running, that leave the cluster for
	// good: deleted, scaled down, or finished. They free their room and are not placed again.
	RemovePods []string
	// Initialize names nodes that finished starting (a NodeClaim in flight became Ready):
	// they are then used like every other ready node.
	Initialize []string
	// Requirements narrow every NodePool for this simulation only, e.g. capacity-type In
	// [spot], or instance types cheaper than a candidate. A NodePool they contradict launches
	// nothing.
	Requirements []corev1.NodeSelectorRequirement
}

// UninitializedError is what Simulate returns under Options.StopOnUninitialized when a pod
// the change displaces or adds would land on a node that is not initialized yet.
type UninitializedError struct {
	Pod  string // namespace/name
	Node string
}

func (e *UninitializedError) Error() string {
	return "pod " + e.Pod + " would move to node " + e.Node + ", which is not initialized yet"
}

// Prepare validates in and precomputes what every solve over it shares. Its error is the one
// Solve would return.
func Prepare(in Input) (*Cluster, error) {
	prep, err := prepare(in)
	if err != nil {
		return nil, err
	}
	return &Cluster{in: in, prep: prep}, nil
}

// PrepareReusing is Prepare, reusing the conversions prev made of the existing nodes in shares
// with prev's input (the same ExistingNode values: input values are never modified) when both
// are prepared with the same dimensions (from the same Pools). The Cluster is the one Prepare
// makes; a caller preparing a slowly changing cluster again and again keeps its unchanged
// nodes' ExistingNode values to skip converting them again.
func PrepareReusing(in Input, prev *Cluster) (*Cluster, error) {
	var reuse *prepared
	if prev != nil {
		reuse = prev.prep
	}
	prep, err := prepareReusing(in, reuse)
	if err != nil {
		return nil, err
	}
	out := &Cluster{in: in, prep: prep}
	if prev != nil {
		out.last = prev.lastBase()
	}
	return out, nil
}

func prepare(in Input) (*prepared, error) { return prepareReusing(in, nil) }

// prepareReusing prepares in, taking the node conversions prev holds when its dimensions are
// in's.
func prepareReusing(in Input, prev *prepared) (*prepared, error) {
	var dims *resources.Dims
	var daemons []*daemonset.Template
	var pools []*poolState
	var launchable map[string][]string
	if !in.Pools.fitsWithoutCollecting(in, prev) {
		dims = collectDims(in)
	}
	pods := newPodMemo()
	if dims == nil || in.Pools.fits(in, dims) {
		dims, daemons, pools, launchable = in.Pools.set.Dims, in.Pools.set.Daemons, ownPools(in.Pools.pools), in.Pools.set.Launchable
	} else {
		daemons = daemonset.Templates(in.DaemonSets, dims)
		// The pending pods convert under the dimensions alone: on the other cores meanwhile.
		converted := parallel.Go(func() { pods.convert(in.Pods, dims, in.Options.PreferencePolicy) })
		var err error
		pools, err = newPools(in.NodePools, dims, daemons)
		converted()
		if err != nil {
			return nil, err
		}
		launchable = launchableDomains(pools)
	}
	prep := &prepared{dims: dims, daemons: daemons, pools: pools, existing: map[*ExistingNode]*existingNode{},
		ownsExisting: true, pods: pods, nodes: newNodeMemo(), launchable: launchable, noVolumes: volume.NewIndex(nil, nil, nil, nil), spares: &sync.Pool{}}
	if prev != nil && prev.spares != nil {
		prep.spares = prev.spares // a solve overwrites what it takes, whatever the dimensions
	}
	if prev != nil && prev.dims != dims {
		prev = nil // converted with other dimensions
	}
	if prev != nil {
		prep.pods, prep.nodes = prev.pods.keeping(in), prev.nodes.keeping(in)
	}
	for _, en := range in.ExistingNodes {
		if en == nil || en.Node == nil || en.Node.Name == "" {
			continue // newExistingNodes names the problem
		}
		if prev != nil {
			if n, ok := prev.existing[en]; ok {
				prep.existing[en] = n
				continue
			}
		}
		n, err := newExistingNode(en, dims, prep.pods, prep.nodes)
		if err != nil {
			return nil, err
		}
		prep.existing[en] = n
	}
	return prep, nil
}

// Simulate plans the cluster's pending pods, those the change displaces and those it adds,
// as Solve would on the changed cluster. The Cluster is left as it was.
func (c *Cluster) Simulate(change Change, opts Options) (Plan, error) {
	if stop := c.firstMoveStop(change, opts); stop != nil {
		return Plan{}, stop
	}
	delta := &nodeDelta{}
	in, fresh, err := c.changedNoting(change, delta)
	if err != nil {
		return Plan{}, err
	}
	in.Options = opts
	// The removed nodes run until what replaces them is up: new nodes do not take their names
	// (Apply keeps them reserved too).
	in.ReservedNodeNames = append(slices.Clip(in.ReservedNodeNames), change.RemoveNodes...)
	prep := c.prep
	if len(change.Requirements) > 0 {
		if prep, in.NodePools, err = c.narrow(change.Requirements); err != nil {
			return Plan{}, err
		}
	}
	b := c.base()
	if !c.covers(prep, b, change, in.Pods[fresh:]) {
		// A displaced or added pod asks for a resource the prepared cluster has never seen.
		if prep, err = prepare(in); err != nil {
			return Plan{}, err
		}
		b = nil // converted with other dimensions
	}
	return solve(in, prep, start{base: b, delta: delta, ranked: len(change.Initialize) == 0, fresh: fresh})
}

// covers reports whether prep's dimensions cover every resource the pods a change displaces
// or adds (pods) ask for. Those of removed nodes are looked at once per node conversion (see
// movingCovered): a what-if removes a few nodes of a state that many what-ifs share.
func (c *Cluster) covers(prep *prepared, b *base, change Change, pods []*corev1.Pod) bool {
	if b == nil || b.dims != prep.dims || len(change.Evict) > 0 {
		return prep.dims.CoversPods(pods)
	}
	// Without evictions the displaced pods are the removed nodes' pods that move with them.
	for _, name := range change.RemoveNodes {
		i, ok := b.index[name]
		if !ok || !b.nodes[b.rank[i]].movingCovered(prep.dims, b.inputNodes[i].Pods) {
			return prep.dims.CoversPods(pods)
		}
	}
	return prep.dims.CoversPods(change.AddPods)
}

// narrow returns the cluster prepared with every NodePool narrowed by reqs, memoised per
// requirement set, and the narrowed NodePools.
func (c *Cluster) narrow(reqs []corev1.NodeSelectorRequirement) (*prepared, []*NodePool, error) {
	for i, r := range reqs {
		if err := requirements.ValidateNodeSelectorRequirement(r); err != nil {
			return nil, nil, fmt.Errorf("change: requirements[%d]: %w", i, err)
		}
	}
	key := requirements.FromNodeSelectorRequirements(reqs...).String()
	pools := make([]*NodePool, len(c.in.NodePools))
	for i, np := range c.in.NodePools {
		if np == nil {
			continue
		}
		copied := *np
		copied.Requirements = slices.Clip(np.Requirements)
		for _, r := range reqs {
			copied.Requirements = append(copied.Requirements, NodeSelectorRequirementWithMinValues{NodeSelectorRequirement: r})
		}
		pools[i] = &copied
	}
	if prep, ok := c.narrowed[key]; ok {
		return prep, pools, nil
	}
	// Only the NodePools change: the dimensions, DaemonSets and node conversions are the
	// cluster's own (requirements bring no resource), so the narrowing converts no node again.
	narrowed, err := newPools(pools, c.prep.dims, c.prep.daemons)
	if err != nil {
		return nil, nil, err
	}
	prep := &prepared{dims: c.prep.dims, daemons: c.prep.daemons, pools: narrowed, existing: c.prep.existing, pods: c.prep.pods, nodes: c.prep.nodes,
		launchable: launchableDomains(narrowed), noVolumes: c.prep.noVolumes, spares: c.prep.spares}
	if c.narrowed == nil {
		c.narrowed = map[string]*prepared{}
	}
	c.narrowed[key] = prep
	return prep, pools, nil
}

// Apply commits a change and the plan Simulate made for it: removed nodes and evicted pods
// leave, the plan's new nodes join as nodes still starting, and placed pods run where the
// plan put them. Pods the plan could not place stay pending. What the change and plan do
// not touch is not worked out again: the other nodes' conversions, where the running pods
// are and the index of node names carry over to the next state (the conversions are updated
// in place unless the state was cloned, see Clone).
func (c *Cluster) Apply(change Change, plan Plan) error {
	in, _, err := c.changed(change)
	if err != nil {
		return err
	}
	var pending map[string]*corev1.Pod // by key, made when the plan places a pod
	take := func(keys []string, where string) ([]*corev1.Pod, error) {
		if pending == nil && len(keys) > 0 {
			pending = make(map[string]*corev1.Pod, len(in.Pods))
			for _, p := range in.Pods {
				pending[podKey(p)] = p
			}
		}
		out := make([]*corev1.Pod, 0, len(keys))
		for _, k := range keys {
			p, ok := pending[k]
			if !ok {
				return nil, fmt.Errorf("apply: plan puts pod %s on %s, but it is not pending in the changed cluster", k, where)
			}
			delete(pending, k)
			out = append(out, p)
		}
		return out, nil
	}
	// Nodes the plan does not touch keep their ExistingNode, and so their conversion; those
	// that gain pods are copied (the caller's values are never modified).
	nodes := slices.Clone(in.ExistingNodes)
	// Without a node removed or added, every node keeps its place: the index of names the
	// change was read with serves the next state too (only read). Otherwise one is made when
	// the plan names nodes, and it serves the next state as well.
	names := c.nodeNames()
	var index map[string]int // by name: the next state's when it is set
	switch {
	case names != nil && len(change.RemoveNodes) == 0 && len(plan.NodeClaims) == 0:
		index = names.index
	case len(plan.ExistingNodes)+len(plan.NodeClaims) > 0:
		index = make(map[string]int, len(nodes)+len(plan.NodeClaims))
		for i, en := range nodes {
			index[en.Node.Name] = i
		}
	}
	// covered is whether the dimensions cover what the state did not hold (see coversNode).
	covered := c.prep.dims.CoversPods(change.AddPods)
	for _, placement := range plan.ExistingNodes {
		i, ok := index[placement.Name]
		if !ok {
			return fmt.Errorf("apply: plan places pods on node %q, which the changed cluster does not have", placement.Name)
		}
		pods, err := take(placement.Pods, placement.Name)
		if err != nil {
			return err
		}
		copied := *nodes[i]
		copied.Pods = append(slices.Clip(copied.Pods), pods...)
		nodes[i] = &copied
		covered = covered && c.prep.dims.CoversPods(pods)
	}
	// A removed node's name stays reserved, so that a name means one node for the Cluster's
	// whole life (and its clones', which copy the input).
	in.ReservedNodeNames = append(slices.Clip(in.ReservedNodeNames), change.RemoveNodes...)
	var reserved map[string]bool // a replay's grows with every node it deletes: made when needed
	if len(plan.NodeClaims) > 0 {
		reserved = toSet(in.ReservedNodeNames)
	}
	indexed := names != nil // no node nil, unnamed or named twice: an index of names holds
	for _, nc := range plan.NodeClaims {
		indexed = indexed && nc.Name != ""
		if _, taken := index[nc.Name]; taken {
			return fmt.Errorf("apply: new node %q has the name of an existing node", nc.Name)
		}
		if reserved[nc.Name] {
			return fmt.Errorf("apply: new node %q has the name of a node that is leaving the cluster", nc.Name)
		}
		pods, err := take(nc.Pods, nc.Name)
		if err != nil {
			return err
		}
		en := &ExistingNode{Node: nodeFromClaim(nc), Pods: pods, NodePool: nc.NodePool}
		en.Pods = append(en.Pods, c.daemonPodsFor(en)...)
		nodes = append(nodes, en)
		index[nc.Name] = len(nodes) - 1
		covered = covered && c.prep.coversNode(en)
	}
	in.ExistingNodes = nodes
	if pending != nil { // else the plan placed no pod: every one is still pending
		stillPending := make([]*corev1.Pod, 0, len(pending))
		for _, p := range in.Pods {
			if _, still := pending[podKey(p)]; still {
				stillPending = append(stillPending, p)
			}
		}
		in.Pods = stillPending
	}
	changes := nodesChanged(c.in.ExistingNodes, in.ExistingNodes)
	prep, err := c.prep.after(changes, in, covered)
	if err != nil {
		return err
	}
	c.homes = c.homes.after(changes)
	var next *nodeIndex // the next state's names: made here when it can be, else when asked
	if index != nil && indexed {
		next = &nodeIndex{index: index, inputNodes: in.ExistingNodes}
	}
	c.in, c.prep, c.narrowed = in, prep, nil
	c.last = c.lastBase()
	c.shared, c.baseBuilt, c.moves, c.names, c.namesBuilt = nil, false, nil, next, next != nil
	return nil
}

// after is the prepared state for in, the cluster after a change and its plan (changes the
// nodes that differ from the state's): NodePools, DaemonSets and dimensions are kept, and of
// the nodes only those the change or plan touched are converted again (a node it touched is
// a new ExistingNode, which no conversion is kept for); everything is prepared anew unless
// the dimensions cover what the change brought (covered, see coversNode). The conversions
// are updated in place when the state owns them (a replay's Cluster, never cloned, applies a
// change every few seconds, and copying the map of every node's conversion cost more than
// the change), else copied.
func (prep *prepared) after(changes nodeChanges, in Input, covered bool) (*prepared, error) {
	if !covered {
		return prepare(in)
	}
	if prep.ownsExisting {
		if next, ok, err := prep.afterInPlace(changes); ok || err != nil {
			return next, err
		}
	}
	next := *prep
	next.ownsExisting = true
	next.existing = make(map[*ExistingNode]*existingNode, len(in.ExistingNodes))
	for _, en := range in.ExistingNodes {
		if en == nil || en.Node == nil || en.Node.Name == "" {
			continue
		}
		if tmpl, ok := prep.existing[en]; ok {
			next.existing[en] = tmpl
			continue
		}
		n, err := newExistingNode(en, prep.dims, prep.pods, prep.nodes)
		if err != nil {
			return nil, err
		}
		next.existing[en] = n
	}
	return &next, nil
}

// coversNode reports whether the dimensions cover a node a plan adds: its pods, capacity and
// allocatable. Apply checks the dimensions against what a change and its plan bring to a
// state they cover, and nothing else is new: the pods the change adds, the pending pods the
// plan puts on existing nodes, and the plan's new nodes. A node that gains pods keeps its node
// object, and its other pods were covered with it; a node the change empties of some pods, or
// initializes, keeps what it had; pods that leave a node go pending as they were. So a
// replay's Apply reads the few pods that moved, not every pod of every node that took one.
func (prep *prepared) coversNode(en *ExistingNode) bool {
	return prep.dims.CoversPods(en.Pods) && prep.dims.Covers(en.Node.Status.Capacity) && prep.dims.Covers(en.Node.Status.Allocatable)
}

// afterInPlace is after for a state that owns its conversions: the nodes that came are
// converted (every one changed or new: none has a conversion to reuse), those gone dropped,
// and the map passes to the next state. ok is false when the nodes could not be compared (see
// nodesChanged), or a node both went and came (Apply never moves one).
func (prep *prepared) afterInPlace(ch nodeChanges) (next *prepared, ok bool, err error) {
	if !ch.ok {
		return nil, false, nil
	}
	gone, came := ch.gone, ch.came
	for _, g := range gone {
		if slices.Contains(came, g) {
			return nil, false, nil
		}
	}
	converted := make([]*existingNode, len(came))
	for i, en := range came {
		if en.Node.Name == "" {
			continue // newExistingNodes names the problem
		}
		if converted[i], err = newExistingNode(en, prep.dims, prep.pods, prep.nodes); err != nil {
			return nil, false, err
		}
	}
	for _, g := range gone {
		delete(prep.existing, g)
	}
	for i, en := range came {
		if converted[i] != nil {
			prep.existing[en] = converted[i]
		}
	}
	n := *prep
	prep.ownsExisting = false
	return &n, true, nil
}

// daemonPodsFor are the pods the DaemonSets will run on a node a plan launched, so that it
// joins the cluster with them: their room taken and their labels counted by spread rules.
func (c *Cluster) daemonPodsFor(en *ExistingNode) []*corev1.Pod {
	n, err := newExistingNode(en, c.prep.dims, requestsMap{}, nil)
	if err != nil {
		return nil
	}
	var out []*corev1.Pod
	for _, d := range c.prep.daemons {
		if !d.RunsOnNode(n.taints, n.labels) {
			continue
		}
		namespace, name, _ := strings.Cut(d.Name, "/")
		pod := &corev1.Pod{ObjectMeta: *d.Pod.ObjectMeta.DeepCopy(), Spec: *d.Pod.Spec.DeepCopy()}
		pod.Namespace = namespace
		pod.Name = name + "-" + en.Node.Name
		pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: name, Controller: ptrTo(true)}}
		pod.Spec.NodeName = en.Node.Name
		pod.Status.Phase = corev1.PodRunning
		out = append(out, pod)
	}
	return out
}

func ptrTo[T any](v T) *T { return &v }

// Node returns the cluster's existing node of that name as Input has it, nil when there is
// none (the first, when the input names two alike). It reads the index of names Apply keeps
// from one state to the next, so a caller need not build its own.
func (c *Cluster) Node(name string) *ExistingNode {
	if ix := c.nodeNames(); ix != nil {
		if i, ok := ix.index[name]; ok {
			return ix.inputNodes[i]
		}
		return nil
	}
	for _, en := range c.in.ExistingNodes {
		if en != nil && en.Node != nil && en.Node.Name == name {
			return en
		}
	}
	return nil
}

// Input returns the cluster as it stands after every Apply: its pending pods, its nodes with
// the pods bound to them, and what Prepare was given. It shares the Cluster's values: read
// them, never modify them.
func (c *Cluster) Input() Input {
	return c.in
}

// changed returns the cluster's input with the change made: new ExistingNode values (the
// Cluster's own are never modified) and the pods pending: the cluster's (less those the change
// removes), then from index fresh on those the change displaces, then those it adds.
func (c *Cluster) changed(change Change) (in Input, fresh int, err error) {
	return c.changedNoting(change, nil)
}

// changedNoting is changed, noting in delta (when given) which of the Cluster's nodes the
// change removed or replaced.
func (c *Cluster) changedNoting(change Change, delta *nodeDelta) (in Input, fresh int, err error) {
	in = c.in
	if len(change.RemoveNodes) == 0 && len(change.Cordon) == 0 && len(change.Evict) == 0 && len(change.AddPods) == 0 &&
		len(change.RemovePods) == 0 && len(change.Initialize) == 0 {
		return in, len(in.Pods), nil
	}
	ix := c.nodeNames()
	known := func(name string) bool {
		_, ok := ix.index[name]
		return ok
	}
	if ix == nil {
		names := map[string]bool{}
		for _, en := range c.in.ExistingNodes {
			if en != nil && en.Node != nil {
				names[en.Node.Name] = true
			}
		}
		known = func(name string) bool { return names[name] }
	}
	gone, evicted := toSet(change.RemovePods), toSet(change.Evict)
	leaving := evicted
	if len(gone) > 0 {
		leaving = make(map[string]bool, len(evicted)+len(gone))
		maps.Copy(leaving, evicted)
		maps.Copy(leaving, gone)
	}
	running, hosts := c.runningPods(leaving)
	for _, list := range [][]string{change.RemoveNodes, change.Cordon, change.Initialize} {
		for _, name := range list {
			if !known(name) {
				return Input{}, 0, fmt.Errorf("change: node %q is not in the cluster", name)
			}
		}
	}
	for _, k := range change.Evict {
		if !running(k) {
			return Input{}, 0, fmt.Errorf("change: pod %s does not run on any node of the cluster", k)
		}
	}
	pending := c.in.Pods
	if len(gone) > 0 {
		pending = make([]*corev1.Pod, 0, len(c.in.Pods))
		for _, p := range c.in.Pods {
			if p == nil || !gone[podKey(p)] {
				pending = append(pending, p)
			}
		}
		if err := allKnown(change.RemovePods, running, c.in.Pods); err != nil {
			return Input{}, 0, err
		}
	}
	removed, cordoned, ready := toSet(change.RemoveNodes), toSet(change.Cordon), toSet(change.Initialize)
	var marks []nodeMark
	if ix != nil {
		marks = ix.marks(change, hosts)
	}
	// is reports whether the change marks node i (named name) so: by position with a base,
	// else by name.
	is := func(i int, name string, mark nodeMark, set map[string]bool) bool {
		if marks != nil {
			return marks[i]&mark != 0
		}
		return set[name]
	}
	in.ExistingNodes = make([]*ExistingNode, 0, len(c.in.ExistingNodes))
	for i, en := range c.in.ExistingNodes {
		if en == nil || en.Node == nil {
			in.ExistingNodes = append(in.ExistingNodes, en)
			continue
		}
		var name string
		if marks == nil {
			name = en.Node.Name // with marks, the base has looked every name up once already
		}
		if is(i, name, markRemoved, removed) {
			if delta != nil {
				delta.removed = append(delta.removed, i)
			}
			continue
		}
		loses := is(i, name, markLoses, nil)
		if marks == nil {
			loses = evictsFrom(en, leaving)
		}
		isCordoned, isReady := is(i, name, markCordoned, cordoned), is(i, name, markReady, ready)
		if !isCordoned && !loses && !isReady {
			in.ExistingNodes = append(in.ExistingNodes, en) // unchanged: its conversion is reused
			continue
		}
		copied := *en
		if isReady {
			copied.Initialized = true
		}
		if isCordoned {
			node := *en.Node
			node.Spec = *en.Node.Spec.DeepCopy()
			node.Spec.Unschedulable = true
			copied.Node = &node
		}
		if loses {
			copied.Pods = make([]*corev1.Pod, 0, len(en.Pods))
			for _, p := range en.Pods {
				if p == nil || !leaving[podKey(p)] {
					copied.Pods = append(copied.Pods, p)
				}
			}
		}
		in.ExistingNodes = append(in.ExistingNodes, &copied)
		if delta != nil {
			delta.replaced = append(delta.replaced, replacedNode{at: i, with: &copied})
		}
	}
	in.Pods = append(slices.Clip(pending), displaced(c.in, removed, evicted, gone, marks)...)
	fresh = len(pending)
	in.Pods = append(in.Pods, change.AddPods...)
	return in, fresh, nil
}

// runningPods returns whether a pod of keys (namespace/name) runs on a node of the cluster,
// and, with an index of its nodes, where (see nodeIndex.hostsOf).
func (c *Cluster) runningPods(keys map[string]bool) (running func(key string) bool, hosts map[string][]int) {
	if len(keys) == 0 {
		return func(string) bool { return false }, nil
	}
	if ix := c.nodeNames(); ix != nil {
		hosts := c.podHosts(ix, keys)
		return func(key string) bool {
			_, ok := hosts[key]
			return ok
		}, hosts
	}
	all := map[string]bool{}
	for _, en := range c.in.ExistingNodes {
		if en == nil || en.Node == nil {
			continue
		}
		for _, p := range en.Pods {
			if p != nil {
				all[podKey(p)] = true
			}
		}
	}
	return func(key string) bool { return all[key] }, nil
}

// allKnown checks that every pod a change removes is pending or runs on a node.
func allKnown(keys []string, running func(key string) bool, pending []*corev1.Pod) error {
	isPending := make(map[string]bool, len(pending))
	for _, p := range pending {
		if p != nil {
			isPending[podKey(p)] = true
		}
	}
	for _, k := range keys {
		if !running(k) && !isPending[k] {
			return fmt.Errorf("change: pod %s is neither pending nor running on a node of the cluster", k)
		}
	}
	return nil
}

// evictsFrom reports whether the node runs one of the evicted pods.
func evictsFrom(en *ExistingNode, evicted map[string]bool) bool {
	if len(evicted) == 0 {
		return false
	}
	for _, p := range en.Pods {
		if p != nil && evicted[podKey(p)] {
			return true
		}
	}
	return false
}

// displaced lists the pods a change takes off their nodes, in node then pod order: the
// change's removed nodes, evicted pods and pods gone for good, as sets. marks, when set, marks
// in's nodes as the change does (see nodeMark).
func displaced(in Input, removed, evicted, gone map[string]bool, marks []nodeMark) []*corev1.Pod {
	isRemoved := func(i int, en *ExistingNode) bool {
		if marks != nil {
			return marks[i]&markRemoved != 0
		}
		return removed[en.Node.Name]
	}
	var out []*corev1.Pod
	for i, en := range in.ExistingNodes {
		if marks != nil && marks[i]&(markRemoved|markLoses) == 0 {
			continue // nothing to read on a node that neither goes nor loses a pod
		}
		if en == nil || en.Node == nil || (!isRemoved(i, en) && len(evicted) == 0) {
			continue
		}
		for _, p := range en.Pods {
			if p == nil {
				continue
			}
			var key string
			if len(gone) > 0 || len(evicted) > 0 {
				key = podKey(p)
			}
			if gone[key] {
				continue
			}
			switch {
			case evicted[key]:
				out = append(out, p)
			case isRemoved(i, en) && movesWithNode(p):
				out = append(out, p)
			}
		}
	}
	return out
}

// movesWithNode reports whether a pod of a removed node is placed again: it runs, is not
// terminating, and neither a DaemonSet nor its node owns it.
func movesWithNode(p *corev1.Pod) bool {
	return !isTerminal(p) && p.DeletionTimestamp == nil && !daemonset.Owns(p) && !ownedByNode(p)
}

// ownedByNode reports a mirror pod (a static pod kubelet runs from a file): it ends with its
// node and is never placed elsewhere (Karpenter's IsOwnedByNode).
func ownedByNode(p *corev1.Pod) bool {
	if _, mirror := p.Annotations[corev1.MirrorPodAnnotationKey]; mirror {
		return true
	}
	for _, ref := range p.OwnerReferences {
		if ref.Kind == "Node" {
			return true
		}
	}
	return false
}

// nodeFromClaim builds the Node a planned NodeClaim becomes.
func nodeFromClaim(nc NodeClaim) *corev1.Node {
	node := &corev1.Node{}
	node.Name = nc.Name
	node.Labels = nc.Labels
	node.Spec.Taints = append(slices.Clip(nc.Taints), nc.StartupTaints...)
	node.Status.Capacity = nc.Capacity
	node.Status.Allocatable = nc.Allocatable
	return node
}

func toSet(names []string) map[string]bool {
	out := make(map[string]bool, len(names))
	for _, n := range names {
		out[n] = true
	}
	return out
}

// topologyDomains is the plan's copy of the launchable domains: a plan's maps and slices are
// its caller's.
func (prep *prepared) topologyDomains() map[string][]string {
	if prep.launchable == nil {
		return nil
	}
	out := make(map[string][]string, len(prep.launchable))
	for key, domains := range prep.launchable {
		out[key] = slices.Clone(domains)
	}
	return out
}
