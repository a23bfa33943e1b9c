package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/yaml"
)

// ReadTrace reads an event file: kubereplay's ReplayLog JSON as kubereplay writes it
// ({"cluster", "captured", "events": [...]}), or nodeplan's native event list (YAML or JSON,
// "kind: Events"). source names the file in messages. Events are returned in time order (a
// stable sort: events at the same time keep the file's order). Every problem names the file,
// the event and the field.
func ReadTrace(data []byte, source string) (Trace, error) {
	jsonData, err := yaml.YAMLToJSON(data)
	if err != nil {
		return Trace{}, fmt.Errorf("%s: not YAML or JSON: %w", source, err)
	}
	var probe struct {
		Kind     string          `json:"kind"`
		Captured json.RawMessage `json:"captured"`
		Cluster  json.RawMessage `json:"cluster"`
	}
	if err := json.Unmarshal(jsonData, &probe); err != nil {
		return Trace{}, fmt.Errorf("%s: an event file is an object: %w", source, err)
	}
	var tr Trace
	switch {
	case probe.Kind == nativeKind:
		tr, err = readNative(jsonData, source)
	case probe.Kind == "" && (probe.Captured != nil || probe.Cluster != nil):
		tr, err = readKubereplay(jsonData, source)
	case probe.Kind == "":
		return Trace{}, fmt.Errorf(`%s: neither a kubereplay log (with "cluster", "captured" and "events") nor a nodeplan event list ("kind: Events")`, source)
	default:
		return Trace{}, fmt.Errorf("%s: kind %q is not an event list: want kind: %s, or a kubereplay log", source, probe.Kind, nativeKind)
	}
	if err != nil {
		return Trace{}, err
	}
	if !tr.Unresolved() {
		sort.SliceStable(tr.Events, func(i, j int) bool { return tr.Events[i].Time.Before(tr.Events[j].Time) })
	}
	return tr, nil
}

// kubereplayLog mirrors kubereplay's format.ReplayLog (tools/kubereplay/pkg/format/log.go).
type kubereplayLog struct {
	Cluster  string            `json:"cluster"`
	Captured time.Time         `json:"captured"`
	Events   []kubereplayEvent `json:"events"`
}

type kubereplayEvent struct {
	Type       EventType          `json:"type"`
	Kind       string             `json:"kind"`
	Key        string             `json:"key"`
	Deployment *appsv1.Deployment `json:"deployment,omitempty"`
	Job        *batchv1.Job       `json:"job,omitempty"`
	Replicas   *int32             `json:"replicas,omitempty"`
	// Duration is a Go time.Duration: nanoseconds.
	Duration  *time.Duration `json:"duration,omitempty"`
	Timestamp time.Time      `json:"timestamp"`
}

func readKubereplay(data []byte, source string) (Trace, error) {
	var log kubereplayLog
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&log); err != nil {
		return Trace{}, fmt.Errorf("%s: kubereplay log: %w", source, err)
	}
	tr := Trace{Format: "kubereplay", Cluster: log.Cluster}
	for i, e := range log.Events {
		where := fmt.Sprintf("%s: events[%d]", source, i)
		if e.Timestamp.IsZero() {
			return Trace{}, fmt.Errorf("%s.timestamp: missing; every event needs its time", where)
		}
		ev := Event{Time: e.Timestamp, Type: e.Type, Kind: e.Kind, Key: e.Key, Source: where}
		if err := checkKey(e.Key, where); err != nil {
			return Trace{}, err
		}
		if e.Kind != KindDeployment && e.Kind != KindJob {
			return Trace{}, fmt.Errorf("%s.kind: %q is not a kubereplay kind: want Deployment or Job", where, e.Kind)
		}
		switch e.Type {
		case Create:
			var err error
			switch {
			case e.Kind == KindDeployment && e.Deployment != nil:
				ev.Deployment, err = deploymentObject(e.Deployment, e.Key, where+".deployment")
			case e.Kind == KindJob && e.Job != nil:
				ev.Job, err = jobObject(e.Job, e.Key, where+".job")
			default:
				err = fmt.Errorf("%s.%s: a create event of a %s needs the object", where, strings.ToLower(e.Kind), e.Kind)
			}
			if err != nil {
				return Trace{}, err
			}
			if e.Duration != nil {
				if *e.Duration < 0 {
					return Trace{}, fmt.Errorf("%s.duration: %s is negative", where, *e.Duration)
				}
				ev.Duration = *e.Duration
			}
		case Scale:
			if e.Replicas == nil {
				return Trace{}, fmt.Errorf("%s.replicas: a scale event needs replicas", where)
			}
			if *e.Replicas < 0 {
				return Trace{}, fmt.Errorf("%s.replicas: %d is negative", where, *e.Replicas)
			}
			if e.Kind != KindDeployment {
				return Trace{}, fmt.Errorf("%s.kind: only a Deployment scales, not a %s", where, e.Kind)
			}
			ev.Replicas = *e.Replicas
		case Delete:
		default:
			return Trace{}, fmt.Errorf("%s.type: %q is not a kubereplay event type: want create, scale or delete", where, e.Type)
		}
		if tr.Start.IsZero() || ev.Time.Before(tr.Start) {
			tr.Start = ev.Time
		}
		tr.Events = append(tr.Events, ev)
	}
	return tr, nil
}

// checkKey requires namespace/name.
func checkKey(key, where string) error {
	ns, name, ok := strings.Cut(key, "/")
	if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
		return fmt.Errorf("%s.key: %q is not namespace/name", where, key)
	}
	return nil
}

// keyParts splits a checked namespace/name key.
func keyParts(key string) (string, string) {
	ns, name, _ := strings.Cut(key, "/")
	return ns, name
}
