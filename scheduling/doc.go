// Package scheduling is nodeplan's provisioning solver: given pending pods, existing nodes,
// NodePools with their instance types and DaemonSets, Solve decides with Karpenter's semantics
// which pods go on existing nodes and which new nodes (instance type, zone, capacity type) to
// launch for the rest, packing them more cheaply than first-fit and reporting a cost lower bound.
// It is a pure function: no clients, clocks or randomness, the same input always gives the same
// Plan, and every pod ends placed or unschedulable with a reason naming the constraint.
//
//	plan, err := scheduling.Solve(scheduling.Input{
//		Pods:      pods,
//		NodePools: []*scheduling.NodePool{{Name: "default", InstanceTypes: catalog.InstanceTypes}},
//	})
//	if err != nil {
//		return err // unusable input, such as an invalid NodePool requirement
//	}
//	for _, nc := range plan.NodeClaims {
//		fmt.Println(nc.Name, nc.InstanceType, nc.Zone, nc.CapacityType, nc.Pods)
//	}
//	for _, u := range plan.Unschedulable {
//		fmt.Println(u.Pod, u.Constraint, u.Reason)
//	}
package scheduling
