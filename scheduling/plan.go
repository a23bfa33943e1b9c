package scheduling

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/workloadcost"
)

// Plan is Solve's answer: new nodes to launch, pods placed on existing nodes, and pods that
// cannot be scheduled with the reason. Every input pod appears exactly once.
type Plan struct {
	// TopologyDomains lists, per topology key, the domains a NodePool can launch nodes in,
	// whether or not the plan puts a node there. Zonal topology spread counts each of them as
	// a domain (with 0 pods when empty), as Karpenter does, so a checker rebuilding the final
	// state needs them.
	TopologyDomains map[string][]string `json:"topologyDomains,omitempty"`
	NodeClaims      []NodeClaim         `json:"nodeClaims"`
	ExistingNodes   []ExistingPlacement `json:"existingNodes"`
	Unschedulable   []Unschedulable     `json:"unschedulable"`
	Summary         Summary             `json:"summary"`
	// Traces hold the steps of the pods Options.Trace names.
	Traces []PodTrace `json:"traces,omitempty"`
	// Placements say where each pending pod of the solve went, in the order of Input.Pods
	// (for Simulate: the cluster's pending pods, then those the change displaced, then those it
	// added), so callers need no name lookups.
	Placements []Placement `json:"-"`
}

// Placement is where one pending pod goes.
type Placement struct {
	Pod *corev1.Pod
	// Key is the pod's namespace/name.
	Key string
	// Node is the existing or new node the pod goes to, "" when it is unschedulable.
	Node string
	// NodeClaim is the index of the pod's new node in Plan.NodeClaims, -1 when the pod goes to
	// an existing node or nowhere.
	NodeClaim int
}

// PodTrace is the story of one pod's placement: each node and NodePool tried with the reason
// it was passed over, preferences relaxed, and where the pod ended.
type PodTrace struct {
	Pod   string   `json:"pod"`
	Steps []string `json:"steps"`
}

// NodeClaim is a node to launch.
type NodeClaim struct {
	// Name is <nodepool>-<n>, unique in the plan; also the node's kubernetes.io/hostname.
	Name         string  `json:"name"`
	NodePool     string  `json:"nodePool"`
	InstanceType string  `json:"instanceType"`
	Zone         string  `json:"zone"`
	CapacityType string  `json:"capacityType"`
	Price        float64 `json:"price"`
	// InstanceTypeOptions are every type that would fit the node's pods, cheapest first.
	// NodeClaims of one plan opened alike share the list: read it, or copy it to change it.
	InstanceTypeOptions []string            `json:"instanceTypeOptions"`
	Labels              map[string]string   `json:"labels"`
	Taints              []corev1.Taint      `json:"taints"`
	StartupTaints       []corev1.Taint      `json:"startupTaints,omitempty"`
	Capacity            corev1.ResourceList `json:"capacity"`
	Allocatable         corev1.ResourceList `json:"allocatable"`
	// Pods are namespace/name of the pods planned onto the node.
	Pods []string `json:"pods"`
	// Notes explain choices worth knowing (e.g. minValues relaxed under BestEffort).
	Notes []string `json:"notes,omitempty"`
	// Requirements are what the node's pods and NodePool narrowed it to: the zones, capacity
	// types and instance types it may launch with (any of InstanceTypeOptions' offerings they
	// allow), for callers that price its launch, such as consolidation's worst-case rule.
	Requirements requirements.Requirements `json:"-"`
}

// ExistingPlacement lists pending pods the plan puts on one existing node.
type ExistingPlacement struct {
	Name string   `json:"name"`
	Pods []string `json:"pods"`
}

// Constraint classifies why a pod cannot be scheduled.
type Constraint string

// Constraint classes, as in the plan JSON.
const (
	ConstraintResources       Constraint = "Resources"
	ConstraintNodeAffinity    Constraint = "NodeAffinity"
	ConstraintTaints          Constraint = "Taints"
	ConstraintTopologySpread  Constraint = "TopologySpread"
	ConstraintPodAffinity     Constraint = "PodAffinity"
	ConstraintPodAntiAffinity Constraint = "PodAntiAffinity"
	ConstraintVolume          Constraint = "Volume"
	ConstraintLimits          Constraint = "Limits"
	ConstraintHostPorts       Constraint = "HostPorts"
	ConstraintValidation      Constraint = "Validation"
)

// Unschedulable is a pod the plan cannot place, with a human sentence and its class.
type Unschedulable struct {
	Pod        string     `json:"pod"`
	Reason     string     `json:"reason"`
	Constraint Constraint `json:"constraint"`
}

// Summary totals a plan. Pods counts the pending pods in the input; Placed those placed on
// new or existing nodes. LowerBound is a cost no packing of the new nodes' pods can beat
// (bound.Lower); it depends on those pods and the NodePools only, not on the strategy.
type Summary struct {
	Pods       int     `json:"pods"`
	Placed     int     `json:"placed"`
	NewNodes   int     `json:"newNodes"`
	HourlyCost float64 `json:"hourlyCost"`
	LowerBound float64 `json:"lowerBound"`
	// NodeFixedCost is what the new nodes cost per hour beyond their instance prices
	// (Options.NodeCost each), apart from HourlyCost and LowerBound.
	NodeFixedCost float64 `json:"nodeFixedCost"`
	// CostByWorkload splits HourlyCost among the workloads of the pods on the new nodes: each
	// node's price in proportion to its pods' cpu and memory requests (see workloadcost).
	CostByWorkload []workloadcost.Cost `json:"costByWorkload"`
}
