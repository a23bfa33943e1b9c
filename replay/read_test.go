package replay_test

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/replay"
)

// kubereplay's log is read as kubereplay writes it, in time order, with a Job's recorded
// duration (Go nanoseconds).
func TestReadKubereplay(t *testing.T) {
	data, err := os.ReadFile("testdata/kubereplay.json")
	require.NoError(t, err)
	tr, err := replay.ReadTrace(data, "kubereplay.json")
	require.NoError(t, err)
	require.Equal(t, "kubereplay", tr.Format)
	require.Equal(t, "prod-east", tr.Cluster)
	require.Equal(t, time.Date(2026, 1, 12, 8, 0, 0, 0, time.UTC), tr.Start)
	var got []string
	for _, e := range tr.Events {
		got = append(got, e.Time.Format("15:04")+" "+string(e.Type)+" "+e.Kind+" "+e.Key)
	}
	require.Equal(t, []string{"08:00 create Deployment shop/web", "08:05 scale Deployment shop/web", "08:10 create Job batch/report", "09:00 delete Deployment shop/web"}, got)
	require.Equal(t, int32(5), tr.Events[1].Replicas)
	require.Equal(t, 15*time.Minute, tr.Events[2].Duration)
	require.Equal(t, "kubereplay.json: events[1]", tr.Events[2].Source)

	start := startCluster(time.Minute)
	start.Now = tr.Start
	res, err := replay.Run(start, tr.Events, replay.Options{})
	require.NoError(t, err)
	checkInvariants(t, res)
	require.Equal(t, replay.PodCounts{Created: 6, Finished: 1, Deleted: 5}, res.Summary.Pods)
}

// The native list: offsets from its start, every verb, a Job's duration.
func TestReadNative(t *testing.T) {
	tr, err := replay.ReadTrace([]byte(`
apiVersion: nodeplan/v1
kind: Events
start: "2026-01-12T09:00:00Z"
events:
- at: 1h
  mark: later
- at: 0s
  create:
    apiVersion: batch/v1
    kind: Job
    metadata: {name: etl}
    spec:
      template:
        spec:
          containers: [{name: etl, image: etl, resources: {requests: {cpu: "1"}}}]
  duration: 20m
- {at: 5m, scale: default/web, kind: StatefulSet, replicas: 2}
- {at: 6m, delete: default/web-1, kind: Pod}
- {at: 7m, interrupt: default-1}
- {at: 8m, fail: default-2}
- {at: 9m, drift: default}
- {time: "2026-01-12T09:10:00Z", mark: ten}
`), "events.yaml")
	require.NoError(t, err)
	var got []string
	for _, e := range tr.Events {
		got = append(got, e.Time.Format("15:04")+" "+string(e.Type)+" "+e.Kind+" "+e.Key+" "+e.Mark)
	}
	require.Equal(t, []string{
		"09:00 create Job default/etl ", "09:05 scale StatefulSet default/web ", "09:06 delete Pod default/web-1 ",
		"09:07 interrupt Node default-1 ", "09:08 fail Node default-2 ", "09:09 drift NodePool default ",
		"09:10 mark   ten", "10:00 mark   later",
	}, got)
	require.Equal(t, 20*time.Minute, tr.Events[0].Duration)
}

// A file without a start keeps its offsets until the caller gives one.
func TestResolve(t *testing.T) {
	tr, err := replay.ReadTrace([]byte("kind: Events\nevents:\n- {at: 90s, mark: a}\n- {at: 30s, mark: b}\n"), "e.yaml")
	require.NoError(t, err)
	require.True(t, tr.Unresolved())
	_, err = replay.Run(startCluster(time.Hour), tr.Events, replay.Options{})
	require.EqualError(t, err, "e.yaml: events[0]: the event is an offset from the start; resolve the trace first (Trace.Resolve)")
	tr.Resolve(t0)
	require.False(t, tr.Unresolved())
	require.Equal(t, []string{"b", "a"}, []string{tr.Events[0].Mark, tr.Events[1].Mark})
	require.Equal(t, t0.Add(30*time.Second), tr.Events[0].Time)
}

