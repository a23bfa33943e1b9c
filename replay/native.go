package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// nativeKind is the kind of nodeplan's own event list.
const nativeKind = "Events"

// nativeFile is nodeplan's event list:
//
//	apiVersion: nodeplan/v1
//	kind: Events
//	start: "2026-01-12T10:00:00Z"   # optional; --now gives it otherwise
//	events:
//	- at: 0s                          # or time: <RFC 3339>
//	  create: {kind: Deployment, ...} # Deployment, StatefulSet, Job or Pod
//	- at: 5m
//	  create: {kind: Job, ...}
//	  duration: 20m                   # how long the Job's pods run
//	- at: 10m
//	  scale: shop/catalog             # kind: Deployment unless said
//	  kind: StatefulSet
//	  replicas: 0
//	- at: 12m
//	  delete: shop/catalog-1          # kind: Pod here; a workload's controller makes a new one
//	  kind: Pod
//	- {at: 20m, interrupt: default-3} # spot interruption of a node
//	- {at: 25m, fail: default-4}      # node failure
//	- at: 30m
//	  update: {apiVersion: karpenter.sh/v1, kind: NodePool, ...}
//	- {at: 40m, drift: default}       # the NodePool's node class changed
//	- {at: 1h, mark: peak}
type nativeFile struct {
	APIVersion string        `json:"apiVersion"`
	Kind       string        `json:"kind"`
	Start      *time.Time    `json:"start,omitempty"`
	Events     []nativeEvent `json:"events"`
}

type nativeEvent struct {
	At        *string         `json:"at,omitempty"`
	Time      *time.Time      `json:"time,omitempty"`
	Create    json.RawMessage `json:"create,omitempty"`
	Scale     *string         `json:"scale,omitempty"`
	Delete    *string         `json:"delete,omitempty"`
	Interrupt *string         `json:"interrupt,omitempty"`
	Fail      *string         `json:"fail,omitempty"`
	Update    json.RawMessage `json:"update,omitempty"`
	Drift     *string         `json:"drift,omitempty"`
	Mark      *string         `json:"mark,omitempty"`
	Kind      string          `json:"kind,omitempty"`
	Replicas  *int32          `json:"replicas,omitempty"`
	Duration  *string         `json:"duration,omitempty"`
}

func readNative(data []byte, source string) (Trace, error) {
	var f nativeFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return Trace{}, fmt.Errorf("%s: event list: %w", source, err)
	}
	if f.APIVersion != "" && f.APIVersion != "nodeplan/v1" {
		return Trace{}, fmt.Errorf("%s: apiVersion %q: want nodeplan/v1", source, f.APIVersion)
	}
	tr := Trace{Format: "nodeplan"}
	if f.Start != nil {
		tr.Start = *f.Start
	}
	for i, e := range f.Events {
		where := fmt.Sprintf("%s: events[%d]", source, i)
		ev, err := nativeToEvent(e, where)
		if err != nil {
			return Trace{}, err
		}
		switch {
		case e.At != nil && e.Time != nil:
			return Trace{}, fmt.Errorf("%s: give at or time, not both", where)
		case e.At != nil:
			at, err := time.ParseDuration(*e.At)
			if err != nil || at < 0 {
				return Trace{}, fmt.Errorf("%s.at: %q is not a duration from the start such as 90s, 30m or 1h30m", where, *e.At)
			}
			ev.offset = &at
		case e.Time != nil:
			ev.Time = *e.Time
		default:
			return Trace{}, fmt.Errorf("%s: missing at (a duration from the start) or time", where)
		}
		tr.Events = append(tr.Events, ev)
	}
	if !tr.Start.IsZero() {
		tr.Resolve(tr.Start)
	}
	return tr, nil
}

