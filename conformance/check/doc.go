// Package check proves a nodeplan Plan valid with kube-scheduler's own plugins: it rebuilds
// the cluster the plan leaves behind and runs, for every placed pod with itself left out,
// the PreFilter and Filter extension points of the real k8s.io/kubernetes scheduler framework
// on the node the plan chose, and checks that every pod is accounted for exactly once.
//
//	res, err := check.Plan(in, plan) // in is what scheduling.Solve was given
//	if err != nil {
//		return err // the framework could not be built
//	}
//	for _, f := range res.Failures {
//		fmt.Println(f) // default/web-3 on default-2: PodTopologySpread: node(s) didn't match pod topology spread constraints
//	}
//
// # The finished state
//
// Plan builds the state kube-scheduler would see once every planned node has joined and every
// placed pod is bound:
//
//   - existing nodes with the pods bound to them (Succeeded and Failed pods left out). A node
//     that is not initialized has lost its startup taints (its NodePool's and the ephemeral
//     not-ready, unreachable, uninitialized and unregistered taints) and runs the DaemonSet
//     pods it does not run yet, as new nodes do. A node without a kubernetes.io/hostname label
//     gets its name, and one without allocatable gets its capacity, as kubelet reports them;
//   - one Node per NodeClaim: its name, labels, taints (startup taints are gone once a node is
//     initialized), capacity and allocatable, plus the zone label a CSI node driver the input's
//     volumes or classes use adds when it registers (ebs.csi.aws.com:
//     topology.ebs.csi.aws.com/zone, which EBS volumes' node affinity names);
//   - on every new node, one pod per DaemonSet whose template's required node affinity and node
//     selector match the node and which tolerates its NoSchedule and NoExecute taints (what the
//     DaemonSet controller checks), named <daemonset>-<node>, with requests defaulted from
//     limits as the API server does;
//   - the pending pods, bound to the node the plan put them on;
//   - for every zone of Plan.TopologyDomains["topology.kubernetes.io/zone"] that no node is in,
//     a virtual node (see below);
//   - claims with spec.volumeName are fully bound (pv.kubernetes.io/bind-completed), as the
//     PV controller leaves them; claims of WaitForFirstConsumer classes stay unbound, so
//     VolumeBinding checks that they can be provisioned or bound on the chosen node.
//
// Pods are never filtered out of the state: daemon pods, running pods, pods with no rule and
// pods of other workloads are all seen by every spread and affinity selector, as they are by
// kube-scheduler.
//
// # Virtual zone nodes
//
// Karpenter counts every zone a NodePool can launch nodes in as a topology spread domain, with
// 0 pods when no node is there (kube-scheduler only knows the zones of existing nodes). To
// check a plan by that rule with kube-scheduler's own PodTopologySpread, each such empty zone
// becomes a node named virtual-zone-<zone> that carries only the zone, its region (the zone
// name without its last letter) and a unique kubernetes.io/hostname label, is cordoned
// (spec.unschedulable) and has no allocatable. No pod is ever placed on it; it exists only so
// that PodTopologySpread's PreFilter counts the zone as a domain with 0 matching pods, which
// lowers the global minimum exactly as Karpenter's empty domains do. Consequences, all
// kube-scheduler's own rules applied to that node:
//
//   - with nodeAffinityPolicy Honor (the default) the zone counts only for pods whose required
//     node affinity and node selector the virtual node matches: a pod that selects any label
//     other than zone, region or hostname does not see the empty zone;
//   - the virtual node has no taints, so nodeTaintsPolicy Honor never excludes it;
//   - it has a hostname, so a pod that spreads over kubernetes.io/hostname as well as zones
//     still counts the zone (PodTopologySpread ignores nodes missing any of the pod's topology
//     keys) and, like Karpenter, sees a hostname domain with 0 pods (a new node can always be
//     launched), which puts the hostname minimum at 0 whenever some zone is empty;
//   - minDomains counts it as a domain.
//
// # Plugins
//
// The framework is kube-scheduler's default profile (plugin arguments defaulted by
// k8s.io/kubernetes/pkg/scheduler/apis/config/latest), with the PreFilter and Filter points of
// NodeUnschedulable, NodeName, TaintToleration, NodeAffinity, NodePorts, NodeResourcesFit,
// VolumeRestrictions, NodeVolumeLimits, VolumeBinding, VolumeZone, PodTopologySpread and
// InterPodAffinity. The volume plugins read claims, volumes, classes and CSINodes through
// informers over a fake clientset: CSINodes are made from ExistingNode.VolumeAttachLimits and
// from the instance type's attach limits for new nodes. Not covered: DynamicResources (the
// input has no resource claims), scoring (preferences are not required) and the pod's
// priority and preemption.
//
// Each placed pod is taken out of the snapshot, run through RunPreFilterPlugins and
// RunFilterPlugins against its node, and put back, so every check sees the whole finished
// state but the pod itself. NodeInfo keeps a node's used host ports as a set, so taking out
// one of two pods on the same port would forget the port: the node's ports are recounted from
// the pods left on it before each check. The framework stops at the first failing plugin, so
// a pod reports one failure.
//
// # Decisions
//
// Decisions checks a disruption.Decisions the same way, on the cluster its commands leave:
//
//	res, err := check.Decisions(in, decisions) // in is what disruption.Decide was given
//
// The commands are applied in order: candidates leave, replacements join as new nodes, each
// evicted pod runs where its move says. Every pod of the result is checked, those that stay
// as well as those that moved, and so is the accounting: every pod of a removed node that
// must be rescheduled (not a DaemonSet, static, mirror or terminating pod) is evicted and
// moved once, to a node that exists then and is not removed later (a forceful expiration may
// leave pods pending: Result.Pending); graceful commands take PodDisruptionBudget
// disruptions only while a budget allows one, candidate by candidate, and never evict a pod
// two budgets select. A staying pod that fails in the cluster as it was, before any command,
// is reported in Result.Preexisting, not as a failure. ReadDocument reads both documents
// back, and cmd/check runs either against an input read as the nodeplan CLI reads it.
package check
