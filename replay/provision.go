package replay

import (
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduling"
)

// openBatch notes a pod that became pending: provisioning runs once no other came for
// BatchIdle, or BatchMax after the batch's first pod.
func (s *sim) openBatch() {
	if !s.batchOpen {
		s.batchOpen, s.batchFirst = true, s.now
	}
	s.batchLast = s.now
	s.queueProvision()
}

func (s *sim) batchDue() (due bool, at step) {
	deadline := s.batchLast.Add(s.opts.BatchIdle)
	if limit := s.batchFirst.Add(s.opts.BatchMax); limit.Before(deadline) {
		deadline = limit
	}
	return !s.now.Before(deadline), step{at: deadline, kind: stepProvision}
}

func (s *sim) queueProvision() {
	if s.provisionQueued {
		return
	}
	_, st := s.batchDue()
	s.provisionQueued = true
	s.schedule(st)
}

// provision plans the pending pods on the cluster (nodes launching count as capacity),
// launches the plan's nodes and binds pods to ready nodes.
func (s *sim) provision() error {
	s.provisionQueued = false
	if due, st := s.batchDue(); s.batchOpen && !due {
		s.provisionQueued = true
		s.schedule(st) // a pod came since: wait until the batch is idle
		return nil
	}
	s.batchOpen, s.retry = false, false
	if err := s.flush(); err != nil {
		return err
	}
	if len(s.cluster.Input().Pods) == 0 {
		return nil
	}
	// The pods of nodes being disrupted are planned with the pending ones (Karpenter's
	// provisioner adds the reschedulable pods of nodes marked for deletion), so that the room
	// a command's replacements bring is theirs, and nodes are launched for those that will
	// find none. They stay where they run until their node drains.
	leaving := s.leavingPods()
	opts := s.opts.Scheduling
	// A replay reports what it launched, not what the least would cost, nor by workload.
	opts.SkipLowerBound, opts.SkipCostByWorkload = true, true
	plan, err := s.cluster.Simulate(scheduling.Change{Evict: leaving}, opts)
	if err != nil {
		return fmt.Errorf("replay: provisioning at %s: %w", stamp(s.now), err)
	}
	if len(leaving) > 0 {
		plan = pendingOnly(plan, leaving)
	}
	s.rename(plan.NodeClaims)
	if s.opts.Observe != nil {
		in := s.cluster.Input()
		s.opts.Observe(Observation{Time: s.now, Cluster: &in, Plan: &plan})
	}
	if err := s.commit(scheduling.Change{}, plan); err != nil {
		return fmt.Errorf("replay: provisioning at %s: %w", stamp(s.now), err)
	}
	var launched []string
	for _, nc := range plan.NodeClaims {
		s.launch(nc)
		launched = append(launched, nc.Name)
	}
	placed := 0
	for _, pl := range plan.Placements {
		r := s.pods[podKeyOf(pl.Pod.Namespace, pl.Pod.Name)]
		if r == nil {
			continue
		}
		if pl.Node == "" {
			continue
		}
		placed++
		node := pl.Node
		if pl.NodeClaim >= 0 {
			node = plan.NodeClaims[pl.NodeClaim].Name
		}
		if r.phase == podPending && r.node == "" {
			s.unplaced--
		}
		r.node, r.reason = node, ""
		if n := s.nodes[node]; n != nil && n.ready {
			s.startRunning(r, node)
		}
	}
	for _, u := range plan.Unschedulable {
		if r := s.pods[u.Pod]; r != nil {
			r.reason = u.Reason
		}
	}
	if len(launched) > 0 {
		s.decisions = append(s.decisions, Decision{Time: s.now, Kind: DecisionLaunch, Nodes: launched, Pods: placed})
	}
	return nil
}

// rename gives new nodes names no node of the replay had before (the solver only avoids the
// names of nodes present now), and their hostname label with it.
func (s *sim) rename(claims []scheduling.NodeClaim) {
	for i := range claims {
		nc := &claims[i]
		if !s.names[nc.Name] {
			s.names[nc.Name] = true
			continue
		}
		base := nc.NodePool
		if base == "" {
			base = strings.TrimRightFunc(nc.Name, func(r rune) bool { return r >= '0' && r <= '9' || r == '-' })
		}
		for k := len(s.lives) + 1; ; k++ {
			name := base + "-" + strconv.Itoa(k)
			if !s.names[name] {
				nc.Name = name
				s.names[name] = true
				break
			}
		}
		nc.Labels = maps.Clone(nc.Labels)
		if nc.Labels == nil {
			nc.Labels = map[string]string{}
		}
		nc.Labels[requirements.LabelHostname] = nc.Name
	}
}

// launch records a node the cluster just gained; it is ready NodeStartup later.
func (s *sim) launch(nc scheduling.NodeClaim) {
	rec := &nodeRec{
		NodeLife: NodeLife{Name: nc.Name, NodePool: nc.NodePool, InstanceType: nc.InstanceType, Zone: nc.Zone,
			CapacityType: nc.CapacityType, Price: nc.Price, Launched: s.now},
		created: s.now, lastPodEvent: s.now, expireSet: true,
	}
	if np := s.pool(nc.NodePool); np != nil {
		rec.expireAfter = np.ExpireAfter // stamped on the NodeClaim at launch
	}
	s.addNode(rec)
	s.schedule(step{at: s.now.Add(s.opts.NodeStartup), kind: stepReady, name: nc.Name})
}

func (s *sim) pool(name string) *scheduling.NodePool {
	for _, np := range s.pools {
		if np != nil && np.Name == name {
			return np
		}
	}
	return nil
}

// nodeReady initializes a node: the pods nominated to it run.
func (s *sim) nodeReady(name string) error {
	n := s.nodes[name]
	if n == nil || n.gone || n.ready {
		return nil
	}
	n.ready, n.lastPodEvent = true, s.now
	s.change.Initialize = append(s.change.Initialize, name)
	if en := s.clusterNode(name); en != nil {
		for _, p := range en.Pods {
			if r := s.pods[podKeyOf(p.Namespace, p.Name)]; r != nil && r.node == name {
				s.startRunning(r, name)
			}
		}
	}
	s.touch()
	return s.replacementsReady()
}

func podKeyOf(namespace, name string) string {
	if namespace == "" {
		namespace = "default"
	}
	return namespace + "/" + name
}

func stamp(t interface{ Format(string) string }) string { return t.Format("2006-01-02T15:04:05Z07:00") }
