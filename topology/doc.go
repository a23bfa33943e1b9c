// Package topology keeps the domain counts behind topology spread constraints and pod
// (anti-)affinity, and answers which domains a pod may go to, with kube-scheduler's rules.
//
// The provisioning solver builds a Tracker once per solve, registers the pods already running
// (Record with their node's labels), derives each pending pod's terms (Terms), asks Allowed
// before a placement and Records the pod after it:
//
//	tr := topology.NewTracker(namespaces)
//	terms, _ := tr.Terms(pod)
//	for _, term := range terms {
//		ok := term.Group.Allowed("us-west-2a", term.Group.Matches(pod), 0)
//		_ = ok
//	}
//	tr.Record(pod, terms, func(key string) (string, bool) { return nodeLabels[key], true })
package topology
