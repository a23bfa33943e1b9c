package replay

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// workload is a controller of the replay: a Deployment's ReplicaSet, a StatefulSet or a Job.
type workload struct {
	kind, key string
	// proto is the pod a Deployment or Job makes copies of; statefulPods are a StatefulSet's
	// pods by ordinal.
	proto        *corev1.Pod
	statefulPods []*corev1.Pod
	replicas     int32
	active       []*podRec
	nextName     int
	// A Job's parallelism, completions (0: a work queue), successes and run time.
	parallelism, completions, succeeded int
	runFor                              time.Duration
	deleted                             bool
	// busy is set while reconcile removes pods, so that their loss does not reconcile again.
	busy bool
}

// apply runs one trace event.
func (s *sim) apply(ev Event) error {
	switch ev.Type {
	case Create:
		return s.create(ev)
	case Scale:
		w := s.workloads[ev.Kind+"/"+ev.Key]
		if w == nil {
			s.warn(ev, "%s %s does not exist (scale without create); ignored", ev.Kind, ev.Key)
			return nil
		}
		w.replicas = ev.Replicas
		w.reconcile(s)
	case Delete:
		if ev.Kind == KindPod {
			r := s.pods[ev.Key]
			if r == nil || r.phase > podRunning {
				s.warn(ev, "pod %s does not exist; ignored", ev.Key)
				return nil
			}
			s.removePod(r, podDeleted)
			return nil
		}
		w := s.workloads[ev.Kind+"/"+ev.Key]
		if w == nil {
			s.warn(ev, "%s %s does not exist; ignored", ev.Kind, ev.Key)
			return nil
		}
		w.deleted = true
		delete(s.workloads, ev.Kind+"/"+ev.Key)
		for _, r := range slices.Clone(w.active) {
			s.removePod(r, podDeleted)
		}
	case Interrupt, Fail:
		return s.nodeEvent(ev)
	case Update:
		return s.updateNodePool(ev)
	case Drift:
		found := false
		for _, n := range s.lives {
			if !n.gone && n.NodePool == ev.Key {
				n.drifted, found = "NodeClassDrift", true
			}
		}
		if !found {
			s.warn(ev, "NodePool %s has no node to drift", ev.Key)
		}
		s.touch()
	case Mark:
		s.decisions = append(s.decisions, Decision{Time: s.now, Kind: DecisionMark, Mark: ev.Mark})
	}
	return nil
}

func (s *sim) warn(ev Event, format string, args ...any) {
	s.warnings = append(s.warnings, ev.Source+": "+fmt.Sprintf(format, args...))
}

func (s *sim) create(ev Event) error {
	id := ev.Kind + "/" + ev.Key
	if ev.Kind != KindPod && s.workloads[id] != nil {
		s.warn(ev, "%s %s exists already; ignored", ev.Kind, ev.Key)
		return nil
	}
	w := &workload{kind: ev.Kind, key: ev.Key}
	var err error
	switch {
	case ev.Deployment != nil:
		w.replicas = replicasOf(ev.Deployment.Spec.Replicas)
		w.proto, err = deploymentPrototype(ev.Deployment, ev.Source)
	case ev.StatefulSet != nil:
		w.replicas = replicasOf(ev.StatefulSet.Spec.Replicas)
		w.statefulPods = s.statefulPods[ev.Key]
	case ev.Job != nil:
		w.proto, err = jobPrototype(ev.Job, ev.Source)
		w.parallelism = int(replicasOf(ev.Job.Spec.Parallelism))
		if c := ev.Job.Spec.Completions; c != nil {
			w.completions = int(*c)
		} else if ev.Job.Spec.Parallelism == nil {
			w.completions = 1
		}
		w.runFor = s.opts.JobDuration
		switch {
		case ev.Job.Spec.ActiveDeadlineSeconds != nil && *ev.Job.Spec.ActiveDeadlineSeconds > 0:
			w.runFor = time.Duration(*ev.Job.Spec.ActiveDeadlineSeconds) * time.Second
		case ev.Duration > 0:
			w.runFor = ev.Duration
		}
		if ev.Job.Spec.Suspend != nil && *ev.Job.Spec.Suspend {
			w.parallelism = 0
		}
	case ev.Pod != nil:
		own := *ev.Pod
		s.createPod(&own, nil)
		return nil
	default:
		return fmt.Errorf("%s: a create event without its object", ev.Source)
	}
	if err != nil {
		return err
	}
	s.workloads[id] = w
	w.reconcile(s)
	return nil
}

