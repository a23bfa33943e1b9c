package disruption

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/workloadcost"
)

// Input is the running cluster Decide looks at. Nothing in it is modified.
type Input struct {
	// Nodes are the cluster's nodes with their bound pods and NodeClaim facts.
	Nodes []*Node
	// NodePools give each node's disruption settings and the instance types replacements
	// are chosen from.
	NodePools            []*scheduling.NodePool
	PodDisruptionBudgets []*policyv1.PodDisruptionBudget
	// PendingPods are pods not bound to a node yet; simulations place them too, so room they
	// will need is not promised to evicted pods.
	PendingPods []*corev1.Pod
	// DaemonSets whose pods run on every node they tolerate, replacements included.
	DaemonSets []*appsv1.DaemonSet
	Namespaces []*corev1.Namespace
	// Volume objects the pods' claims refer to.
	PersistentVolumeClaims []*corev1.PersistentVolumeClaim
	PersistentVolumes      []*corev1.PersistentVolume
	StorageClasses         []*storagev1.StorageClass
	// Now is the time the decision is made at: ages, consolidateAfter and budget schedules
	// are measured against it. It must be set; Decide never reads a clock.
	Now time.Time
	// Pools, when set, are NodePools prepared once by PreparePools, reused while they are
	// this input's NodePools; see Pools.
	Pools *Pools
	// Memo, when set, carries the consolidations simulated by the last Decide given it to
	// this one, reused while the cluster they were simulated on is unchanged; see Memo. It
	// needs Pools.
	Memo *Memo
	// CommandsOnly is for a caller that acts on Decisions.Commands alone (a replay deciding
	// every 10 s): a consolidation or drift simulation stops as soon as an evicted pod would
	// land on a node that is not initialized yet, which decides it cannot go, instead of
	// placing every other pod, and Summary's cost by workload is left out. The commands are
	// the ones a full decision gives; a Blocked reason may name another pod than it would.
	CommandsOnly bool
	// KarpenterMultiNode makes multi-node consolidation Karpenter's own: Karpenter's binary
	// search over prefixes of the ranked candidates, nothing beyond it (no second search
	// above a prefix found too short, no growing of a set beyond the prefixes), and several
	// nodes consolidate into one new node at most, not into several cheaper ones. It is for
	// a caller that runs Karpenter's loop (a replay), which then decides what Karpenter
	// would, at a fraction of the cost: most of what a multi-node decision costs on a large
	// cluster is the search beyond Karpenter's.
	KarpenterMultiNode bool
	// After, when set to a method (Method*), makes Decide try only the methods that come after
	// it: Karpenter's disruption loop goes on with its next methods, in the same pass, when a
	// command of one fails its validation (see Validate). Nodes only a method it skips would
	// take are blocked with a reason that says so.
	After string
}

// Node is a running node with the facts of the NodeClaim that launched it. Empty NodePool,
// InstanceType, Zone and CapacityType fields are read from the node's well-known labels; a
// zero Price is looked up in the NodePool's instance types.
type Node struct {
	Node *corev1.Node
	// Pods bound to the node, DaemonSet and mirror pods included.
	Pods         []*corev1.Pod
	NodePool     string
	InstanceType string
	Zone         string
	CapacityType string
	// Price is what the node costs per hour (USD).
	Price float64
	// Created is when the NodeClaim was created; zero means the node's creationTimestamp.
	Created time.Time
	// LastPodEvent is when a pod last started on or left the node; zero means Created.
	LastPodEvent time.Time
	// Initialized is false while the node is still starting; such a node is not disrupted
	// and pods are not planned onto it.
	Initialized bool
	// Consolidatable is the NodeClaim's Consolidatable condition when known: true when
	// consolidateAfter has passed since the last pod event. When set it decides instead of
	// LastPodEvent.
	Consolidatable *bool
	// ExpireAfter is the NodeClaim's own spec.expireAfter when ExpireAfterSet (nil: Never).
	// Karpenter's expiration controller reads only the NodeClaim's value, which the NodePool
	// stamped on it at launch; a NodePool whose expireAfter changed since has drifted from
	// the node (budgeted Drift), it does not expire the node. Without it (no NodeClaim given,
	// or a v1beta1 one, whose expiry lived on the NodePool), the NodePool's expireAfter is
	// used and there is no such drift.
	ExpireAfter    *time.Duration
	ExpireAfterSet bool
	// Drifted is set when the NodeClaim's Drifted condition is True: its reason and message
	// (e.g. "SubnetDrift"). It covers drift Decide cannot compute from the input, such as a
	// changed subnet or security group; empty when the condition is absent or not True.
	Drifted string
	// NodeClassDrift says how the node's NodeClaim no longer matches its node class, as
	// Karpenter's AWS provider finds it (e.g. "AMIDrift: …", "NodeClassDrift: …"); empty
	// when it matches. Such a node is replaced by Drift like one drifted from its NodePool.
	NodeClassDrift string
	// V1alpha5 marks a node launched by a karpenter.sh/v1alpha5 Provisioner (label
	// karpenter.sh/provisioner-name). Karpenter then annotated an empty node with
	// karpenter.sh/emptiness-timestamp when it first saw it empty and deleted it
	// ttlSecondsAfterEmpty (the NodePool's consolidateAfter) after that time:
	// EmptinessTimestamp, zero when the node is not marked yet.
	V1alpha5           bool
	EmptinessTimestamp time.Time
	// Disrupting marks a node already being disrupted; it counts against budgets and is not
	// a candidate again.
	Disrupting bool
	// VolumeAttachLimits per CSI driver, from the node's CSINode; nil when unknown.
	VolumeAttachLimits map[string]int
}

