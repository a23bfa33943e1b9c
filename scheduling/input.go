package scheduling

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
)

// Input is everything Solve needs. Nothing in it is modified.
type Input struct {
	// Pods are the pending pods to place.
	Pods []*corev1.Pod
	// NodePools to launch new nodes from.
	NodePools []*NodePool
	// ExistingNodes are the cluster's nodes with the pods bound to them.
	ExistingNodes []*ExistingNode
	// DaemonSets whose pods will run on new nodes, taking room from them.
	DaemonSets []*appsv1.DaemonSet
	// Namespaces give the labels pod affinity namespaceSelectors match.
	Namespaces []*corev1.Namespace
	// Volume objects that pods' claims refer to.
	PersistentVolumeClaims []*corev1.PersistentVolumeClaim
	PersistentVolumes      []*corev1.PersistentVolume
	StorageClasses         []*storagev1.StorageClass
	// ReservedNodeNames are names new nodes must not take besides those of ExistingNodes:
	// nodes that are leaving the cluster (being deleted) but still run and hold their name,
	// the kubernetes.io/hostname that pods' topology and node names refer to.
	ReservedNodeNames []string
	// Pools, when set, are NodePools prepared by PreparePools, used instead of preparing
	// NodePools again when they are what this Input's NodePools, DaemonSets and resources
	// would give; otherwise they are ignored. Plans are the same with or without them.
	Pools   *Pools
	Options Options
}

// ExistingNode is a node already in the cluster.
type ExistingNode struct {
	Node *corev1.Node
	// Pods bound to the node (spec.nodeName); they keep using its resources.
	Pods []*corev1.Pod
	// NodePool that launched the node, "" when not managed by one (from the
	// karpenter.sh/nodepool label or the NodeClaim).
	NodePool string
	// Initialized is false for a node still starting (a NodeClaim in flight); such nodes are
	// used after initialized ones.
	Initialized bool
	// VolumeAttachLimits per CSI driver, from the node's CSINode; nil when unknown.
	VolumeAttachLimits map[string]int
}

// PreferencePolicy says what to do with preferred scheduling terms.
type PreferencePolicy string

const (
	// PreferencesRespect honours preferences and relaxes them one at a time when a pod cannot
	// be placed otherwise (Karpenter's default).
	PreferencesRespect PreferencePolicy = "Respect"
	// PreferencesIgnore drops every preference up front.
	PreferencesIgnore PreferencePolicy = "Ignore"
)

// MinValuesPolicy says what to do when a node cannot keep minValues distinct values.
type MinValuesPolicy string

const (
	// MinValuesStrict refuses such a node.
	MinValuesStrict MinValuesPolicy = "Strict"
	// MinValuesBestEffort keeps the node with fewer values and says so on it.
	MinValuesBestEffort MinValuesPolicy = "BestEffort"
)

// DefaultMaxInstanceTypeOptions bounds the instance types listed per new node, as Karpenter
// does (60 to the cloud provider; 600 kept while planning).
const DefaultMaxInstanceTypeOptions = 600

// Options tune Solve; the zero value means the defaults.
type Options struct {
	// Strategy is StrategyCheapest (the default, "") or StrategyKarpenter (see strategy.go).
	Strategy               Strategy
	PreferencePolicy       PreferencePolicy
	MinValuesPolicy        MinValuesPolicy
	MaxInstanceTypeOptions int
	// SkipImprovement leaves the greedy packing as it is (for comparison and tests).
	SkipImprovement bool
	// SkipLowerBound leaves Summary.LowerBound zero, for callers that use only the plan
	// (consolidation's simulations, a replay's provisioning) and need not pay for the bound.
	SkipLowerBound bool
	// SkipCostByWorkload leaves Summary.CostByWorkload empty, for callers that do not read
	// it (consolidation's simulations, a replay's provisioning) and need not pay for it.
	SkipCostByWorkload bool
	// Trace lists pods (namespace/name) whose every placement step Plan.Traces records.
	Trace []string
	// StopOnUninitialized ends a Simulate as soon as a pod the change displaces or adds is
	// placed on an existing node that is not initialized yet: Simulate then returns an
	// *UninitializedError instead of a plan. It is for callers that only need to know
	// whether the change holds without such nodes (consolidation: Karpenter never relies on
	// them), and saves the rest of the placement. Solve, which displaces nothing, ignores it.
	StopOnUninitialized bool
	// interleaved turns existingFirst off, for the tests that check it changes no plan.
	interleaved bool
	// repackAlways turns repackCannotBeat off, and repackSkips, when set, counts the lone
	// nodes it leaves alone: for the tests that check it changes no plan.
	repackAlways bool
	repackSkips  *int
	// NodeCost is what each new node costs per hour beyond its instance price (its root
	// volume, a public IPv4 address): 0 means DefaultNodeCost, a negative value none. It
	// weighs many small nodes against a few large ones and is reported as
	// Summary.NodeFixedCost; HourlyCost stays the sum of instance prices.
	NodeCost float64
}

// DefaultNodeCost is a 20 GiB gp3 root volume ($0.08 per GiB-month, 730 hours a month),
// Karpenter's default volume on the AWS provider, in USD per hour.
const DefaultNodeCost = 20 * 0.08 / 730

// nodeCost resolves Options.NodeCost.
func (o Options) nodeCost() float64 {
	switch {
	case o.NodeCost < 0:
		return 0
	case o.NodeCost == 0:
		return DefaultNodeCost
	}
	return o.NodeCost
}
