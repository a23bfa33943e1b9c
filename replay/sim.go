package replay

import (
	"container/heap"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/scheduling"
)

// Karpenter's defaults for the loops' timings.
const (
	DefaultNodeStartup        = 60 * time.Second
	DefaultJobDuration        = 10 * time.Minute
	DefaultBatchIdle          = time.Second
	DefaultBatchMax           = 10 * time.Second
	DefaultDisruptionInterval = 10 * time.Second
	// DefaultRunOn is how long the replay may run after the last event by default.
	DefaultRunOn = 24 * time.Hour
	// spotNotice is the warning EC2 gives before it reclaims a spot instance.
	spotNotice = 2 * time.Minute
	// defaultGracePeriod is a pod's terminationGracePeriodSeconds when it gives none.
	defaultGracePeriod = 30 * time.Second
)

// Options tune a replay; the zero value means Karpenter's defaults.
type Options struct {
	// NodeStartup is how long a launched node takes to become ready (60 s).
	NodeStartup time.Duration
	// JobDuration is how long a Job's pods run when neither spec.activeDeadlineSeconds nor
	// the event gives it (10 m).
	JobDuration time.Duration
	// Until bounds the replay; zero means the last event plus DefaultRunOn.
	Until time.Time
	// BatchIdle and BatchMax are provisioning's batching windows (1 s and 10 s): pods are
	// planned once no new pod came for BatchIdle, or BatchMax after the first.
	BatchIdle, BatchMax time.Duration
	// DisruptionInterval is the disruption controller's cadence (10 s).
	DisruptionInterval time.Duration
	// NodeplanMultiNode makes multi-node consolidation nodeplan consolidate's, which searches
	// beyond Karpenter's prefixes and consolidates several nodes into several cheaper ones
	// (disruption.Input.KarpenterMultiNode unset). By default the replay's is Karpenter's
	// own, as the rest of its loop is: on the benchmark's day (BenchmarkReplayDay) it costs
	// within 3% of nodeplan's either way, with 10-15% fewer launches and evictions, in half
	// to two thirds of the time.
	NodeplanMultiNode bool
	// Scheduling are the options of every provisioning solve.
	Scheduling scheduling.Options
	// Progress, when set, is called as simulated time advances.
	Progress func(now, until time.Time)
	// Observe, when set, is shown every provisioning and disruption step: what was solved or
	// decided and the cluster it was solved or decided on (for checkers; read it during the
	// call, never modify it: the replay reuses its arrays).
	Observe func(Observation)

	// checkSteps (tests) applies every step's changes at once and checks that the count of
	// unplaced pods is the cluster's.
	checkSteps bool
}

// Observation is one provisioning or disruption step of a replay; one of its parts is set.
type Observation struct {
	Time time.Time
	// Provisioning: the cluster with its pending pods, and the plan Run applied to it.
	Cluster *scheduling.Input
	Plan    *scheduling.Plan
	// Disruption: the input Decide was given and its decisions.
	Disruption *disruption.Input
	Decisions  *disruption.Decisions
}

func (o Options) withDefaults() Options {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.NodeStartup, DefaultNodeStartup)
	def(&o.JobDuration, DefaultJobDuration)
	def(&o.BatchIdle, DefaultBatchIdle)
	def(&o.BatchMax, DefaultBatchMax)
	def(&o.DisruptionInterval, DefaultDisruptionInterval)
	return o
}

// Run replays the events on the start cluster (start.Now is the start time) and returns
// what Karpenter's loops did. It is a discrete-event simulation: nothing waits on a clock,
// and the same input gives the same Result. The loops, Karpenter's unless said otherwise:
//   - Provisioning batches pending pods (BatchIdle, BatchMax) and plans them on one
//     scheduling.Cluster, prepared once and changed by Apply only (a NodePool update
//     prepares it again), so nodes still launching are capacity. The pods still running on
//     nodes being disrupted are planned with them (Karpenter's provisioner plans the pods of
//     nodes marked for deletion): nodes are launched for those that would find no room, and
//     they move when their node drains. A launched node is ready
//     NodeStartup later; its pods run from then. A node costs its price from launch to
//     deletion.
//   - Disruption calls disruption.Decide on its cadence, only when the cluster changed, a
//     node reached its consolidateAfter or expiry, or (when Decide left a node it could act
//     on) a scheduled budget's window opened or closed since the last call. Multi-node
//     consolidation is Karpenter's (disruption.Input.KarpenterMultiNode) unless
//     NodeplanMultiNode. Drift and
//     expiration commands start at once. Consolidation commands (Emptiness, multi-node,
//     single-node) wait disruption.CommandValidationDelay, the loop blocked meanwhile, and
//     start if disruption.Validate finds them still valid on the cluster as it is then
//     (else they are abandoned, Decision kind abandon); the loop decides again at once:
//     after an abandoned Emptiness or multi-node command with the methods after it only
//     (disruption.Input.After), after an abandoned single-node command a DisruptionInterval
//     later. A command cordons its candidates; replacements launch and are ready before the
//     candidates drain. A drain evicts what PodDisruptionBudgets allow, do-not-disrupt pods
//     aside, every DisruptionInterval until the node is empty; the node is deleted once its
//     evicted pods have had their terminationGracePeriodSeconds (30 s by default). With the
//     NodePool's terminationGracePeriod, pods still there are deleted early enough for their
//     grace periods to end by the drain's start plus that period, and the node goes then at
//     the latest. Evicted pods are pending again and provisioned like new ones.
//   - A spot interruption drains the node at once, without PDBs, and the instance is gone
//     two minutes later; a node failure removes the node and its pods are pending at once. A
//     start node Karpenter was deleting or disrupting (disruption.Node.Disrupting) drains
//     from the start, as its termination would.
//   - Workloads: a Deployment keeps its replicas (a lost pod is replaced under a new name);
//     scale-down removes pods in the ReplicaSet controller's order (see scaleDownOrder); a
//     StatefulSet creates ordinals upwards and removes the highest first; a Job runs
//     min(parallelism, completions) pods at a time until completions succeeded, each for
//     spec.activeDeadlineSeconds, else the event's duration, else JobDuration.
//
// After the last event the replay runs on until nothing is left to do, at most until
// Options.Until.
func Run(start disruption.Input, events []Event, opts Options) (Result, error) {
	s, err := newSim(start, events, opts.withDefaults())
	if err != nil {
		return Result{}, err
	}
	if err := s.run(); err != nil {
		return Result{}, err
	}
	return s.result(), nil
}