// Methods, in the order Decide tries them.
const (
	MethodEmptiness               = "Emptiness"
	MethodExpiration              = "Expiration"
	MethodDrift                   = "Drift"
	MethodMultiNodeConsolidation  = "MultiNodeConsolidation"
	MethodSingleNodeConsolidation = "SingleNodeConsolidation"
)

// Actions a command takes on its candidates.
const (
	ActionDelete  = "delete"
	ActionReplace = "replace"
)

// Decisions is Decide's answer: the commands to run in order, why every other node stays,
// and what the NodePool-managed part of the cluster costs before and after.
type Decisions struct {
	Commands []Command `json:"commands"`
	Blocked  []Blocked `json:"blocked"`
	Summary  Summary   `json:"summary"`
	// Warnings are problems with the input worth a word, sorted by node: a node whose price
	// the instance types do not give (it counts as $0 in Summary and is not consolidated),
	// or that is priced from another offering of its type.
	Warnings []string `json:"warnings,omitempty"`
}

// Command deletes or replaces its candidates. Replacements are launched before the
// candidates are drained; each evicted pod is expected to run where Moves says.
type Command struct {
	Method string `json:"method"`
	// Reason is the disruption reason budgets are counted under: Empty, Underutilized,
	// Drifted or Expired.
	Reason       string                 `json:"reason"`
	Action       string                 `json:"action"`
	Candidates   []Candidate            `json:"candidates"`
	Replacements []scheduling.NodeClaim `json:"replacements"`
	// Evictions are the pods (namespace/name) that must move; DaemonSet, mirror and
	// finished pods are not listed, they end with the node.
	Evictions []string `json:"evictions"`
	Moves     []Move   `json:"moves"`
	// Savings is the hourly cost removed minus the hourly cost of the replacements (USD);
	// it can be negative for drift and expiration.
	Savings float64 `json:"savings"`
	// Notes say what else is worth knowing: PodDisruptionBudgets pacing evictions, pods an
	// expiration leaves pending.
	Notes []string `json:"notes,omitempty"`
}

// Candidate is a node a command removes.
type Candidate struct {
	Node         string  `json:"node"`
	NodePool     string  `json:"nodePool"`
	InstanceType string  `json:"instanceType"`
	Zone         string  `json:"zone"`
	CapacityType string  `json:"capacityType"`
	Price        float64 `json:"price"`
}

// Move is where an evicted pod is expected to run: an existing node or a replacement.
type Move struct {
	Pod string `json:"pod"`
	To  string `json:"to"`
}

// Blocked is a node no command acts on, with the reason in a sentence.
type Blocked struct {
	Node   string `json:"node"`
	Reason string `json:"reason"`
}

// Summary counts the nodes managed by a NodePool and their hourly cost, before the commands
// and after them (replacements included).
type Summary struct {
	Nodes            int     `json:"nodes"`
	NodesAfter       int     `json:"nodesAfter"`
	HourlyCostBefore float64 `json:"hourlyCostBefore"`
	HourlyCostAfter  float64 `json:"hourlyCostAfter"`
	// CostByWorkloadBefore and CostByWorkloadAfter split those costs among the workloads whose
	// pods run on the nodes, each node's price by its pods' share of its cpu and memory
	// (scheduling.CostByWorkload); after, moved pods count where their moves put them.
	CostByWorkloadBefore []workloadcost.Cost `json:"costByWorkloadBefore"`
	CostByWorkloadAfter  []workloadcost.Cost `json:"costByWorkloadAfter"`
}
