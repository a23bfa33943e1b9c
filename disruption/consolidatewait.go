package disruption

import (
	"fmt"
	"time"

	"github.com/nodeplan/nodeplan/scheduling"
)

// consolidationWait is what keeps a node from consolidation now: its NodePool, its
// consolidateAfter, or a v1alpha5 Provisioner's ttlSecondsAfterEmpty; waitNone when nothing
// does. Every decision finds it for every node, but words it (describeWait) only for the nodes
// it explains: a replay decides thousands of times, and wording the wait of every node that
// saw a pod event lately took 2% of its time.
type consolidationWait uint8

const (
	waitNone consolidationWait = iota
	// waitStatic: the NodePool is static (spec.replicas).
	waitStatic
	// waitNever: consolidateAfter is Never.
	waitNever
	// waitNotConsolidatable: the NodeClaim's Consolidatable condition is false.
	waitNotConsolidatable
	// waitEventAfterNow: the last pod event is after now.
	waitEventAfterNow
	// waitConsolidateAfter: consolidateAfter has not passed since the last pod event.
	waitConsolidateAfter
	// waitUnmarkedEmpty: the node is empty but has no emptiness mark yet (v1alpha5).
	waitUnmarkedEmpty
	// waitEmptyTTL: ttlSecondsAfterEmpty has not passed since the mark (v1alpha5).
	waitEmptyTTL
)

// consolidationWaitOf finds what keeps the node from consolidation now.
func (d *decider) consolidationWaitOf(n *nodeState) consolidationWait {
	if n.pool.Replicas != nil {
		return waitStatic
	}
	after := n.pool.Disruption.ConsolidateAfter
	if after == nil {
		return waitNever
	}
	if n.in.V1alpha5 && n.pool.Disruption.ConsolidationPolicy == scheduling.ConsolidationWhenEmpty {
		// The node goes ttlSecondsAfterEmpty after Karpenter marked it empty
		// (karpenter.sh/emptiness-timestamp). An empty node without the mark is being marked
		// now, so its wait starts now; a node with pods is left to underutilizedBlock.
		switch marked := n.in.EmptinessTimestamp; {
		case !n.empty():
			return waitNone
		case marked.IsZero():
			return waitUnmarkedEmpty
		case d.now.Sub(marked) < *after:
			return waitEmptyTTL
		}
		return waitNone
	}
	if c := n.in.Consolidatable; c != nil {
		if !*c {
			return waitNotConsolidatable
		}
		return waitNone
	}
	last := lastPodEvent(n)
	if last.IsZero() {
		return waitNone
	}
	if since := d.now.Sub(last); since < 0 {
		return waitEventAfterNow
	} else if since < *after {
		return waitConsolidateAfter
	}
	return waitNone
}

// lastPodEvent is when a pod last came to the node or left it, its creation when not given.
func lastPodEvent(n *nodeState) time.Time {
	if last := n.in.LastPodEvent; !last.IsZero() {
		return last
	}
	return n.created
}

// describeWait says why the node's consolidation waits (n.consolidation, not waitNone).
func (d *decider) describeWait(n *nodeState) string {
	after := n.pool.Disruption.ConsolidateAfter
	switch n.consolidation {
	case waitStatic:
		return fmt.Sprintf("NodePool %s is static (replicas %d): its nodes are never consolidated (drift and expiration still replace them)", n.poolName, *n.pool.Replicas)
	case waitNever:
		return fmt.Sprintf("NodePool %s has consolidateAfter: Never, so its nodes are not consolidated", n.poolName)
	case waitUnmarkedEmpty:
		return fmt.Sprintf("the node is empty but has no karpenter.sh/emptiness-timestamp yet: Karpenter marks it now and deletes it ttlSecondsAfterEmpty (%s) later", humanDuration(*after))
	case waitEmptyTTL:
		marked := n.in.EmptinessTimestamp
		return fmt.Sprintf("ttlSecondsAfterEmpty (%s) has not passed since Karpenter marked the node empty (karpenter.sh/emptiness-timestamp %s, %s ago)", humanDuration(*after), marked.UTC().Format(time.RFC3339), humanDuration(max(d.now.Sub(marked), 0)))
	case waitNotConsolidatable:
		return fmt.Sprintf("its NodeClaim is not Consolidatable yet (consolidateAfter %s has not passed since the last pod event)", after)
	case waitEventAfterNow:
		return fmt.Sprintf("the last pod event (%s) is after now (%s): consolidateAfter %s cannot have passed", lastPodEvent(n).UTC().Format(time.RFC3339), d.now.UTC().Format(time.RFC3339), after)
	case waitConsolidateAfter:
		return fmt.Sprintf("consolidateAfter %s has not passed since the last pod event (%s ago)", after, humanDuration(d.now.Sub(lastPodEvent(n))))
	}
	return ""
}
