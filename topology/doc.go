// Package topology keeps the domain counts behind topology spread constraints and pod
// (anti-)affinity, and answers which domains a pod may go to, with kube-scheduler's rules.
//
// A solver talks to State alone. It keeps a Member per pending pod (its terms, the groups
// that count it, what it gave up), tells State about its nodes and NodePools through Cluster,
// and asks four things: which domains a pod may take on a node (Narrow), which nodes it must
// skip (Skip, Refuses, NoneTakes), to record a placement (Record), and which DaemonSet pods
// come with a new node (SettleDaemons, RecordDaemons). What keeps the final state true (the
// rules below) stays inside:
//
//	st := topology.NewState(namespaces)
//	terms, _ := st.Terms(pod, false)
//	m := &topology.Member{Terms: terms, Host: solverPod}
//	if st.HasGroups() {
//		st.Start(cluster, 1, func(int) (*topology.Member, *corev1.Pod) { return m, pod }, daemonSets)
//	}
//	node := topology.Joining{Name: "node-1", Pool: 0, Fresh: true}
//	if reqs, refused := st.Narrow(m, nodeRequirements, node, launch, false); refused.Group == nil {
//		st.Record(m, node, reqs, 0)
//	}
//
// Underneath, the pieces State is made of:
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
//
// A plan must keep every rule true in its final state, whatever the order its pods are bound
// in, not only the rules each pod met when placed. Rules adds what that takes: the rules of
// pods already placed (required anti-affinity selecting a later pod, required spread counting
// it, a self-affine group's first pod waiting for company), DaemonSet pods a new node brings,
// and per hostname group the planned nodes a pod must skip:
//
//	rules := topology.NewRules()
//	pod := topology.Pod{Active: terms, Eligible: func(*topology.Group) []string { return zones }}
//	if g := rules.Violated(pod, topology.Node{}, "topology.kubernetes.io/zone", "us-west-2a"); g == nil {
//		rules.Record(pod, topology.Placement{Node: 0, Domain: domainOf, Counts: func(*topology.Group) bool { return true }})
//	}
//	skip := rules.HostnameSkip(pod) // planned nodes the pod need not try
//	_ = skip
//
// Domains lists the values each key can take on a new node of each NodePool. Narrow answers
// which domains a pod may take on a node: it fixes each key the pod is counted on to the
// value its spread or affinity favours among those the rules allow, or says which rule
// refuses the node:
//
//	domains := topology.NewDomains(len(pools), tr.Groups(), zonesOfPool)
//	judge := func(key, v string) *topology.Group { return rules.Violated(pod, topology.Node{}, key, v) }
//	node := topology.Joining{Name: "node-1", Pool: 0}
//	reqs, refused := domains.Narrow(pod.Active, pod.Matched, topology.RuleKeys(pod.Active, pod.Matched),
//		nodeRequirements, node, judge, canLaunch, false)
//	_, _ = reqs, refused.Group
package topology
