package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/cmd/nodeplan/app"
	"github.com/nodeplan/nodeplan/scheduling"
)

const now = "2026-01-12T12:00:00Z"

// checkDocument runs the command on a document given on stdin and returns its failures and
// output.
func checkDocument(t *testing.T, doc any, format string, args ...string) (int, string) {
	t.Helper()
	data, err := app.Encode(doc, format)
	require.NoError(t, err)
	var out, errOut bytes.Buffer
	failures, err := run(append(args, "-"), bytes.NewReader(data), &out, &errOut)
	require.NoError(t, err, errOut.String())
	return failures, out.String()
}

// A plan nodeplan wrote passes; the same plan with a pod dropped fails.
func TestChecksAPlanDocument(t *testing.T) {
	cfg := app.Config{Paths: []string{"../../../examples/pod-affinity"}}
	res, err := app.Plan(cfg, scheduling.Options{})
	require.NoError(t, err)
	args := []string{"-f", cfg.Paths[0]}

	failures, out := checkDocument(t, app.NewPlanDocument(res.Plan), "json", args...)
	require.Zero(t, failures, out)
	require.Contains(t, out, "failures none")

	bad := res.Plan
	bad.NodeClaims = append(bad.NodeClaims[:0:0], bad.NodeClaims...)
	bad.NodeClaims[0].Pods = bad.NodeClaims[0].Pods[1:]
	failures, out = checkDocument(t, app.NewPlanDocument(bad), "yaml", args...)
	require.Equal(t, 2, failures, out) // the pod is missing, and the summary counts it placed
	require.Contains(t, out, "FAIL")
}

// Decisions nodeplan wrote pass; the same decisions with a move taken out lose that pod.
func TestChecksADecisionsDocument(t *testing.T) {
	cfg := app.Config{Paths: []string{"../../../examples/ha-consolidation"}}
	at, err := time.Parse(time.RFC3339, now)
	require.NoError(t, err)
	res, err := app.Consolidate(cfg, at)
	require.NoError(t, err)
	require.NotEmpty(t, res.Decisions.Commands)
	require.NotEmpty(t, res.Decisions.Commands[0].Moves)
	args := []string{"-f", cfg.Paths[0], "--now", now}

	failures, out := checkDocument(t, app.NewDecisionsDocument(res.Decisions), "yaml", args...)
	require.Zero(t, failures, out)

	bad := res.Decisions
	bad.Commands = append(bad.Commands[:0:0], bad.Commands...)
	bad.Commands[0].Moves = bad.Commands[0].Moves[1:]
	failures, out = checkDocument(t, app.NewDecisionsDocument(bad), "json", args...)
	require.Equal(t, 1, failures, out)
	require.Contains(t, out, "moves it nowhere")
}

func TestRefusesWhatIsNotADocument(t *testing.T) {
	for _, doc := range []string{"apiVersion: v1\nkind: Pod\n", "apiVersion: nodeplan/v1\nkind: Replay\n", "{"} {
		var out, errOut bytes.Buffer
		_, err := run([]string{"-f", "../../../examples/pod-affinity", "-"}, strings.NewReader(doc), &out, &errOut)
		require.Error(t, err, doc)
	}
	var out, errOut bytes.Buffer
	_, err := run([]string{"plan.json"}, nil, &out, &errOut)
	require.ErrorIs(t, err, errUsage)
}
