package replay

import (
	"sort"
)

// result gathers the Result at the end of the run.
func (s *sim) result() Result {
	s.record()
	res := Result{Start: s.start, End: s.now, Timeline: s.timeline, Decisions: s.decisions, Warnings: s.warnings}
	sum := Summary{Terminated: map[string]int{}, Unschedulable: []Unschedulable{}, PodsEvicted: s.evicted, PendingSeconds: percentiles(s.waits)}
	for _, n := range s.lives {
		res.Nodes = append(res.Nodes, n.NodeLife)
		if !n.fromStart {
			sum.Launched++
		}
		if n.gone {
			sum.Terminated[n.Reason]++
		}
	}
	for _, p := range s.timeline {
		if p.Nodes > sum.PeakNodes {
			sum.PeakNodes = p.Nodes
		}
		if p.HourlyCost > sum.PeakHourlyCost {
			sum.PeakHourlyCost = p.HourlyCost
		}
	}
	sum.TotalCost = roundCents(Integral(s.timeline, s.now))
	for _, d := range s.decisions {
		switch d.Kind {
		case DecisionDisrupt:
			sum.Commands.Started++
		case DecisionAbandon:
			sum.Commands.Abandoned++
		}
	}
	keys := make([]string, 0, len(s.pods))
	for k, r := range s.pods {
		if r.phase == podPending {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		r := s.pods[k]
		reason := r.reason
		if reason == "" {
			reason = "waiting for its node to start"
			if r.node == "" {
				reason = "not yet planned"
			}
		}
		sum.Unschedulable = append(sum.Unschedulable, Unschedulable{Pod: k, Reason: reason})
	}
	sum.Pods = PodCounts{Created: s.created, Running: s.running, Pending: s.pending, Finished: s.finished, Deleted: s.deleted}
	res.Summary = sum
	return res
}
