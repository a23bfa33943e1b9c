package replay

import (
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/scheduling"
)

// sim is one replay in progress.
type sim struct {
	opts       Options
	start, now time.Time
	until      time.Time
	events     []Event
	queue      stepQueue
	seq        int

	cluster      *scheduling.Cluster
	pools        []*scheduling.NodePool
	base         disruption.Input // PDBs, DaemonSets, namespaces and volumes, as the start gave them
	nodes        map[string]*nodeRec
	lives        []*nodeRec // every node, in order of launch
	names        map[string]bool
	pods         map[string]*podRec
	workloads    map[string]*workload
	statefulPods map[string][]*corev1.Pod
	change       scheduling.Change

	// Provisioning's batch: open from its first pending pod; provisionAt is the step queued.
	batchOpen             bool
	batchFirst, batchLast time.Time
	provisionQueued       bool
	// retry is set when the cluster changed in a way that may let pods left pending run.
	retry bool

	// Disruption: disruptAt is the tick queued (zero when none).
	disruptAt    time.Time
	disruptDirty bool
	// poolChanged is set by a NodePool update until Decide finds no more drift.
	poolChanged bool
	// decidePools are the NodePools prepared once for every Decide; nil until the first
	// and after a NodePool update.
	decidePools *disruption.Pools
	drains      map[string]*drain
	waiting     []*command
	// held are the consolidation commands awaiting validation; the loop decides nothing
	// meanwhile.
	held *heldCommands
	// resumeAfter is the method whose command the last validation abandoned, after which the
	// next decision goes on (disruption.Input.After); "" when none.
	resumeAfter string
	// version counts the changes applied to the cluster.
	version int
	// leaving are the nodes the replay is disrupting, sorted: their pods are planned with
	// every provisioning until they are gone.
	leaving []string

	// decideMemo carries the consolidations one Decide simulated to the next. The replay
	// changes its pods in place (markRunning, backToPending) and names their nodes to it
	// (NamesChanges).
	decideMemo disruption.Memo
	// nodeBuf and nodePtrs hold the Nodes of the last disruption input (see disruptionInput).
	nodeBuf  []disruption.Node
	nodePtrs []*disruption.Node

	rest     time.Time
	timeline []Point
	nodeSet  int // counts launches and deletions
	lastSet  int
	// liveNodes and liveCost are the node count and hourly cost at lastSet.
	liveNodes                  int
	liveCost                   float64
	decisions                  []Decision
	waits                      []float64
	evicted                    int
	warnings                   []string
	created, finished, deleted int
	pending, running           int
	// unplaced counts the pending pods provisioning has not put on a node: the cluster's
	// pending pods once the gathered change is applied.
	unplaced int
}

// nodeRec is a node's life and the facts disruption needs about it.
type nodeRec struct {
	NodeLife
	created        time.Time
	ready          bool
	lastPodEvent   time.Time
	expireAfter    *time.Duration
	expireSet      bool
	consolidatable *bool
	// drifted is the NodeClaim's Drifted condition, nodeClassDrift how the node no longer
	// matches its node class (disruption.Node's Drifted and NodeClassDrift).
	drifted        string
	nodeClassDrift string
	disrupting     bool
	gone           bool
	fromStart      bool
}

