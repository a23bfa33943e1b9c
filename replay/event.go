package replay

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/scheduling"
)

// EventType says what an Event does.
type EventType string

// Event types. Create, Scale and Delete are kubereplay's; the others are nodeplan's own.
const (
	// Create starts a workload (Deployment, StatefulSet, Job) or a bare Pod.
	Create EventType = "create"
	// Scale sets a Deployment's or StatefulSet's replicas.
	Scale EventType = "scale"
	// Delete removes a workload with its pods, or one pod (its controller, if any, makes a
	// new one, as a ReplicaSet or StatefulSet does).
	Delete EventType = "delete"
	// Interrupt is a spot interruption: the node is drained and goes away.
	Interrupt EventType = "interrupt"
	// Fail is a node failure: the node goes away at once and its pods are pending again.
	Fail EventType = "fail"
	// Update replaces a NodePool (the nodes it no longer describes drift).
	Update EventType = "update"
	// Drift marks every node of a NodePool drifted, as a changed node class (a new AMI, a
	// new security group) does.
	Drift EventType = "drift"
	// Mark names a moment in the timeline and changes nothing.
	Mark EventType = "mark"
)

// Kinds of object an Event names.
const (
	KindDeployment  = "Deployment"
	KindStatefulSet = "StatefulSet"
	KindJob         = "Job"
	KindPod         = "Pod"
	KindNode        = "Node"
	KindNodePool    = "NodePool"
)

// Event is one change of the replayed cluster's workload or infrastructure.
type Event struct {
	Time time.Time
	Type EventType
	// Kind and Key name the object: namespace/name for workloads and pods, the name for
	// nodes and NodePools.
	Kind string
	Key  string
	// The object a Create (or, for NodePool, an Update) brings; one is set.
	Deployment  *appsv1.Deployment
	StatefulSet *appsv1.StatefulSet
	Job         *batchv1.Job
	Pod         *corev1.Pod
	NodePool    *scheduling.NodePool
	// Replicas of a Scale.
	Replicas int32
	// Duration is how long a Job's pods run when known (kubereplay's duration, the native
	// format's duration); zero when not.
	Duration time.Duration
	// Mark is a Mark's name.
	Mark string
	// Source locates the event in its file for messages: "events.yaml: events[3]".
	Source string
	// offset is the native format's "at", until Trace.Resolve gives the event its Time.
	offset *time.Duration
}

// Trace is a list of events in time order, with the start its file gives.
type Trace struct {
	// Format is "kubereplay" or "nodeplan".
	Format string
	// Start is the native file's start, or kubereplay's first event; zero when unknown.
	Start time.Time
	// Cluster is kubereplay's cluster name, when given.
	Cluster string
	Events  []Event
}
