// Package limits keeps account of a NodePool's limits (spec.limits) during one plan: the
// capacity per resource and the number of nodes the NodePool may still launch. Left starts
// from the limits, takes the existing nodes, and then every node the plan opens holds the
// largest capacity it could still launch as, as Karpenter does; Fits and FitsWith say whether
// one more node fits, and Exhausted, Taken and Capacity say so in words for explanations.
//
//	left, err := limits.New(np.Limits, dims)
//	for _, n := range existingNodes {
//		left.Take(n.Capacity)
//	}
//	if !left.Fits(capacity) {
//		return fmt.Errorf("limits reached (%s)", left.Exhausted())
//	}
//	left.Take(capacity)
package limits
