package check

import (
	"fmt"
	"maps"
	"math"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/scheduling"
)

// accounting checks that every input pod appears exactly once across the plan's new nodes,
// existing nodes and unschedulable list, that the plan names no pod or existing node the input
// does not have, that new node names are unique, and that the summary agrees.
func accounting(in scheduling.Input, plan scheduling.Plan) []Failure {
	var out []Failure
	fail := func(pod, node, format string, args ...any) {
		out = append(out, Failure{Pod: pod, Node: node, Plugin: Accounting, Reason: fmt.Sprintf(format, args...)})
	}

	given := map[string]int{}
	for _, p := range in.Pods {
		given[podKey(p)]++
	}
	seen := map[string][]string{} // pod -> where the plan puts it
	placed := 0
	existing := map[string]bool{}
	for _, en := range in.ExistingNodes {
		if en != nil && en.Node != nil {
			existing[en.Node.Name] = true
		}
	}
	claimNames := map[string]bool{}
	var cost float64
	for _, nc := range plan.NodeClaims {
		if claimNames[nc.Name] {
			fail("", nc.Name, "two NodeClaims are named %s", nc.Name)
		}
		if existing[nc.Name] {
			fail("", nc.Name, "NodeClaim %s has the name of an existing node", nc.Name)
		}
		claimNames[nc.Name] = true
		cost += nc.Price
		for _, k := range nc.Pods {
			seen[k] = append(seen[k], "new node "+nc.Name)
			placed++
		}
	}
	for _, e := range plan.ExistingNodes {
		if !existing[e.Name] {
			fail("", e.Name, "the plan places pods on %s, which is not an existing node", e.Name)
		}
		for _, k := range e.Pods {
			seen[k] = append(seen[k], "existing node "+e.Name)
			placed++
		}
	}
	for _, u := range plan.Unschedulable {
		seen[u.Pod] = append(seen[u.Pod], "unschedulable")
		if u.Reason == "" || u.Constraint == "" {
			fail(u.Pod, "", "unschedulable without a reason or constraint")
		}
	}

	for _, k := range slices.Sorted(maps.Keys(given)) {
		if n, where := given[k], seen[k]; len(where) != n {
			fail(k, "", "given %d time(s), in the plan %d time(s) %v", n, len(where), where)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(seen)) {
		if given[k] == 0 {
			fail(k, "", "in the plan (%v) but not in the input", seen[k])
		}
	}

	s := plan.Summary
	if s.Pods != len(in.Pods) {
		fail("", "", "summary.pods is %d, the input has %d pending pods", s.Pods, len(in.Pods))
	}
	if s.Placed != placed {
		fail("", "", "summary.placed is %d, the plan places %d pods", s.Placed, placed)
	}
	if s.NewNodes != len(plan.NodeClaims) {
		fail("", "", "summary.newNodes is %d, the plan has %d NodeClaims", s.NewNodes, len(plan.NodeClaims))
	}
	if math.Abs(s.HourlyCost-cost) > 1e-6*math.Max(1, cost) {
		fail("", "", "summary.hourlyCost is %g, the NodeClaims' prices add up to %g", s.HourlyCost, cost)
	}
	return out
}

func podKey(p *corev1.Pod) string {
	ns := p.Namespace
	if ns == "" {
		ns = corev1.NamespaceDefault
	}
	return ns + "/" + p.Name
}
