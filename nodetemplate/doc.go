// Package nodetemplate prepares a NodePool for launching nodes, what Karpenter's scheduler
// calls a NodeClaimTemplate: a Template holds the NodePool's requirement set (requirements,
// template labels and name), the instance types it can launch as Options (each with the room a
// pod can use once the pool's DaemonSets have theirs, cheapest first), their index, the daemon
// host ports, minValues rules, reserved offerings and the Memos every solve over it shares. A
// Template is prepared once and only read after (its memos aside, which never change an
// answer); what one solve keeps of a NodePool, such as the limits it has left, is the solver's.
// A Set is NodePools prepared together for many solves.
//
//	dims := resources.NewDims()
//	daemons := daemonset.Templates(daemonSets, dims)
//	templates, err := nodetemplate.Prepare(nodePools, dims, daemons) // highest weight first
//	if err != nil {
//		return err // an invalid NodePool
//	}
//	for _, t := range templates {
//		if c, ok := nodetemplate.Cheapest(t.Allowing(nodeReqs, &scratch), nodeReqs); ok {
//			fmt.Println(t.NodePool.Name, c.Option.InstanceType.Name, c.Offering.Zone, c.Offering.Price)
//		}
//	}
package nodetemplate