// nativeToEvent converts one entry: exactly one of its verbs, with the fields that verb takes.
func nativeToEvent(e nativeEvent, where string) (Event, error) {
	ev := Event{Source: where}
	verbs := 0
	for _, set := range []bool{e.Create != nil, e.Scale != nil, e.Delete != nil, e.Interrupt != nil, e.Fail != nil, e.Update != nil, e.Drift != nil, e.Mark != nil} {
		if set {
			verbs++
		}
	}
	if verbs != 1 {
		return ev, fmt.Errorf("%s: give exactly one of create, scale, delete, interrupt, fail, update, drift and mark (found %d)", where, verbs)
	}
	if e.Duration != nil {
		if e.Create == nil {
			return ev, fmt.Errorf("%s.duration: only a created Job has a duration", where)
		}
		d, err := time.ParseDuration(*e.Duration)
		if err != nil || d <= 0 {
			return ev, fmt.Errorf("%s.duration: %q is not a positive duration such as 20m", where, *e.Duration)
		}
		ev.Duration = d
	}
	if e.Replicas != nil && e.Scale == nil {
		return ev, fmt.Errorf("%s.replicas: only a scale event has replicas", where)
	}
	if e.Kind != "" && e.Scale == nil && e.Delete == nil {
		return ev, fmt.Errorf("%s.kind: only scale and delete name a kind; a created object carries its own", where)
	}
	switch {
	case e.Create != nil:
		return createEvent(ev, e.Create, where+".create")
	case e.Scale != nil:
		ev.Type, ev.Kind, ev.Key = Scale, kindOr(e.Kind, KindDeployment), *e.Scale
		if ev.Kind != KindDeployment && ev.Kind != KindStatefulSet {
			return ev, fmt.Errorf("%s.kind: %q does not scale: want Deployment or StatefulSet", where, e.Kind)
		}
		if e.Replicas == nil || *e.Replicas < 0 {
			return ev, fmt.Errorf("%s.replicas: a scale event needs replicas, 0 or more", where)
		}
		ev.Replicas = *e.Replicas
		return ev, checkKey(ev.Key, where+".scale")
	case e.Delete != nil:
		ev.Type, ev.Kind, ev.Key = Delete, kindOr(e.Kind, KindDeployment), *e.Delete
		switch ev.Kind {
		case KindDeployment, KindStatefulSet, KindJob, KindPod:
		default:
			return ev, fmt.Errorf("%s.kind: %q cannot be deleted: want Deployment, StatefulSet, Job or Pod", where, e.Kind)
		}
		return ev, checkKey(ev.Key, where+".delete")
	case e.Interrupt != nil, e.Fail != nil:
		ev.Type, ev.Kind, ev.Key = Interrupt, KindNode, deref(e.Interrupt)
		if e.Fail != nil {
			ev.Type, ev.Key = Fail, *e.Fail
		}
		if ev.Key == "" {
			return ev, fmt.Errorf("%s.%s: name the node", where, ev.Type)
		}
		return ev, nil
	case e.Update != nil:
		ev.Type, ev.Kind = Update, KindNodePool
		np, err := nodePoolObject(e.Update, where+".update")
		if err != nil {
			return ev, err
		}
		ev.NodePool, ev.Key = np, np.Name
		return ev, nil
	case e.Drift != nil:
		ev.Type, ev.Kind, ev.Key = Drift, KindNodePool, *e.Drift
		if ev.Key == "" {
			return ev, fmt.Errorf("%s.drift: name the NodePool whose node class changed", where)
		}
		return ev, nil
	}
	ev.Type, ev.Mark = Mark, *e.Mark
	return ev, nil
}

func createEvent(ev Event, raw json.RawMessage, where string) (Event, error) {
	var meta struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Namespace string `json:"namespace"`
			Name      string `json:"name"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(raw, &meta); err != nil {
		return ev, fmt.Errorf("%s: not an object: %w", where, err)
	}
	if meta.Metadata.Name == "" {
		return ev, fmt.Errorf("%s.metadata.name: missing", where)
	}
	ns := meta.Metadata.Namespace
	if ns == "" {
		ns = "default"
	}
	ev.Type, ev.Kind, ev.Key = Create, meta.Kind, ns+"/"+meta.Metadata.Name
	var err error
	switch meta.Kind {
	case KindDeployment:
		d := &appsv1.Deployment{}
		if err = strictUnmarshal(raw, d, where); err == nil {
			ev.Deployment, err = deploymentObject(d, ev.Key, where)
		}
	case KindStatefulSet:
		s := &appsv1.StatefulSet{}
		if err = strictUnmarshal(raw, s, where); err == nil {
			ev.StatefulSet, err = statefulSetObject(s, ev.Key, where)
		}
	case KindJob:
		j := &batchv1.Job{}
		if err = strictUnmarshal(raw, j, where); err == nil {
			ev.Job, err = jobObject(j, ev.Key, where)
		}
	case KindPod:
		p := &corev1.Pod{}
		if err = strictUnmarshal(raw, p, where); err == nil {
			ev.Pod, err = podObject(p, ev.Key, where)
		}
	default:
		return ev, fmt.Errorf("%s.kind: %q cannot be created in a replay: want Deployment, StatefulSet, Job or Pod", where, meta.Kind)
	}
	if err == nil && ev.Duration > 0 && ev.Job == nil {
		err = fmt.Errorf("%s: only a Job has a duration; a %s runs until it is deleted", where, meta.Kind)
	}
	return ev, err
}

func strictUnmarshal(raw json.RawMessage, into any, where string) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	return nil
}

func kindOr(kind, def string) string {
	if kind == "" {
		return def
	}
	return kind
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// Resolve gives the events written as offsets from the start ("at: 30m") their time, and
// sorts the events by time (stable). Call it once the start is known; ReadTrace already did
// for files that give their start.
func (tr *Trace) Resolve(start time.Time) {
	for i := range tr.Events {
		if o := tr.Events[i].offset; o != nil {
			tr.Events[i].Time = start.Add(*o)
		}
	}
	sort.SliceStable(tr.Events, func(i, j int) bool { return tr.Events[i].Time.Before(tr.Events[j].Time) })
}

// Unresolved reports whether some event is still an offset from an unknown start.
func (tr *Trace) Unresolved() bool {
	for _, e := range tr.Events {
		if e.offset != nil && e.Time.IsZero() {
			return true
		}
	}
	return false
}