// Bad events are refused with the file, the event and the field.
func TestReadErrors(t *testing.T) {
	native := func(events string) string { return "kind: Events\nstart: \"2026-01-12T09:00:00Z\"\nevents:\n" + events }
	for _, tc := range []struct{ name, data, want string }{
		{"not an event file", "kind: Deployment\n", `e.yaml: kind "Deployment" is not an event list: want kind: Events, or a kubereplay log`},
		{"neither", "{}", `e.yaml: neither a kubereplay log (with "cluster", "captured" and "events") nor a nodeplan event list ("kind: Events")`},
		{"no time", native("- {mark: a}\n"), "e.yaml: events[0]: missing at (a duration from the start) or time"},
		{"bad at", native("- {at: soon, mark: a}\n"), `e.yaml: events[0].at: "soon" is not a duration from the start such as 90s, 30m or 1h30m`},
		{"two verbs", native("- {at: 1m, mark: a, drift: default}\n"), "e.yaml: events[0]: give exactly one of create, scale, delete, interrupt, fail, update, drift and mark (found 2)"},
		{"scale without replicas", native("- {at: 1m, scale: default/web}\n"), "e.yaml: events[0].replicas: a scale event needs replicas, 0 or more"},
		{"bad key", native("- {at: 1m, scale: web, replicas: 1}\n"), `e.yaml: events[0].scale.key: "web" is not namespace/name`},
		{"scale a job", native("- {at: 1m, scale: default/etl, kind: Job, replicas: 1}\n"), `e.yaml: events[0].kind: "Job" does not scale: want Deployment or StatefulSet`},
		{"duration of a deployment", native("- at: 1m\n  duration: 5m\n  create: {apiVersion: apps/v1, kind: Deployment, metadata: {name: web}, spec: {selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}, spec: {containers: [{name: web, image: web}]}}}}\n"),
			"e.yaml: events[0].create: only a Job has a duration; a Deployment runs until it is deleted"},
		{"create a node", native("- at: 1m\n  create: {apiVersion: v1, kind: Node, metadata: {name: node1}}\n"), `e.yaml: events[0].create.kind: "Node" cannot be created in a replay: want Deployment, StatefulSet, Job or Pod`},
		{"bad pod spec", native("- at: 1m\n  create: {apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {containers: []}}\n"),
			"e.yaml: events[0].create: document 1 (Pod default/p): spec.containers: a pod needs at least one container"},
		{"unknown field", native("- {at: 1m, mark: a, colour: red}\n"), `e.yaml: event list: json: unknown field "colour"`},
		{"kubereplay scale without replicas", `{"cluster": "c", "events": [{"type": "scale", "kind": "Deployment", "key": "a/b", "timestamp": "2026-01-12T09:00:00Z"}]}`,
			"e.yaml: events[0].replicas: a scale event needs replicas"},
		{"kubereplay bad type", `{"cluster": "c", "events": [{"type": "restart", "kind": "Deployment", "key": "a/b", "timestamp": "2026-01-12T09:00:00Z"}]}`,
			`e.yaml: events[0].type: "restart" is not a kubereplay event type: want create, scale or delete`},
		{"kubereplay no object", `{"cluster": "c", "events": [{"type": "create", "kind": "Job", "key": "a/b", "timestamp": "2026-01-12T09:00:00Z"}]}`,
			"e.yaml: events[0].job: a create event of a Job needs the object"},
		{"kubereplay no time", `{"cluster": "c", "events": [{"type": "delete", "kind": "Job", "key": "a/b"}]}`,
			"e.yaml: events[0].timestamp: missing; every event needs its time"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := replay.ReadTrace([]byte(tc.data), "e.yaml")
			require.EqualError(t, err, tc.want)
		})
	}
}
