package replay

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/scheduling"
)

// command is a disruption command under way: its replacements launching, then its
// candidates draining.
type command struct {
	reason       string
	candidates   []string
	replacements []string
}

// drain is a node being emptied: its pods evicted as PDBs allow, then the node deleted.
type drain struct {
	node   string
	reason string
	// force skips PDBs (a spot interruption: the instance goes regardless).
	force bool
	// goneAt is when the node is deleted once empty: the last eviction plus the longest
	// grace period of its evicted pods, at most deadline.
	goneAt time.Time
	// deadline is the drain's start plus its NodePool's terminationGracePeriod, zero when
	// the NodePool sets none: by then every pod is gone and so is the node.
	deadline time.Time
}

// requestDisruption queues a disruption tick at the first tick of the cadence at or after t.
func (s *sim) requestDisruption(t time.Time) {
	every := s.opts.DisruptionInterval
	ticks := (t.Sub(s.start) + every - 1) / every
	at := s.start.Add(ticks * every)
	if !s.disruptAt.IsZero() && !s.disruptAt.After(at) {
		return
	}
	s.disruptAt = at
	s.schedule(step{at: at, kind: stepDisrupt})
}

// disrupt runs disruption.Decide on the cluster as it is and starts its commands, or holds
// them for their validation when they are consolidation's (see hold). Nothing
// is decided when nothing changed and no node reached a time that matters since the last
// look; then the next such time is queued (a node's consolidateAfter or expiry, or a
// budget window opening or closing when Decide left a node it could act on).
func (s *sim) disrupt() error {
	if !s.disruptAt.Equal(s.now) {
		return nil // superseded by an earlier tick
	}
	s.disruptAt = time.Time{}
	after := s.resumeAfter // the pass goes on after a command that failed its validation
	s.resumeAfter = ""
	if !s.disruptDirty || s.held != nil {
		return nil // a command awaiting validation blocks the loop, which looks again after it
	}
	s.disruptDirty = false
	if err := s.flush(); err != nil {
		return err
	}
	if !s.anyEligible() {
		if next, ok := s.nextDeadline(); ok {
			s.disruptDirty = true
			s.requestDisruption(next)
		}
		return nil
	}
	in, err := s.decisionInput()
	if err != nil {
		return fmt.Errorf("replay: disruption at %s: %w", stamp(s.now), err)
	}
	in.After = after
	decisions, err := disruption.Decide(in)
	if err != nil {
		return fmt.Errorf("replay: disruption at %s: %w", stamp(s.now), err)
	}
	if s.opts.Observe != nil {
		s.opts.Observe(Observation{Time: s.now, Disruption: &in, Decisions: &decisions})
	}
	if consolidation(decisions.Commands) {
		s.hold(decisions.Commands)
	} else {
		for _, c := range decisions.Commands {
			if err := s.startCommand(c); err != nil {
				return err
			}
		}
	}
	drifting := false
	for _, c := range decisions.Commands {
		drifting = drifting || c.Method == disruption.MethodDrift
	}
	s.poolChanged = s.poolChanged && drifting
	if len(decisions.Commands) == 0 {
		// Some node could go but none did: besides the nodes' own times, a budget window
		// opening or closing can change Decide's answer with nothing else changing.
		next, ok := s.nextDeadline()
		if b, bok := s.nextBudgetChange(); bok && (!ok || b.Before(next)) {
			next, ok = b, true
		}
		if ok {
			s.disruptDirty = true
			s.requestDisruption(next)
		}
	}
	return nil
}

// nextBudgetChange is the next time after now a NodePool's scheduled disruption budget
// opens or closes.
func (s *sim) nextBudgetChange() (time.Time, bool) { return s.nextBudgetChangeAfter(s.now) }

