package scheduling

import (
	"fmt"
	"sort"

	"github.com/nodeplan/nodeplan/internal/skipset"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

// The karpenter strategy: the solver's checks (resources, requirements, taints, ports,
// volumes, limits, topology) placed in the order Karpenter's provisioning scheduler
// (kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling) makes its decisions:
//
//   - queue: cpu, then memory, descending; then creation time, UID and name (queue.go);
//   - a pod that fails gives up its preferences one at a time at once, in Karpenter's order
//     (preferences.go); if it still fails it goes to the back of the queue with all of them
//     back, and the queue stops once it has gone round without placing a pod;
//   - each attempt tries existing nodes, then the nodes opened in this plan sorted by how
//     few pods they hold (a sort redone before every attempt, as Karpenter's), then a new
//     node from the NodePools by weight;
//   - a new node keeps every instance type that fits its pods (no growth rule) and launches
//     its cheapest compatible offering; nothing is repacked.

// karpenterState is the solver's state under StrategyKarpenter.
type karpenterState struct {
	// inflight holds the indices of s.nodes in the order Karpenter keeps its new NodeClaims:
	// appended once opened, re-sorted by pod count before each attempt.
	inflight []int
	// alternatives keeps each pod's required node-affinity terms (OR'ed, each with the node
	// selector): Karpenter uses the first and relaxes by dropping it.
	alternatives map[*podInfo][]requirements.Requirements
	// dropped counts the terms dropped per pod.
	dropped map[*podInfo]int
}

func newKarpenterState(pods []*podInfo) *karpenterState {
	k := &karpenterState{alternatives: map[*podInfo][]requirements.Requirements{}, dropped: map[*podInfo]int{}}
	for _, p := range pods {
		k.alternatives[p] = p.alternatives
		k.useAlternative(p, 0)
		p.topo.OrderAsKarpenter()
	}
	return k
}

// useAlternative puts the pod's i-th required node-affinity term in force.
func (k *karpenterState) useAlternative(p *podInfo, i int) {
	all := k.alternatives[p]
	k.dropped[p] = i
	if len(all) > 1 {
		p.alternatives = all[i : i+1]
	}
	p.effectiveCache = nil
}

// sortPodsKarpenter orders the queue as Karpenter's byCPUAndMemoryDescending: cpu, then
// memory, descending; then older first, then by UID (then by name, for pods without one).
func sortPodsKarpenter(pods []*podInfo) {
	sort.SliceStable(pods, func(i, j int) bool {
		a, b := pods[i], pods[j]
		if c := compareSizes(queueSize(a), queueSize(b)); c != 0 {
			return c < 0
		}
		ta, tb := a.pod.CreationTimestamp, b.pod.CreationTimestamp
		if !ta.Equal(&tb) {
			return ta.Before(&tb)
		}
		if a.pod.UID != b.pod.UID {
			return a.pod.UID < b.pod.UID
		}
		return a.key < b.key
	})
}

// scheduleKarpenter runs Karpenter's queue over pods and returns those it could not place,
// fully relaxed (so that their explanation names what was given up). When the queue stalls,
// the solver's topology loosening (see topology.State.Loosen) gets its turn, as under the
// cheapest strategy, and the queue runs again.
func (s *solver) scheduleKarpenter(pods []*podInfo) []*podInfo {
	queue := pods
	for {
		failed := s.karpenterQueue(queue)
		if len(failed) == 0 || !s.loosen(failed) {
			for _, p := range failed {
				for s.relaxKarpenter(p) {
				}
			}
			return failed
		}
		queue = failed
	}
}

// karpenterQueue is Karpenter's Solve loop (scheduler.go, queue.go).
func (s *solver) karpenterQueue(pods []*podInfo) []*podInfo {
	queue := append([]*podInfo(nil), pods...)
	pushedAt := map[*podInfo]int{}
	for len(queue) > 0 {
		p := queue[0]
		if pushedAt[p] == len(queue) {
			break // a whole round without progress
		}
		queue = queue[1:]
		if s.tryKarpenter(p) {
			continue
		}
		s.unrelaxKarpenter(p)
		queue = append(queue, p)
		pushedAt[p] = len(queue)
	}
	return queue
}

// tryKarpenter places p, relaxing one preference after each failure (trySchedule).
func (s *solver) tryKarpenter(p *podInfo) bool {
	for {
		if !s.place(p, false).failed() {
			return true
		}
		if !s.relaxKarpenter(p) {
			return false
		}
		if p.trace != nil {
			p.trace.note("relaxed %s", p.relaxations[len(p.relaxations)-1])
		}
	}
}

// relaxKarpenter gives up one preference in Karpenter's order (preferences.go Relax): a
// required node-affinity term when another remains, preferred pod affinity, preferred pod
// anti-affinity, preferred node affinity, ScheduleAnyway spread, then PreferNoSchedule taints.
func (s *solver) relaxKarpenter(p *podInfo) bool {
	k := s.karpenter
	if all, i := k.alternatives[p], k.dropped[p]; i+1 < len(all) {
		p.relaxations = append(p.relaxations, fmt.Sprintf("required node affinity term %s", all[i]))
		k.useAlternative(p, i+1)
		return true
	}
	soft := p.topo.Soft()
	if p.topo.Relaxed < len(soft) && soft[p.topo.Relaxed].Group.Kind != topology.Spread {
		p.relaxations = append(p.relaxations, "preferred "+soft[p.topo.Relaxed].Group.Describe())
		p.topo.Relaxed++
		return true
	}
	if p.prefIndex < len(p.preferences) {
		p.relaxations = append(p.relaxations, fmt.Sprintf("preferred node affinity (weight %d) %s", p.preferences[p.prefIndex].Weight, p.preferences[p.prefIndex].Requirements))
		p.prefIndex++
		return true
	}
	return p.relax(s.softTaints) // ScheduleAnyway spread, then PreferNoSchedule taints
}

// unrelaxKarpenter gives a pod that failed all its preferences back, as Karpenter requeues
// the original pod rather than its relaxed copy.
func (s *solver) unrelaxKarpenter(p *podInfo) {
	s.karpenter.useAlternative(p, 0)
	p.prefIndex = 0
	p.topo.Relaxed = 0
	p.relaxations = nil
	p.tolerateSoft = s.opts.PreferencePolicy == PreferencesIgnore
	p.effectiveCache = nil
}

// eachInflight tries the nodes opened in this plan as Karpenter does: sorted by how many pods
// they hold, fewest first (sort.Slice, as Karpenter, so that equal counts fall in the same
// order), the first that takes the pod wins. skip, when set, rules nodes out up front.
func (s *solver) eachInflight(p *podInfo, skip *skipset.Set, try func(i int) bool) bool {
	// Nodes opened since the last attempt (and a static NodePool's nodes) join at the end.
	for i := len(s.karpenter.inflight); i < len(s.nodes); i++ {
		s.karpenter.inflight = append(s.karpenter.inflight, i)
	}
	order := s.karpenter.inflight
	sort.Slice(order, func(a, b int) bool { return len(s.nodes[order[a]].pods) < len(s.nodes[order[b]].pods) })
	for _, i := range order {
		if skip != nil && skip.Find(i) != i {
			continue
		}
		if p.requests.Fits(s.newFree.Free(i)) && try(i) {
			return true
		}
	}
	return false
}

// startKarpenter sets the solver up for StrategyKarpenter once the pods are known.
func (s *solver) startKarpenter(pods []*podInfo) {
	s.karpenter = newKarpenterState(pods)
	sortPodsKarpenter(pods)
	s.topology.AsKarpenter()
}

// run places pods by the strategy's rules and returns those left unplaced.
func (s *solver) run(pods []*podInfo) []*podInfo {
	if s.karpenter != nil {
		return s.scheduleKarpenter(pods)
	}
	return s.schedule(pods)
}
