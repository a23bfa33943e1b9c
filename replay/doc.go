// Package replay runs Karpenter's provisioning and disruption loops over a workload trace,
// offline: a discrete-event simulation with no clock and no goroutine timing, so the same
// start and events give the same Result, byte for byte, in seconds rather than a day.
//
// The trace is kubereplay's ReplayLog JSON, read as it is, or nodeplan's own event list (see
// ReadTrace): workloads created, scaled and deleted, pods deleted, spot interruptions, node
// failures, NodePool updates and drift. Run keeps one scheduling.Cluster for the whole
// replay (prepared once, then changed by Apply), batches pending pods as Karpenter's
// provisioner does, launches nodes that become ready after a startup delay, and asks
// disruption.Decide on its cadence what to delete or replace.
//
//	tr, err := replay.ReadTrace(data, "events.json")
//	tr.Resolve(start) // for an event list that gives offsets ("at: 30m") and no start
//	res, err := replay.Run(cluster, tr.Events, replay.Options{}) // cluster.Now is the start
//	fmt.Println(res.Summary.TotalCost, res.Summary.PeakNodes, res.Summary.Terminated)
package replay
