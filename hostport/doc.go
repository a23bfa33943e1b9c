// Package hostport holds the host ports a pod binds on its node and when two of them clash,
// kube-scheduler's NodePorts rule: the same port and protocol on the same address, or on any
// address when either binds them all (0.0.0.0, ::, or none given).
//
//	used := hostport.OfPod(daemonPod)
//	if p, clash := hostport.FirstConflict(used, hostport.OfPod(pod)); clash {
//		fmt.Printf("host port %d/%s is taken\n", p.Port, p.Protocol)
//	}
//
// Taken marks the nodes of a plan where a pod binds a port on every address, so that later
// pods needing the port skip them (Skip) without checking each.
package hostport
