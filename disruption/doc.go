// Package disruption decides which running nodes to delete or replace, the way Karpenter's
// disruption controller does (emptiness, expiration, drift, multi- and single-node
// consolidation), within NodePool budgets, PodDisruptionBudgets and do-not-disrupt, and says
// why every other node stays.
//
// Decide is a pure function of its Input: it reads no clock (Now is an input) and simulates
// every removal on a scheduling.Cluster prepared once per decision, so evicted pods keep
// their constraints.
//
//	decisions, err := disruption.Decide(disruption.Input{Nodes: nodes, NodePools: pools, Now: now})
//	for _, cmd := range decisions.Commands {
//		fmt.Println(cmd.Method, cmd.Action, cmd.Candidates, cmd.Savings)
//	}
//
// A caller deciding again and again over the same NodePools, as a replay does every 10 s,
// prepares them once and passes them along; Decide prepares them itself when they are not
// the input's, so the decisions are the same either way:
//
//	pools, err := disruption.PreparePools(in)
//	in.Pools = pools
//	decisions, err := disruption.Decide(in)
//
// It also keeps one Memo for all its decisions: a decision on a cluster the last one saw
// unchanged (only the time moved on) reuses the consolidations that one simulated, and the
// decisions are again the same either way:
//
//	var memo disruption.Memo
//	for _, in := range inputs { // each with in.Pools set
//		in.Memo = &memo
//		decisions, err := disruption.Decide(in)
//		…
//	}
//
// Karpenter starts a consolidation command (Emptiness, multi-node, single-node) only once it
// is still valid CommandValidationDelay (15 s) after it was computed; Validate checks it
// against the cluster as it is then:
//
//	later.Now = in.Now.Add(disruption.CommandValidationDelay)
//	cmd, why, err := disruption.Validate(later, decisions.Commands[0])
//	if why != "" { // abandoned: the cluster changed under it
//		…
//	}
package disruption
