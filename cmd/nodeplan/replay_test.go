package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const (
	replayCluster = "../../examples/replay-stateful-ebs/cluster"
	replayEvents  = "../../examples/replay-stateful-ebs/events.yaml"
)

func TestReplay(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := nodeplan("replay", "-f", replayCluster, "--events", replayEvents)
	require.Equal(t, exitOK, code, stderr)
	require.Empty(t, stderr)
	require.Contains(t, stdout, "SPAN        2026-01-12T09:00:00Z to 2026-01-12T09:41:01Z (41m1s)\n")
	require.Contains(t, stdout, "DELETED     1 nodes: 1 empty\n")
	require.Contains(t, stdout, "COMMANDS    1 started, 0 abandoned at validation\n")
	require.Contains(t, stdout, "c6g.large       on-demand   2       0.39         $0.03\n")

	code, yaml, stderr := nodeplan("replay", "-f", replayCluster, "--events", replayEvents, "-o", "yaml")
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, yaml, "apiVersion: nodeplan/v1\nkind: Replay\n")
	_, again, _ := nodeplan("replay", "-f", replayCluster, "--events", replayEvents, "-o", "yaml")
	require.Equal(t, yaml, again, "the same input gives the same document")

	code, page, stderr := nodeplan("replay", "-f", replayCluster, "--events", replayEvents, "-o", "html")
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, page, "<h3>Cost per hour</h3>")
	require.Contains(t, page, "<title>2026-01-12T09:22:15Z disrupt Emptiness empty default-1</title>", "the command is marked on the charts")
	require.NotContains(t, page, "http", "no network needed")
	_, again, _ = nodeplan("replay", "-f", replayCluster, "--events", replayEvents, "-o", "html")
	require.Equal(t, page, again)
}

func TestReplayUsage(t *testing.T) {
	t.Parallel()
	bad := filepath.Join(t.TempDir(), "events.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("kind: Events\nstart: \"2026-01-12T09:00:00Z\"\nevents:\n- {at: 1m, scale: default/web}\n"), 0o600))
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"no events", []string{"-f", replayCluster}, exitUsage, "no events: give the trace with --events FILE"},
		{"html comparison", []string{"-f", replayCluster, "--events", replayEvents, "-o", "html", "--compare", replayCluster}, exitUsage, "invalid -o html with --compare"},
		{"bad until", []string{"-f", replayCluster, "--events", replayEvents, "--until", "tomorrow"}, exitUsage, `invalid --until "tomorrow"`},
		{"bad startup", []string{"-f", replayCluster, "--events", replayEvents, "--node-startup", "0s"}, exitUsage, "--node-startup and --job-duration must be positive"},
		{"bad multi-node", []string{"-f", replayCluster, "--events", replayEvents, "--multi-node", "best"}, exitUsage, `invalid --multi-node "best": use karpenter or nodeplan`},
		{"bad event", []string{"-f", replayCluster, "--events", bad}, exitInput, "events.yaml: events[0].replicas: a scale event needs replicas, 0 or more"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := nodeplan(append([]string{"replay"}, tc.args...)...)
			require.Equal(t, tc.code, code)
			require.Contains(t, stderr, tc.stderr)
		})
	}
}

// --compare replays the same events on a second start cluster and prints both summaries.
func TestReplayCompare(t *testing.T) {
	t.Parallel()
	other := t.TempDir()
	for _, name := range []string{"nodepool.yaml", "storage.yaml"} {
		data, err := os.ReadFile(filepath.Join(replayCluster, name))
		require.NoError(t, err)
		if name == "nodepool.yaml" {
			data = []byte(strings.Replace(string(data), "consolidateAfter: 2m", "consolidateAfter: 10m", 1))
		}
		require.NoError(t, os.WriteFile(filepath.Join(other, name), data, 0o600))
	}
	code, stdout, stderr := nodeplan("replay", "-f", replayCluster, "--events", replayEvents, "--compare", other)
	require.Equal(t, exitOK, code, stderr)
	// The empty node stays 8 minutes longer with consolidateAfter 10m.
	require.Contains(t, stdout, "total cost             $0.03     $0.04     +$0.01\n")
	require.Contains(t, stdout, "deleted empty          1         1         0\n")

	code, doc, stderr := nodeplan("replay", "-f", replayCluster, "--events", replayEvents, "--compare", other, "-o", "json")
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, doc, `"kind": "ReplayComparison"`)
}
