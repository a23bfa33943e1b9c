package check

import (
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/scheduling"
)

// Decisions checks decisions, which disruption.Decide (or another tool, in that shape)
// returned for in: it applies the commands to the cluster in order (candidates leave,
// replacements join, every evicted pod runs where its move says) and checks the accounting
// (every pod of a removed node evicted, every evicted pod moved once to a node that exists
// then and is not removed later, graceful commands within the PodDisruptionBudgets) and then,
// with kube-scheduler's plugins, every pod of the finished state: the pods that stay as well
// as those that moved, each with itself left out. A staying pod that the plugins refuse in the
// cluster as it was, before any command, is listed in Result.Preexisting rather than
// Failures: the decisions did not cause it.
//
// The finished state is built as for Plan: replacements are NodeClaims (with their DaemonSet
// pods), moved pods are placed pods. Nodes already disrupting (Node.Disrupting) are left out
// with their pods, and pending pods stay pending. No virtual zone nodes are added: the zones
// the decisions count as empty spread domains are not part of the document, so spread is
// checked over the zones that have nodes, as kube-scheduler sees them.
func Decisions(in disruption.Input, d disruption.Decisions) (Result, error) {
	a := applyDecisions(in, d)
	res := Result{Failures: a.failures, Pending: a.pending}
	st := newState(a.input, a.plan)
	res.Staying, res.Moved = len(st.running), len(st.placed)
	if err := st.check(&res, append(slices.Clip(st.running), st.placed...)); err != nil {
		return res, err
	}
	return res, splitPreexisting(in, &res, a.moved)
}

// splitPreexisting moves the failures of staying pods that fail in the cluster as it was
// from res.Failures to res.Preexisting.
func splitPreexisting(in disruption.Input, res *Result, moved map[string]bool) error {
	failing := map[string]bool{}
	for _, f := range res.Failures {
		if f.Pod != "" && f.Plugin != Accounting && !moved[f.Pod] {
			failing[f.Pod] = true
		}
	}
	if len(failing) == 0 {
		return nil
	}
	before := newState(scheduling.Input{ExistingNodes: existingNodes(in, nil, nil), DaemonSets: in.DaemonSets,
		Namespaces: in.Namespaces, PersistentVolumeClaims: in.PersistentVolumeClaims,
		PersistentVolumes: in.PersistentVolumes, StorageClasses: in.StorageClasses, NodePools: in.NodePools}, scheduling.Plan{})
	var pods []placedPod
	for _, p := range before.running {
		if failing[p.key] {
			pods = append(pods, p)
		}
	}
	var was Result
	if err := before.check(&was, pods); err != nil {
		return fmt.Errorf("checking the cluster before the decisions: %w", err)
	}
	already := map[string]bool{}
	for _, f := range was.Failures {
		already[f.Pod] = true
	}
	kept := res.Failures[:0]
	for _, f := range res.Failures {
		if f.Plugin != Accounting && already[f.Pod] && !moved[f.Pod] {
			res.Preexisting = append(res.Preexisting, f)
			continue
		}
		kept = append(kept, f)
	}
	res.Failures = kept
	return nil
}

// applied is the cluster after the decisions: the finished state as a scheduling input and
// plan (moved pods are the plan's pods), and what the accounting found.
type applied struct {
	input    scheduling.Input
	plan     scheduling.Plan
	failures []Failure
	// moved holds the pods that changed node; pending the pods a forceful command evicts
	// with nowhere to go.
	moved   map[string]bool
	pending []string
}

// existingNodes turns the input's nodes into the scheduler's existing nodes, leaving out
// disrupting nodes and those removed, with the pods where puts on each (all pods where they
// run when where is nil).
func existingNodes(in disruption.Input, where map[string]string, removed map[string]bool) []*scheduling.ExistingNode {
	var out []*scheduling.ExistingNode
	for _, n := range in.Nodes {
		if n == nil || n.Node == nil || n.Disrupting {
			continue
		}
		name := n.Node.Name
		if removed[name] {
			continue
		}
		var pods []*corev1.Pod
		for _, p := range n.Pods {
			if p != nil && (where == nil || where[podKey(p)] == name) {
				pods = append(pods, p)
			}
		}
		pool := n.NodePool
		if pool == "" {
			pool = n.Node.Labels[labelNodePool]
		}
		out = append(out, &scheduling.ExistingNode{Node: n.Node, Pods: pods, NodePool: pool,
			Initialized: n.Initialized || pool == "", VolumeAttachLimits: n.VolumeAttachLimits})
	}
	return out
}