// step is a wake-up of the simulation.
type step struct {
	at   time.Time
	seq  int
	kind stepKind
	// event indexes the trace (stepEvent); name is a node or pod; gen guards a pod's
	// finish against a restart since.
	event int
	name  string
	gen   int
}

type stepKind int

const (
	stepEvent stepKind = iota
	stepReady
	stepJobDone
	stepProvision
	stepDisrupt
	stepDrain
	stepNodeGone
	stepValidate
)

type stepQueue []step

func (q stepQueue) Len() int { return len(q) }
func (q stepQueue) Less(i, j int) bool {
	if !q[i].at.Equal(q[j].at) {
		return q[i].at.Before(q[j].at)
	}
	return q[i].seq < q[j].seq
}
func (q stepQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *stepQueue) Push(x any)   { *q = append(*q, x.(step)) }
func (q *stepQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}

func (s *sim) schedule(st step) {
	s.seq++
	st.seq = s.seq
	heap.Push(&s.queue, st)
}

// run drains the step queue in time order up to Until.
func (s *sim) run() error {
	for i, ev := range s.events {
		s.schedule(step{at: ev.Time, kind: stepEvent, event: i})
	}
	s.requestDisruption(s.now)
	for s.queue.Len() > 0 {
		st := heap.Pop(&s.queue).(step)
		if st.at.After(s.until) {
			break
		}
		s.now = st.at
		decided := len(s.decisions)
		if err := s.handle(st); err != nil {
			return err
		}
		if s.opts.checkSteps {
			if err := s.checkUnplaced(); err != nil {
				return err
			}
		}
		if s.retry {
			// Room was freed: pods left pending for want of it are planned again.
			s.retry = false
			if !s.batchOpen && s.unplaced > 0 {
				s.openBatch()
			}
		}
		if s.record() || len(s.decisions) > decided {
			s.rest = s.now
		}
		if s.opts.Progress != nil {
			s.opts.Progress(s.now, s.until)
		}
	}
	// The replay ends when the cluster came to rest: its last change, or the last event.
	// Steps after it only looked again and found nothing to do.
	s.now = s.rest
	if len(s.events) > 0 && s.now.Before(s.events[len(s.events)-1].Time) {
		s.now = s.events[len(s.events)-1].Time
	}
	if s.now.After(s.until) {
		s.now = s.until
	}
	return nil
}

func (s *sim) handle(st step) error {
	switch st.kind {
	case stepEvent:
		return s.apply(s.events[st.event])
	case stepReady:
		return s.nodeReady(st.name)
	case stepJobDone:
		return s.jobPodDone(st.name, st.gen)
	case stepProvision:
		return s.provision()
	case stepDisrupt:
		return s.disrupt()
	case stepDrain:
		return s.drainStep(st.name)
	case stepNodeGone:
		return s.nodeGone(st.name)
	case stepValidate:
		return s.validate()
	}
	return fmt.Errorf("replay: unknown step %d", st.kind)
}

// podPhase of a pod in the replay.
type podPhase int

const (
	podPending  podPhase = iota // waiting for a node, or on a node not ready yet
	podRunning                  // on a ready node
	podFinished                 // a Job's pod that succeeded
	podDeleted                  // deleted, scaled down or lost with its workload
)

// podRec is a pod's story in the replay.
type podRec struct {
	pod     *corev1.Pod
	key     string
	owner   *workload
	created time.Time
	phase   podPhase
	node    string // the node it is bound or nominated to, "" while unplaced
	since   time.Time
	ordinal int // a StatefulSet pod's ordinal
	gen     int // counts starts, so a finish planned before an eviction is ignored
	reason  string
}

// checkUnplaced applies the gathered changes and compares the unplaced count, which decides
// without them whether freed room reopens a batch, with the cluster's pending pods.
func (s *sim) checkUnplaced() error {
	if err := s.flush(); err != nil {
		return err
	}
	if got := len(s.cluster.Input().Pods); got != s.unplaced {
		return fmt.Errorf("replay at %s: %d pods counted unplaced, the cluster has %d pending", stamp(s.now), s.unplaced, got)
	}
	return nil
}
