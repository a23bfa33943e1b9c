package nodepool

import (
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetype"
)

// NodePool is what a karpenter.sh/v1 NodePool's spec says about the nodes it may launch, plus
// the instance types its node class offers.
type NodePool struct {
	Name string
	// Weight orders NodePools: higher first, ties by name.
	Weight int32
	// Labels and Annotations are the node template's metadata; every node gets them.
	Labels      map[string]string
	Annotations map[string]string
	// Taints every node carries; pods must tolerate them.
	Taints []corev1.Taint
	// StartupTaints are removed once the node is ready, so pods need not tolerate them.
	StartupTaints []corev1.Taint
	Requirements  []NodeSelectorRequirementWithMinValues
	// DefaultedKeys are the keys of Requirements that the API's defaulting added rather than
	// the user (a v1alpha5 Provisioner's arch, os and capacity type), so that explanations can
	// say a requirement is a default.
	DefaultedKeys []string
	// Limits cap the total capacity of the NodePool's nodes (cpu, memory, nodes, any resource).
	Limits corev1.ResourceList
	// ExpireAfter is how long a node may live; nil means Never.
	ExpireAfter *time.Duration
	// TerminationGracePeriod (spec.template.spec.terminationGracePeriod) bounds a node's
	// drain: once the node has drained that long, pods still on it are deleted whatever
	// their PodDisruptionBudgets and do-not-disrupt say, each early enough for its own
	// terminationGracePeriodSeconds to end by then; nil means a drain waits as long as
	// they block it.
	TerminationGracePeriod *time.Duration
	Disruption             Disruption
	// Replicas, when set, makes the NodePool static (spec.replicas): it keeps that many nodes
	// whatever the pods, launches none for pods, and consolidation leaves its nodes alone
	// (drift and expiration still replace them). Only limits.nodes applies to it.
	Replicas *int64
	// InstanceTypes the NodePool may choose from (before its requirements filter them).
	InstanceTypes []*instancetype.InstanceType
}

// NodeSelectorRequirementWithMinValues is a NodePool requirement: a node selector requirement
// (operators In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte) with an optional minValues.
type NodeSelectorRequirementWithMinValues struct {
	corev1.NodeSelectorRequirement `json:",inline"`
	MinValues                      *int `json:"minValues,omitempty"`
}

// Consolidation policies of a NodePool's disruption block.
const (
	ConsolidationWhenEmpty                = "WhenEmpty"
	ConsolidationWhenEmptyOrUnderutilized = "WhenEmptyOrUnderutilized"
)

// Disruption is a NodePool's spec.disruption.
type Disruption struct {
	// ConsolidationPolicy is WhenEmpty or WhenEmptyOrUnderutilized (the legacy
	// WhenUnderutilized is read as the latter).
	ConsolidationPolicy string
	// ConsolidateAfter is how long a node must go without pod events before it may be
	// consolidated; nil means Never.
	ConsolidateAfter *time.Duration
	// Budgets limit how many nodes may be disrupted at once; empty means the default 10%.
	Budgets []Budget
}

// Disruption reasons a Budget can be limited to.
const (
	ReasonEmpty         = "Empty"
	ReasonUnderutilized = "Underutilized"
	ReasonDrifted       = "Drifted"
	ReasonExpired       = "Expired"
)

// Budget is one entry of spec.disruption.budgets.
type Budget struct {
	// Nodes is a count ("3") or a percentage of the NodePool's nodes ("10%").
	Nodes string
	// Schedule (cron, UTC) and Duration make the budget active only in a window; both or
	// neither are set.
	Schedule string
	Duration *time.Duration
	// Reasons the budget applies to; empty means all.
	Reasons []string
}