// applyDecisions runs the commands on the cluster and checks their accounting.
func applyDecisions(in disruption.Input, d disruption.Decisions) applied {
	a := applied{moved: map[string]bool{}}
	fail := func(pod, node, format string, args ...any) {
		a.failures = append(a.failures, Failure{Pod: pod, Node: node, Plugin: Accounting, Reason: fmt.Sprintf(format, args...)})
	}

	// where maps each pod to its node ("" once evicted with nowhere to go).
	where := map[string]string{}
	removed, replacement := map[string]bool{}, map[string]bool{}
	pods := map[string]*corev1.Pod{}
	onNode := map[string][]string{} // node → pods, in input order, moved pods appended
	inputNode := map[string]*disruption.Node{}
	for _, n := range in.Nodes {
		if n == nil || n.Node == nil {
			continue
		}
		inputNode[n.Node.Name] = n
		if n.Disrupting {
			continue
		}
		for _, p := range n.Pods {
			if p == nil || terminal(p) {
				continue
			}
			k := podKey(p)
			if where[k] != "" {
				fail(k, n.Node.Name, "the input has this pod on %s and on %s", where[k], n.Node.Name)
				continue
			}
			where[k], pods[k] = n.Node.Name, p
			onNode[n.Node.Name] = append(onNode[n.Node.Name], k)
		}
	}
	live := func(node string) bool {
		n := inputNode[node]
		return !removed[node] && ((n != nil && !n.Disrupting) || replacement[node])
	}
	pdbs := newPDBBudgets(in)

	var claims []scheduling.NodeClaim
	for ci, cmd := range d.Commands {
		name := fmt.Sprintf("command %d (%s)", ci+1, cmd.Method)
		graceful := cmd.Reason != scheduling.ReasonExpired && cmd.Method != disruption.MethodExpiration
		// Drift on a NodePool with a terminationGracePeriod does not wait for
		// PodDisruptionBudgets: the drain ends at the grace period whatever they say.
		withinPDBs := graceful && !(cmd.Method == disruption.MethodDrift && drainBounded(in, inputNode, cmd))
		cands := map[string]bool{}
		for _, c := range cmd.Candidates {
			switch {
			case inputNode[c.Node] == nil:
				fail("", c.Node, "%s removes %s, which is not a node of the input", name, c.Node)
			case inputNode[c.Node].Disrupting:
				fail("", c.Node, "%s removes %s, which is already being disrupted", name, c.Node)
			case !live(c.Node):
				fail("", c.Node, "%s removes %s, which an earlier command already removed", name, c.Node)
			case cands[c.Node]:
				fail("", c.Node, "%s lists candidate %s twice", name, c.Node)
			}
			cands[c.Node] = true
		}
		evicted := map[string]bool{}
		for _, k := range cmd.Evictions {
			switch {
			case evicted[k]:
				fail(k, "", "%s evicts the pod twice", name)
			case pods[k] == nil:
				fail(k, "", "%s evicts a pod the input does not have", name)
			case !cands[where[k]]:
				fail(k, where[k], "%s evicts the pod, but it runs on %s, which the command does not remove", name, where[k])
			}
			evicted[k] = true
		}
		for _, c := range cmd.Candidates {
			for _, k := range onNode[c.Node] {
				if where[k] == c.Node && !evicted[k] && reschedulable(pods[k]) {
					fail(k, c.Node, "%s removes the node but does not evict the pod: it would be lost", name)
				}
			}
		}
		if withinPDBs {
			pdbs.take(name, cmd, where, pods, fail)
		} else {
			pdbs.use(cmd, pods)
		}
		for _, r := range cmd.Replacements {
			if inputNode[r.Name] != nil || replacement[r.Name] {
				fail("", r.Name, "%s launches %s, which is the name of another node", name, r.Name)
				continue
			}
			replacement[r.Name] = true
			r.Pods = nil
			claims = append(claims, r)
		}
		moved := map[string]string{}
		for _, m := range cmd.Moves {
			switch {
			case !evicted[m.Pod]:
				fail(m.Pod, m.To, "%s moves a pod it does not evict", name)
			case moved[m.Pod] != "":
				fail(m.Pod, m.To, "%s moves the pod twice (to %s and to %s)", name, moved[m.Pod], m.To)
			case cands[m.To] || !live(m.To):
				fail(m.Pod, m.To, "%s moves the pod to %s, which is not a node that stays", name, m.To)
			default:
				moved[m.Pod] = m.To
			}
		}
		for _, k := range cmd.Evictions {
			if pods[k] == nil || !cands[where[k]] {
				continue
			}
			to := moved[k]
			switch {
			case to != "":
				where[k] = to
				onNode[to] = append(onNode[to], k)
				a.moved[k] = true
			case !graceful:
				where[k] = ""
				a.pending = append(a.pending, k)
			default:
				fail(k, where[k], "%s evicts the pod and moves it nowhere: it would be lost", name)
				where[k] = ""
			}
		}
		for c := range cands {
			removed[c] = true
		}
	}

	// The finished state: staying pods on the nodes that stay, moved pods placed.
	a.input = scheduling.Input{ExistingNodes: existingNodes(in, where, removed), DaemonSets: in.DaemonSets,
		NodePools: in.NodePools, Namespaces: in.Namespaces, PersistentVolumeClaims: in.PersistentVolumeClaims,
		PersistentVolumes: in.PersistentVolumes, StorageClasses: in.StorageClasses}
	claimIndex := map[string]int{}
	for i, c := range claims {
		claimIndex[c.Name] = i
	}
	onExisting := map[string][]string{}
	var existingOrder []string
	for _, k := range slices.Sorted(maps.Keys(a.moved)) {
		to := where[k]
		if to == "" {
			continue
		}
		a.input.Pods = append(a.input.Pods, pods[k])
		if i, ok := claimIndex[to]; ok {
			claims[i].Pods = append(claims[i].Pods, k)
			continue
		}
		if onExisting[to] == nil {
			existingOrder = append(existingOrder, to)
		}
		onExisting[to] = append(onExisting[to], k)
	}
	a.plan.NodeClaims = claims
	for _, n := range existingOrder {
		a.plan.ExistingNodes = append(a.plan.ExistingNodes, scheduling.ExistingPlacement{Name: n, Pods: onExisting[n]})
	}
	return a
}

// reschedulable reports whether a pod must be evicted when its node goes: DaemonSet, static
// and mirror pods end with the node, and a pod being deleted is going anyway.
func reschedulable(p *corev1.Pod) bool {
	if _, mirror := p.Annotations[corev1.MirrorPodAnnotationKey]; mirror || p.DeletionTimestamp != nil {
		return false
	}
	for _, ref := range p.OwnerReferences {
		if ref.Kind == "DaemonSet" || ref.Kind == "Node" {
			return false
		}
	}
	return true
}

func terminal(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

// drainBounded reports whether every candidate of the command belongs to a NodePool that
// sets a terminationGracePeriod.
func drainBounded(in disruption.Input, inputNode map[string]*disruption.Node, cmd disruption.Command) bool {
	for _, c := range cmd.Candidates {
		n := inputNode[c.Node]
		if n == nil {
			return false
		}
		pool := n.NodePool
		if pool == "" {
			pool = n.Node.Labels["karpenter.sh/nodepool"]
		}
		bounded := false
		for _, np := range in.NodePools {
			if np != nil && np.Name == pool && np.TerminationGracePeriod != nil {
				bounded = true
			}
		}
		if !bounded {
			return false
		}
	}
	return len(cmd.Candidates) > 0
}