func newSim(start disruption.Input, events []Event, opts Options) (*sim, error) {
	if start.Now.IsZero() {
		return nil, fmt.Errorf("replay: the start time (start.Now) is not set")
	}
	s := &sim{
		opts: opts, start: start.Now, now: start.Now, rest: start.Now, events: events, base: start, pools: start.NodePools,
		nodes: map[string]*nodeRec{}, names: map[string]bool{}, pods: map[string]*podRec{},
		workloads: map[string]*workload{}, statefulPods: map[string][]*corev1.Pod{}, drains: map[string]*drain{},
	}
	s.decideMemo.NamesChanges = true
	s.disruptDirty = true // disruption has not looked at the start cluster yet
	last := start.Now
	for _, ev := range events {
		if ev.offset != nil && ev.Time.IsZero() {
			return nil, fmt.Errorf("%s: the event is an offset from the start; resolve the trace first (Trace.Resolve)", ev.Source)
		}
		if ev.Time.Before(start.Now) {
			return nil, fmt.Errorf("%s: at %s, before the start %s", ev.Source, ev.Time.UTC().Format(time.RFC3339), start.Now.UTC().Format(time.RFC3339))
		}
		if ev.Time.After(last) {
			last = ev.Time
		}
	}
	s.until = opts.Until
	if s.until.IsZero() {
		s.until = last.Add(DefaultRunOn)
	}
	in := scheduling.Input{
		NodePools: start.NodePools, DaemonSets: start.DaemonSets, Namespaces: start.Namespaces,
		PersistentVolumeClaims: slices.Clip(start.PersistentVolumeClaims), PersistentVolumes: start.PersistentVolumes,
		StorageClasses: start.StorageClasses,
	}
	claims, err := s.statefulSetClaims()
	if err != nil {
		return nil, err
	}
	in.PersistentVolumeClaims = append(in.PersistentVolumeClaims, claims...)
	var deleting []*nodeRec // start nodes Karpenter was deleting or disrupting
	for _, n := range start.Nodes {
		if n == nil || n.Node == nil {
			return nil, fmt.Errorf("replay: a start node is nil")
		}
		en := &scheduling.ExistingNode{Node: n.Node, NodePool: n.NodePool, Initialized: n.Initialized, VolumeAttachLimits: n.VolumeAttachLimits}
		for _, p := range n.Pods {
			own := *p // the replay changes its pods' status as they move
			en.Pods = append(en.Pods, &own)
			if isDaemonOrMirror(&own) || isFinished(&own) {
				continue
			}
			s.addPod(&own, nil, n.Node.Name, podRunning)
		}
		in.ExistingNodes = append(in.ExistingNodes, en)
		rec := &nodeRec{
			NodeLife: NodeLife{Name: n.Node.Name, NodePool: n.NodePool, InstanceType: n.InstanceType, Zone: n.Zone,
				CapacityType: n.CapacityType, Price: n.Price, Launched: start.Now},
			created: n.Created, ready: n.Initialized, lastPodEvent: n.LastPodEvent, expireAfter: n.ExpireAfter,
			expireSet: n.ExpireAfterSet, consolidatable: n.Consolidatable, drifted: n.Drifted, nodeClassDrift: n.NodeClassDrift,
			fromStart: true,
		}
		if rec.created.IsZero() {
			rec.created = n.Node.CreationTimestamp.Time
		}
		if rec.lastPodEvent.IsZero() {
			rec.lastPodEvent = rec.created
		}
		s.addNode(rec)
		if !n.Initialized {
			s.schedule(step{at: start.Now.Add(opts.NodeStartup), kind: stepReady, name: rec.Name})
		}
		if n.Disrupting {
			deleting = append(deleting, rec)
		}
	}
	for _, p := range start.PendingPods {
		own := *p
		in.Pods = append(in.Pods, &own)
		s.addPod(&own, nil, "", podPending)
	}
	s.cluster, err = scheduling.Prepare(in)
	if err != nil {
		return nil, fmt.Errorf("replay: the start cluster: %w", err)
	}
	if len(in.Pods) > 0 {
		s.openBatch()
	}
	if err := s.drainStartNodesBeingDeleted(deleting); err != nil {
		return nil, err
	}
	s.record()
	return s, nil
}

// drainStartNodesBeingDeleted goes on with the start nodes Karpenter was deleting (a
// deletionTimestamp on the node or its NodeClaim) or disrupting (its karpenter.sh/disrupted
// taint) when the snapshot was taken, as its termination does: such a node takes no pods, its
// pods are planned elsewhere, and it drains from the start (reason "deleting"). Which command
// a disrupted taint belongs to, and whether its replacements are up, the snapshot does not
// say; Karpenter drains the node either way once they are.
func (s *sim) drainStartNodesBeingDeleted(nodes []*nodeRec) error {
	for _, n := range nodes {
		s.takeOut(n)
		if err := s.startDrain(n.Name, "deleting", false); err != nil {
			return fmt.Errorf("replay: the start cluster: %w", err)
		}
	}
	return nil
}

