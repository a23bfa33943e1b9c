package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/nodeplan/nodeplan/cmd/nodeplan/app"
	"github.com/nodeplan/nodeplan/replay"
)

const replayDescription = `
Replay a workload trace offline through Karpenter's provisioning and disruption loops, and
say what the cluster would have cost, how many nodes it launched and deleted, and how long
pods waited. Same input, same output.

The start cluster is read as plan and consolidate read it (NodePools, nodes, running pods,
PodDisruptionBudgets, DaemonSets, volumes); it may have no nodes at all.

%s

--events reads kubereplay's ReplayLog JSON as kubereplay writes it (create, scale and
delete of Deployments and Jobs), or nodeplan's event list ("kind: Events", YAML or JSON;
see the README), which adds bare pods and StatefulSets, pod deletion, a Job's run time, spot
interruptions, node failures, NodePool updates, node-class drift and marks.

--now is the start (RFC 3339); by default the events file's start: kubereplay's first
event, or the event list's start field. A Job's pods run for spec.activeDeadlineSeconds,
else the event's duration, else --job-duration. Multi-node consolidation is Karpenter's
own (its binary search over the ranked candidates, several nodes into one new node at
most); --multi-node nodeplan makes it nodeplan consolidate's.

-o json and -o yaml print the nodeplan/v1 Replay document: summary, timeline (one point
per change of the node set or pending pods), decisions, nodes. -o html writes one
self-contained page with charts of nodes, $/h and pending pods over time, the disruption
commands marked. --compare PATH replays the same events on a second start cluster and
prints both summaries side by side.`

// Replay is the replay command reading its start cluster from the input newInput makes.
func Replay(newInput NewInput) Command {
	return inputCommand("replay", "replay a workload trace through provisioning and disruption", newInput, runReplay)
}

func runReplay(prog string, newInput NewInput, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs, in := newInputFlagSet(prog, "replay", prog+" replay %s --events FILE [--catalog aws|synthetic|FILE] [--region R] [--now RFC3339] [--node-startup D] [--job-duration D] [--until RFC3339] [--multi-node karpenter|nodeplan] [--compare PATH...] [-o table|json|yaml|html]", replayDescription, newInput, stderr)
	var eventsPath, nowFlag, untilFlag string
	fs.StringVar(&eventsPath, "events", "", "events `FILE`: a kubereplay log or a nodeplan event list")
	fs.StringVar(&nowFlag, "now", "", "start `time` in RFC 3339 (default: the start the events file gives)")
	fs.StringVar(&untilFlag, "until", "", "stop at this `time` in RFC 3339 (default: the last event plus 24h)")
	startup := fs.Duration("node-startup", replay.DefaultNodeStartup, "how long a launched node takes to be ready")
	jobDuration := fs.Duration("job-duration", replay.DefaultJobDuration, "how long a Job's pods run when neither activeDeadlineSeconds nor the event says")
	multiNode := fs.String("multi-node", "karpenter", "multi-node consolidation: `karpenter`'s own, or nodeplan consolidate's (beyond Karpenter's search, several nodes into several cheaper ones)")
	var compare pathsFlag
	fs.Var(&compare, "compare", "another start cluster's manifest `PATH` (repeatable): replay the same events on both and print the summaries side by side")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if msg := in.check(); msg != "" {
		return badFlag(stderr, fs, "%s", msg)
	}
	if in.output == "html" && len(compare) > 0 {
		return badFlag(stderr, fs, "invalid -o html with --compare: a comparison is written as table, json or yaml")
	}

	if eventsPath == "" {
		return badFlag(stderr, fs, "no events: give the trace with --events FILE (a kubereplay log or a nodeplan event list)")
	}
	if *multiNode != "karpenter" && *multiNode != "nodeplan" {
		return badFlag(stderr, fs, "invalid --multi-node %q: use karpenter or nodeplan", *multiNode)
	}
	if *startup <= 0 || *jobDuration <= 0 {
		return badFlag(stderr, fs, "--node-startup and --job-duration must be positive durations such as 60s or 10m")
	}
	var start, until time.Time
	for _, f := range []struct {
		name, value string
		into        *time.Time
	}{{"now", nowFlag, &start}, {"until", untilFlag, &until}} {
		if f.value == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339, f.value)
		if err != nil {
			return badFlag(stderr, fs, "invalid --%s %q: use RFC 3339, e.g. 2026-01-10T12:00:00Z", f.name, f.value)
		}
		*f.into = t
	}
	opts := replay.Options{NodeStartup: *startup, JobDuration: *jobDuration, Until: until, NodeplanMultiNode: *multiNode == "nodeplan"}
	bar := newProgressBar(stderr)
	if bar != nil {
		opts.Progress = bar.update
	}
	res, err := app.Replay(in.config(stdin), eventsPath, start, opts)
	bar.finish()
	if res != nil {
		warn(stderr, res.Bundle.Warnings)
	}
	if err != nil {
		return inputError(stderr, fs, err)
	}
	warn(stderr, res.Result.Warnings)
	if len(compare) > 0 {
		cfg := in.config(stdin)
		other, err := app.Replay(app.Config{Paths: compare, Catalog: cfg.Catalog, Region: cfg.Region}, eventsPath, start, opts)
		bar.finish()
		if other != nil {
			warn(stderr, other.Bundle.Warnings)
		}
		if err != nil {
			return inputError(stderr, fs, fmt.Errorf("--compare: %w", err))
		}
		warn(stderr, other.Result.Warnings)
		first := "the cluster"
		if f, ok := in.input.(*files); ok {
			first = f.paths.String()
		}
		names := [2]string{first, compare.String()}
		if in.output == "table" {
			return outputError(stderr, fs, app.WriteReplayComparison(stdout, names, res.Result, other.Result))
		}
		return outputError(stderr, fs, app.Write(stdout, app.NewReplayComparisonDocument(names, res.Result, other.Result), in.output))
	}
	switch in.output {
	case "table":
		return outputError(stderr, fs, app.WriteReplayTable(stdout, res.Result))
	case "html":
		return outputError(stderr, fs, app.WriteReplayHTML(stdout, res.Result))
	}
	return outputError(stderr, fs, app.Write(stdout, app.NewReplayDocument(res.Result), in.output))
}
