// Package daemonset prepares DaemonSets for planning: each pod template once, with what its
// pod requests of a node, the node requirements it accepts and the host ports it binds, and
// says whether it runs on a node (a new node's taints and requirements, or an existing
// node's taints and labels). A node a plan launches carries the pods of every DaemonSet that
// runs on it, so their room and ports count before any pending pod's.
//
//	daemons := daemonset.Templates(in.DaemonSets, dims)
//	for _, d := range daemons {
//		if d.RunsOn(nodePool.Taints, nodeRequirements, nil) {
//			room.Sub(d.Requests)
//		}
//	}
package daemonset