// reconcile creates or removes pods until the workload has what it asks for.
func (w *workload) reconcile(s *sim) {
	if w.deleted || w.busy {
		return
	}
	w.busy = true
	defer func() { w.busy = false }()
	want := int(w.replicas)
	if w.kind == KindJob {
		want = w.parallelism
		if w.completions > 0 {
			want = min(want, w.completions-w.succeeded)
		} else if w.succeeded > 0 {
			want = 0 // a work queue is done once one pod succeeded and the others end
		}
	}
	switch {
	case len(w.active) < want:
		for len(w.active) < want {
			p, ordinal := w.newPod()
			if p == nil {
				return
			}
			r := s.createPod(p, w)
			if r == nil {
				return
			}
			r.ordinal = ordinal
			w.active = append(w.active, r)
		}
	case len(w.active) > want && w.kind != KindJob:
		doomed := slices.Clone(w.active)
		if w.kind == KindStatefulSet {
			slices.SortFunc(doomed, func(a, b *podRec) int { return b.ordinal - a.ordinal })
		} else {
			s.scaleDownOrder(doomed)
		}
		for _, r := range doomed[:len(w.active)-want] {
			s.removePod(r, podDeleted)
		}
	}
}

// newPod is the workload's next pod: a Deployment's and a Job's named <name>-<n> (n never
// reused, as the controllers' random suffixes are not), a StatefulSet's lowest missing
// ordinal.
func (w *workload) newPod() (*corev1.Pod, int) {
	if w.kind == KindStatefulSet {
		taken := map[int]bool{}
		for _, r := range w.active {
			taken[r.ordinal] = true
		}
		for i, p := range w.statefulPods {
			if !taken[i] {
				own := *p
				return &own, i
			}
		}
		return nil, 0
	}
	own := *w.proto
	_, name := keyParts(w.key)
	own.Name = name + "-" + strconv.Itoa(w.nextName)
	w.nextName++
	return &own, 0
}

// lost takes a pod that left out of the workload's active pods; a Job counts a success; the
// controller makes up for it.
func (w *workload) lost(s *sim, r *podRec) {
	i := slices.Index(w.active, r)
	if i < 0 {
		return
	}
	w.active = slices.Delete(w.active, i, i+1)
	if r.phase == podFinished {
		w.succeeded++
	}
	w.reconcile(s)
	if w.kind == KindJob && len(w.active) == 0 && !w.deleted {
		w.deleted = true
		delete(s.workloads, KindJob+"/"+w.key)
	}
}

// jobPodDone ends a Job's pod that ran its time, unless it restarted since.
func (s *sim) jobPodDone(key string, gen int) error {
	r := s.pods[key]
	if r == nil || r.phase != podRunning || r.gen != gen {
		return nil
	}
	s.removePod(r, podFinished)
	return nil
}

// scaleDownOrder sorts a ReplicaSet's pods in the order its controller deletes them
// (kube-controller-manager's getPodsToDelete with ActivePodsWithRanks), of which the replay
// follows: pods not yet on a node first; then pending before running (a pod nominated to a
// node still starting is pending); then the lower controller.kubernetes.io/pod-deletion-cost;
// then pods on nodes running more pods of the same workload (doubled-up) first; then the
// more recently started; then the more recently created; then by name, so that the order is
// total. Readiness and restart counts do not differ in a replay.
func (s *sim) scaleDownOrder(pods []*podRec) {
	onNode := map[string]int{}
	for _, r := range pods {
		if r.phase == podRunning {
			onNode[r.node]++
		}
	}
	// Each pod's deletion cost is read once, not at every comparison of the sort.
	costs := make(map[*podRec]int, len(pods))
	for _, r := range pods {
		costs[r] = deletionCost(r.pod)
	}
	cost := func(r *podRec) int { return costs[r] }
	slices.SortStableFunc(pods, func(a, b *podRec) int {
		aPlaced, bPlaced := a.node != "", b.node != ""
		switch {
		case aPlaced != bPlaced:
			return boolOrder(!aPlaced, !bPlaced)
		case (a.phase == podRunning) != (b.phase == podRunning):
			return boolOrder(a.phase != podRunning, b.phase != podRunning)
		case cost(a) != cost(b):
			return cost(a) - cost(b)
		case a.phase == podRunning && onNode[a.node] != onNode[b.node]:
			return onNode[b.node] - onNode[a.node]
		case !a.since.Equal(b.since):
			return b.since.Compare(a.since)
		case !a.created.Equal(b.created):
			return b.created.Compare(a.created)
		}
		return strings.Compare(b.key, a.key)
	})
}

// deletionCost is the pod's controller.kubernetes.io/pod-deletion-cost, 0 when it has none or
// one that is not a number.
func deletionCost(p *corev1.Pod) int {
	v, ok := p.Annotations[corev1.PodDeletionCost]
	if !ok {
		return 0
	}
	cost, _ := strconv.Atoi(v)
	return cost
}

// boolOrder sorts true before false.
func boolOrder(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return -1
	}
	return 1
}
