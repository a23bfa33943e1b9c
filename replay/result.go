package replay

import (
	"math"
	"slices"
	"time"
)

// Result is what a replay did: the summary, the timeline of the node set and pending pods,
// and the decisions taken, in order.
type Result struct {
	Start time.Time `json:"start"`
	// End is when the replay stopped: the cluster quiet after the last event, or Until.
	End       time.Time  `json:"end"`
	Summary   Summary    `json:"summary"`
	Timeline  []Point    `json:"timeline"`
	Decisions []Decision `json:"decisions"`
	// Nodes are every node the replay knew, in order of launch (the start's first), with
	// when it was launched and deleted: Summary.TotalCost is the sum of their price over
	// their lifetime.
	Nodes []NodeLife `json:"nodes"`
	// Warnings are events that named something absent when they came (a node already gone).
	Warnings []string `json:"warnings,omitempty"`
}

// Summary totals a replay.
type Summary struct {
	// TotalCost is what the nodes cost from Start to End (USD): the integral of the
	// timeline's hourlyCost.
	TotalCost      float64 `json:"totalCost"`
	PeakNodes      int     `json:"peakNodes"`
	PeakHourlyCost float64 `json:"peakHourlyCost"`
	// Launched counts nodes launched by provisioning and as replacements.
	Launched int `json:"launched"`
	// Terminated counts deleted nodes by reason: empty, underutilized, drift, expiration,
	// interruption, failure, deleting (a start node being deleted or disrupted, drained from the
	// start).
	Terminated  map[string]int `json:"terminated"`
	PodsEvicted int            `json:"podsEvicted"`
	// Commands counts the disruption commands started, and the consolidation commands
	// abandoned at their validation.
	Commands CommandCounts `json:"commands"`
	// PendingSeconds are the times pods waited, from creation or eviction until they ran on
	// a ready node.
	PendingSeconds Percentiles `json:"pendingSeconds"`
	// Unschedulable are the pods still pending at the end, with the reason from their last
	// provisioning attempt.
	Unschedulable []Unschedulable `json:"unschedulable"`
	// Pods accounts for every pod created: Created = Running + Pending + Finished + Deleted.
	Pods PodCounts `json:"pods"`
}

// CommandCounts counts disruption commands.
type CommandCounts struct {
	Started   int `json:"started"`
	Abandoned int `json:"abandoned"`
}

// Percentiles of a list of durations in seconds.
type Percentiles struct {
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
	Max float64 `json:"max"`
}

// Unschedulable is a pod left pending with the reason.
type Unschedulable struct {
	Pod    string `json:"pod"`
	Reason string `json:"reason"`
}

// PodCounts account for the pods of a replay at its end.
type PodCounts struct {
	Created  int `json:"created"`
	Running  int `json:"running"`
	Pending  int `json:"pending"`
	Finished int `json:"finished"`
	Deleted  int `json:"deleted"`
}

// Point is the cluster after a change of its node set or pending pods.
type Point struct {
	Time       time.Time `json:"time"`
	Nodes      int       `json:"nodes"`
	Pods       int       `json:"pods"`
	Pending    int       `json:"pending"`
	HourlyCost float64   `json:"hourlyCost"`
}

// Decision kinds.
const (
	DecisionLaunch    = "launch"
	DecisionDisrupt   = "disrupt"
	DecisionInterrupt = "interrupt"
	DecisionFail      = "fail"
	DecisionDelete    = "delete"
	DecisionMark      = "mark"
	// DecisionAbandon is a consolidation command found no longer valid when it was
	// validated, disruption.CommandValidationDelay after it was decided; its Reason says why.
	DecisionAbandon = "abandon"
)

// Decision is one thing the loops did: provisioning launched nodes, disruption started or
// abandoned a command, a node was interrupted, failed or deleted, or the trace marked a
// moment.
type Decision struct {
	Time time.Time `json:"time"`
	Kind string    `json:"kind"`
	// Method and Reason of a disruption command (disruption.Method*, and the budget reason);
	// Reason of a deletion (empty, underutilized, drift, expiration, interruption, failure,
	// deleting).
	Method string `json:"method,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Nodes launched (launch), candidates (disrupt) or the node concerned.
	Nodes []string `json:"nodes,omitempty"`
	// Replacements a disruption command launches.
	Replacements []string `json:"replacements,omitempty"`
	// Pods placed by a launch, or evicted by a command.
	Pods int `json:"pods,omitempty"`
	// Savings per hour of a disruption command (USD).
	Savings float64 `json:"savings,omitempty"`
	Mark    string  `json:"mark,omitempty"`
}

// NodeLife is one node's stay in the replay.
type NodeLife struct {
	Name         string    `json:"name"`
	NodePool     string    `json:"nodePool,omitempty"`
	InstanceType string    `json:"instanceType"`
	Zone         string    `json:"zone"`
	CapacityType string    `json:"capacityType"`
	Price        float64   `json:"price"`
	Launched     time.Time `json:"launched"`
	// Deleted is zero for a node still there at the end.
	Deleted time.Time `json:"deleted,omitzero"`
	Reason  string    `json:"reason,omitempty"`
}

// Hours is how long the node ran within the replay, up to end.
func (n NodeLife) Hours(end time.Time) float64 {
	until := end
	if !n.Deleted.IsZero() && n.Deleted.Before(end) {
		until = n.Deleted
	}
	return until.Sub(n.Launched).Hours()
}

// percentiles by the nearest-rank method.
func percentiles(seconds []float64) Percentiles {
	if len(seconds) == 0 {
		return Percentiles{}
	}
	s := slices.Clone(seconds)
	slices.Sort(s)
	rank := func(p float64) float64 {
		i := int(math.Ceil(p*float64(len(s)))) - 1
		return s[max(i, 0)]
	}
	return Percentiles{P50: rank(0.50), P95: rank(0.95), Max: s[len(s)-1]}
}

// Integral is the timeline's cost from its first point to end (USD): each point's hourly
// cost held until the next.
func Integral(timeline []Point, end time.Time) float64 {
	total := 0.0
	for i, p := range timeline {
		next := end
		if i+1 < len(timeline) {
			next = timeline[i+1].Time
		}
		total += p.HourlyCost * next.Sub(p.Time).Hours()
	}
	return total
}