// nextBudgetChangeAfter is the next time after after a NodePool's scheduled disruption budget
// opens or closes.
func (s *sim) nextBudgetChangeAfter(after time.Time) (time.Time, bool) {
	var next time.Time
	for _, np := range s.pools {
		if t, ok := disruption.NextBudgetChange(np, after); ok && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	return next, !next.IsZero()
}

// anyEligible reports whether Decide could act on some node now: a ready NodePool node not
// being disrupted that is drifted (or whose NodePool changed since Decide last looked),
// expired, or consolidatable (consolidateAfter passed since its last pod event; empty under
// WhenEmpty). Without one, Decide would only list every node as blocked, so it is not asked.
func (s *sim) anyEligible() bool {
	for _, n := range s.lives {
		if n.gone || !n.ready || n.disrupting || n.NodePool == "" {
			continue
		}
		np := s.pool(n.NodePool)
		if np == nil {
			continue
		}
		if n.drifted != "" || n.nodeClassDrift != "" || s.poolChanged {
			return true
		}
		expire := np.ExpireAfter
		if n.expireSet {
			expire = n.expireAfter
		}
		if expire != nil && !s.now.Before(n.created.Add(*expire)) {
			return true
		}
		consolidatable := false
		switch after := np.Disruption.ConsolidateAfter; {
		case n.consolidatable != nil:
			consolidatable = *n.consolidatable
		case after != nil:
			consolidatable = !s.now.Before(n.lastPodEvent.Add(*after))
		}
		if consolidatable && (np.Disruption.ConsolidationPolicy != scheduling.ConsolidationWhenEmpty || s.empty(n.Name)) {
			return true
		}
	}
	return false
}

// empty reports whether a node runs no pod other than DaemonSet and mirror pods.
func (s *sim) empty(name string) bool {
	en := s.clusterNode(name)
	if en == nil {
		return true
	}
	for _, p := range en.Pods {
		if !isDaemonOrMirror(p) && !isFinished(p) {
			return false
		}
	}
	return true
}

// nextDeadline is the next time after now a node becomes consolidatable or expires.
func (s *sim) nextDeadline() (time.Time, bool) {
	var next time.Time
	consider := func(t time.Time) {
		if t.After(s.now) && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	for _, n := range s.lives {
		if n.gone || !n.ready || n.disrupting || n.NodePool == "" {
			continue
		}
		np := s.pool(n.NodePool)
		if np == nil {
			continue
		}
		if after := np.Disruption.ConsolidateAfter; after != nil && n.consolidatable == nil {
			consider(n.lastPodEvent.Add(*after))
		}
		expire := np.ExpireAfter
		if n.expireSet {
			expire = n.expireAfter
		}
		if expire != nil {
			consider(n.created.Add(*expire))
		}
	}
	return next, !next.IsZero()
}

// decisionInput is disruptionInput with what every decision and validation shares: the
// NodePools, prepared once (Decide would prepare them over the whole catalog every 10 s; they
// change only with a NodePool update), and the Memo.
func (s *sim) decisionInput() (disruption.Input, error) {
	in := s.disruptionInput()
	if s.decidePools == nil {
		pools, err := disruption.PreparePools(in)
		if err != nil {
			return disruption.Input{}, err
		}
		s.decidePools = pools
	}
	in.Pools, in.Memo = s.decidePools, &s.decideMemo
	return in, nil
}

func (s *sim) disruptionInput() disruption.Input {
	in := s.cluster.Input()
	out := disruption.Input{
		NodePools: s.pools, PodDisruptionBudgets: s.base.PodDisruptionBudgets, PendingPods: in.Pods,
		DaemonSets: in.DaemonSets, Namespaces: in.Namespaces, PersistentVolumeClaims: in.PersistentVolumeClaims,
		PersistentVolumes: in.PersistentVolumes, StorageClasses: in.StorageClasses, Now: s.now,
		CommandsOnly:       true, // the replay runs the commands; nobody reads why the other nodes stay
		KarpenterMultiNode: !s.opts.NodeplanMultiNode,
	}
	// Decide keeps nothing of its input's Nodes, so their arrays serve every decision (at ten
	// times the pods they were 6% of what a replay allocated).
	if cap(s.nodeBuf) < len(in.ExistingNodes) {
		s.nodeBuf = make([]disruption.Node, 0, len(in.ExistingNodes)+len(in.ExistingNodes)/4)
		s.nodePtrs = make([]*disruption.Node, 0, cap(s.nodeBuf))
	}
	nodes := s.nodeBuf[:0]
	out.Nodes = s.nodePtrs[:0]
	for _, en := range in.ExistingNodes {
		n := s.nodes[en.Node.Name]
		if n == nil {
			continue
		}
		nodes = append(nodes, disruption.Node{
			Node: en.Node, Pods: en.Pods, NodePool: n.NodePool, InstanceType: n.InstanceType, Zone: n.Zone,
			CapacityType: n.CapacityType, Price: n.Price, Created: n.created, LastPodEvent: n.lastPodEvent,
			Initialized: n.ready, Consolidatable: n.consolidatable, ExpireAfter: n.expireAfter, ExpireAfterSet: n.expireSet,
			Drifted: n.drifted, NodeClassDrift: n.nodeClassDrift, Disrupting: n.disrupting, VolumeAttachLimits: en.VolumeAttachLimits,
		})
		out.Nodes = append(out.Nodes, &nodes[len(nodes)-1])
	}
	return out
}

// reasons maps a budget reason to the reason a node is deleted for.
var reasons = map[string]string{
	scheduling.ReasonEmpty: "empty", scheduling.ReasonUnderutilized: "underutilized",
	scheduling.ReasonDrifted: "drift", scheduling.ReasonExpired: "expiration",
}

// startCommand cordons the candidates and launches the replacements; the candidates drain
// once every replacement is ready.
func (s *sim) startCommand(c disruption.Command) error {
	cmd := &command{reason: reasons[c.Reason]}
	if cmd.reason == "" {
		cmd.reason = strings.ToLower(c.Reason)
	}
	for _, cand := range c.Candidates {
		n := s.nodes[cand.Node]
		if n == nil || n.gone || n.disrupting {
			continue
		}
		s.takeOut(n)
		cmd.candidates = append(cmd.candidates, cand.Node)
	}
	if len(cmd.candidates) == 0 {
		return nil
	}
	if err := s.flush(); err != nil {
		return err
	}
	replacements := slices.Clone(c.Replacements)
	for i := range replacements {
		replacements[i].Pods = nil // evicted pods are placed when they are pending
	}
	s.rename(replacements)
	if len(replacements) > 0 {
		if err := s.commit(scheduling.Change{}, scheduling.Plan{NodeClaims: replacements}); err != nil {
			return fmt.Errorf("replay: replacements at %s: %w", stamp(s.now), err)
		}
		for _, nc := range replacements {
			s.launch(nc)
			cmd.replacements = append(cmd.replacements, nc.Name)
		}
	}
	s.decisions = append(s.decisions, Decision{Time: s.now, Kind: DecisionDisrupt, Method: c.Method, Reason: cmd.reason,
		Nodes: cmd.candidates, Replacements: cmd.replacements, Pods: len(c.Evictions), Savings: c.Savings})
	s.waiting = append(s.waiting, cmd)
	return s.replacementsReady()
}

// replacementsReady starts the drains of commands whose replacements are all ready.
func (s *sim) replacementsReady() error {
	keep := s.waiting[:0]
	var start []*command
	for _, cmd := range s.waiting {
		ready := true
		for _, r := range cmd.replacements {
			if n := s.nodes[r]; n != nil && !n.gone && !n.ready {
				ready = false
			}
		}
		if ready {
			start = append(start, cmd)
		} else {
			keep = append(keep, cmd)
		}
	}
	s.waiting = keep
	for _, cmd := range start {
		for _, name := range cmd.candidates {
			if err := s.startDrain(name, cmd.reason, false); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *sim) startDrain(name, reason string, force bool) error {
	if _, ok := s.drains[name]; ok {
		return nil
	}
	d := &drain{node: name, reason: reason, force: force, goneAt: s.now}
	if n := s.nodes[name]; n != nil && !force {
		if np := s.pool(n.NodePool); np != nil && np.TerminationGracePeriod != nil {
			d.deadline = s.now.Add(*np.TerminationGracePeriod)
		}
	}
	s.drains[name] = d
	return s.drainStep(name)
}

// drainStep evicts what it may from a draining node, and deletes the node once it is empty
// and its pods' grace periods are over; else it looks again after DisruptionInterval, or
// sooner when the NodePool's terminationGracePeriod makes a pod's deletion due.
//
// As Karpenter's terminator does, an eviction skips do-not-disrupt pods and asks the
// PodDisruptionBudgets (a spot interruption asks nothing). With a terminationGracePeriod,
// a pod still there at deadline minus its own grace period is deleted whatever blocks it,
// with its grace period clipped to what is left until the deadline; the node goes at the
// deadline at the latest.
func (s *sim) drainStep(name string) error {
	d := s.drains[name]
	if d == nil {
		return nil
	}
	if err := s.flush(); err != nil {
		return err
	}
	en := s.clusterNode(name)
	if en == nil {
		delete(s.drains, name)
		return nil
	}
	var movable []*podRec
	for _, p := range en.Pods {
		if r := s.pods[podKeyOf(p.Namespace, p.Name)]; r != nil && r.phase <= podRunning && r.node == name {
			movable = append(movable, r)
		}
	}
	sort.Slice(movable, func(i, j int) bool { return movable[i].key < movable[j].key })
	allowed := movable
	if !d.force {
		allowed = s.evictable(slices.DeleteFunc(slices.Clone(movable), func(r *podRec) bool {
			return r.pod.Annotations[disruption.AnnotationDoNotDisrupt] == "true"
		}))
	}
	remaining := len(movable) - len(allowed)
	for _, r := range allowed {
		s.removeDrained(d, r, podGrace(r))
	}
	// nextDeletion is when the terminationGracePeriod next makes a blocked pod's deletion due.
	var nextDeletion time.Time
	if !d.deadline.IsZero() && remaining > 0 {
		evicted := make(map[*podRec]bool, len(allowed))
		for _, r := range allowed {
			evicted[r] = true
		}
		for _, r := range movable {
			if evicted[r] {
				continue
			}
			grace := podGrace(r)
			if due := d.deadline.Add(-grace); due.After(s.now) {
				if nextDeletion.IsZero() || due.Before(nextDeletion) {
					nextDeletion = due
				}
				continue
			}
			s.removeDrained(d, r, max(0, min(grace, d.deadline.Sub(s.now))))
			remaining--
		}
	}
	if remaining > 0 {
		next := s.now.Add(s.opts.DisruptionInterval)
		if !nextDeletion.IsZero() && nextDeletion.Before(next) {
			next = nextDeletion
		}
		s.schedule(step{at: next, kind: stepDrain, name: name})
		return nil
	}
	if d.force && d.goneAt.Before(s.now.Add(spotNotice)) {
		d.goneAt = s.now.Add(spotNotice)
	}
	at := d.goneAt
	if at.Before(s.now) {
		at = s.now
	}
	s.schedule(step{at: at, kind: stepNodeGone, name: name})
	return nil
}

// removeDrained takes a pod off a draining node (evicted, or deleted by the
// terminationGracePeriod): it is pending again at once, and the node stays until the pod's
// grace period is over, at most until the drain's deadline.
func (s *sim) removeDrained(d *drain, r *podRec, grace time.Duration) {
	s.change.Evict = append(s.change.Evict, r.key)
	if t := s.now.Add(grace); t.After(d.goneAt) {
		d.goneAt = t
	}
	if !d.deadline.IsZero() && d.goneAt.After(d.deadline) {
		d.goneAt = d.deadline
	}
	s.backToPending(r)
	s.evicted++
}

// podGrace is a pod's terminationGracePeriodSeconds (30 s when it gives none).
func podGrace(r *podRec) time.Duration {
	if g := r.pod.Spec.TerminationGracePeriodSeconds; g != nil {
		return time.Duration(*g) * time.Second
	}
	return defaultGracePeriod
}

// nodeGone deletes a drained node.
func (s *sim) nodeGone(name string) error {
	d := s.drains[name]
	delete(s.drains, name)
	reason := ""
	if d != nil {
		reason = d.reason
	}
	return s.deleteNode(name, reason)
}

// deleteNode takes a node out of the cluster; pods still on it are pending again.
func (s *sim) deleteNode(name, reason string) error {
	n := s.nodes[name]
	if n == nil || n.gone {
		return nil
	}
	if err := s.flush(); err != nil {
		return err
	}
	if en := s.clusterNode(name); en != nil {
		for _, p := range en.Pods {
			if r := s.pods[podKeyOf(p.Namespace, p.Name)]; r != nil && r.phase <= podRunning && r.node == name {
				s.backToPending(r)
			}
		}
	}
	s.change.RemoveNodes = append(s.change.RemoveNodes, name)
	n.gone, n.Deleted, n.Reason = true, s.now, reason
	if i := slices.Index(s.leaving, name); i >= 0 {
		s.leaving = slices.Delete(s.leaving, i, i+1)
	}
	s.nodeSet++
	s.decisions = append(s.decisions, Decision{Time: s.now, Kind: DecisionDelete, Reason: reason, Nodes: []string{name}})
	s.touch()
	return s.replacementsReady()
}

// nodeEvent is a spot interruption (drained now, gone after the notice) or a node failure
// (gone now).
func (s *sim) nodeEvent(ev Event) error {
	n := s.nodes[ev.Key]
	if n == nil || n.gone {
		s.warn(ev, "node %s is not in the cluster at %s; ignored", ev.Key, stamp(s.now))
		return nil
	}
	if ev.Type == Fail {
		s.decisions = append(s.decisions, Decision{Time: s.now, Kind: DecisionFail, Nodes: []string{ev.Key}})
		delete(s.drains, ev.Key)
		return s.deleteNode(ev.Key, "failure")
	}
	s.decisions = append(s.decisions, Decision{Time: s.now, Kind: DecisionInterrupt, Nodes: []string{ev.Key}})
	if n.disrupting {
		s.markLeaving(ev.Key)
	} else {
		s.takeOut(n)
	}
	if d := s.drains[ev.Key]; d != nil {
		d.force, d.reason = true, "interruption"
		return s.drainStep(ev.Key)
	}
	return s.startDrain(ev.Key, "interruption", true)
}

// updateNodePool replaces a NodePool; it keeps the instance types it had (its node class is
// unchanged), and the cluster is prepared again with it. Nodes it no longer describes are
// drifted, as Decide finds.
func (s *sim) updateNodePool(ev Event) error {
	i := slices.IndexFunc(s.pools, func(np *scheduling.NodePool) bool { return np != nil && np.Name == ev.Key })
	if i < 0 {
		return fmt.Errorf("%s: NodePool %s is not in the start cluster; a replay cannot price a new NodePool's nodes", ev.Source, ev.Key)
	}
	updated := *ev.NodePool
	updated.InstanceTypes = s.pools[i].InstanceTypes
	s.pools = slices.Clone(s.pools)
	s.pools[i] = &updated
	s.decidePools = nil
	if err := s.flush(); err != nil {
		return err
	}
	in := s.cluster.Input()
	in.NodePools = s.pools
	c, err := scheduling.Prepare(in)
	if err != nil {
		return fmt.Errorf("%s: %w", ev.Source, err)
	}
	s.cluster = c
	s.poolChanged = true
	s.touch()
	if len(in.Pods) > 0 {
		s.openBatch()
	}
	return nil
}