// statefulSetClaims makes every StatefulSet of the trace up to its largest replica count,
// keeping the pods for later, and returns the claims they need. The claims exist from the
// start (unbound, as a StatefulSet's claims outlive its pods), so the cluster is prepared
// with them once.
func (s *sim) statefulSetClaims() ([]*corev1.PersistentVolumeClaim, error) {
	most := map[string]int32{}
	first := map[string]Event{}
	var order []string
	for _, ev := range s.events {
		if ev.Kind != KindStatefulSet {
			continue
		}
		switch {
		case ev.Type == Create && ev.StatefulSet != nil:
			if _, ok := first[ev.Key]; !ok {
				first[ev.Key] = ev
				order = append(order, ev.Key)
			}
			most[ev.Key] = max(most[ev.Key], replicasOf(ev.StatefulSet.Spec.Replicas))
		case ev.Type == Scale:
			most[ev.Key] = max(most[ev.Key], ev.Replicas)
		}
	}
	var claims []*corev1.PersistentVolumeClaim
	for _, key := range order {
		ev := first[key]
		pods, pvcs, err := statefulSetPods(ev.StatefulSet, most[key], ev.Source)
		if err != nil {
			return nil, err
		}
		s.statefulPods[key] = pods
		claims = append(claims, pvcs...)
	}
	return claims, nil
}

func replicasOf(r *int32) int32 {
	if r == nil {
		return 1
	}
	return *r
}

func (s *sim) addNode(rec *nodeRec) {
	s.nodes[rec.Name] = rec
	s.names[rec.Name] = true
	s.lives = append(s.lives, rec)
	s.nodeSet++
}

// addPod records a pod; a pending one joins the cluster with the next flush.
func (s *sim) addPod(p *corev1.Pod, owner *workload, node string, phase podPhase) *podRec {
	r := &podRec{pod: p, key: p.Namespace + "/" + p.Name, owner: owner, created: s.now, phase: phase, node: node, since: s.now}
	s.pods[r.key] = r
	s.created++
	if phase == podRunning {
		s.running++
		s.markRunning(p, node)
	} else {
		s.pending++
		if node == "" {
			s.unplaced++
		}
	}
	return r
}

// createPod adds a new pending pod of a workload (or a bare one) to the cluster.
func (s *sim) createPod(p *corev1.Pod, owner *workload) *podRec {
	if old, ok := s.pods[p.Namespace+"/"+p.Name]; ok && old.phase <= podRunning {
		s.warnings = append(s.warnings, fmt.Sprintf("%s: pod %s exists already; not created again", s.now.UTC().Format(time.RFC3339), old.key))
		return nil
	}
	r := s.addPod(p, owner, "", podPending)
	s.change.AddPods = append(s.change.AddPods, p)
	s.openBatch()
	return r
}

// removePod takes a pod away for good: deleted (podDeleted) or succeeded (podFinished).
func (s *sim) removePod(r *podRec, phase podPhase) {
	if r.phase > podRunning {
		return
	}
	if r.phase == podRunning {
		s.running--
	} else {
		s.pending--
		if r.node == "" {
			s.unplaced--
		}
	}
	if i := slices.Index(s.change.AddPods, r.pod); i >= 0 {
		s.change.AddPods = slices.Delete(s.change.AddPods, i, i+1) // never reached the cluster
	} else {
		s.change.RemovePods = append(s.change.RemovePods, r.key)
	}
	if n := s.nodes[r.node]; n != nil && r.node != "" {
		n.lastPodEvent = s.now
	}
	r.phase, r.node = phase, ""
	if phase == podFinished {
		s.finished++
	} else {
		s.deleted++
	}
	s.retry = true
	s.touch()
	if r.owner != nil {
		r.owner.lost(s, r)
	}
}

// startRunning moves a pod placed on a ready node to running.
func (s *sim) startRunning(r *podRec, node string) {
	if r.phase != podPending {
		return
	}
	r.phase, r.node = podRunning, node
	s.pending--
	s.running++
	s.waits = append(s.waits, s.now.Sub(r.since).Seconds())
	s.markRunning(r.pod, node)
	if n := s.nodes[node]; n != nil {
		n.lastPodEvent = s.now
	}
	r.gen++
	if r.owner != nil && r.owner.kind == KindJob {
		s.schedule(step{at: s.now.Add(r.owner.runFor), kind: stepJobDone, name: r.key, gen: r.gen})
	}
}

// backToPending makes a running or nominated pod pending again (evicted, or its node lost).
func (s *sim) backToPending(r *podRec) {
	if r.phase == podRunning {
		s.running--
		s.pending++
	}
	if n := s.nodes[r.node]; n != nil {
		n.lastPodEvent = s.now
	}
	if r.node != "" {
		s.unplaced++
		s.decideMemo.PodsChangedInPlace(r.node)
	}
	r.phase, r.node, r.since = podPending, "", s.now
	r.pod.Spec.NodeName = ""
	r.pod.Status = corev1.PodStatus{Phase: corev1.PodPending}
	s.openBatch()
}

// markRunning gives a pod the status of one running on its node, as kubelet reports it: the
// disruption controller counts it healthy for PodDisruptionBudgets. The replay owns its
// pods (copies of the start's and of workload templates), so it changes them in place, and
// names the node to the Memo, which does not check the others' pods for such changes.
func (s *sim) markRunning(p *corev1.Pod, node string) {
	s.decideMemo.PodsChangedInPlace(node)
	p.Spec.NodeName = node
	if p.Status.Phase != corev1.PodRunning {
		p.Status = corev1.PodStatus{Phase: corev1.PodRunning}
	}
}

// flush commits the changes gathered since the last flush to the cluster. Steps gather
// their changes and only what reads the cluster flushes (provisioning, disruption, a drain,
// a node deleted, a NodePool updated), so a run of events costs one Apply.
func (s *sim) flush() error {
	c := s.change
	if len(c.AddPods) == 0 && len(c.RemovePods) == 0 && len(c.Evict) == 0 && len(c.RemoveNodes) == 0 && len(c.Cordon) == 0 && len(c.Initialize) == 0 {
		return nil
	}
	s.change = scheduling.Change{}
	if err := s.commit(c, scheduling.Plan{}); err != nil {
		return fmt.Errorf("replay at %s: %w", s.now.UTC().Format(time.RFC3339), err)
	}
	return nil
}

// commit applies a change and a plan to the cluster.
func (s *sim) commit(c scheduling.Change, plan scheduling.Plan) error {
	s.version++
	return s.cluster.Apply(c, plan)
}

// touch notes a change of the cluster: disruption looks again at its next tick.
func (s *sim) touch() {
	s.disruptDirty = true
	s.requestDisruption(s.now)
}

// clusterNode returns the cluster's node by name, nil when absent.
func (s *sim) clusterNode(name string) *scheduling.ExistingNode {
	return s.cluster.Node(name)
}

// record adds a timeline point when the node set or the pending count changed, and says
// whether it did.
func (s *sim) record() bool {
	if n := len(s.timeline); n > 0 {
		last := s.timeline[n-1]
		if s.lastSet == s.nodeSet && last.Pending == s.pending {
			return false
		}
		if last.Time.Equal(s.now) {
			s.timeline = s.timeline[:n-1]
		}
	}
	if s.lastSet != s.nodeSet || len(s.timeline) == 0 {
		// Only a change of the node set changes the count and the cost.
		s.liveNodes, s.liveCost = 0, 0
		for _, n := range s.lives {
			if !n.gone {
				s.liveNodes++
				s.liveCost += n.Price
			}
		}
		s.liveCost = roundCents(s.liveCost)
	}
	s.lastSet = s.nodeSet
	p := Point{Time: s.now, Pods: s.pending + s.running, Pending: s.pending, Nodes: s.liveNodes, HourlyCost: s.liveCost}
	s.timeline = append(s.timeline, p)
	return true
}

// roundCents keeps sums of prices free of float noise (to 1e-6 USD).
func roundCents(v float64) float64 {
	const unit = 1e6
	return float64(int64(v*unit+0.5)) / unit
}

func isDaemonOrMirror(p *corev1.Pod) bool {
	if _, mirror := p.Annotations[corev1.MirrorPodAnnotationKey]; mirror {
		return true
	}
	for _, r := range p.OwnerReferences {
		if r.Kind == "DaemonSet" || r.Kind == "Node" {
			return true
		}
	}
	return false
}

func isFinished(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}
