package cli

import (
	"io"
	"time"

	"github.com/nodeplan/nodeplan/cmd/nodeplan/app"
)

// consolidateDescription is the consolidate command's help around its input's paragraph.
const consolidateDescription = `
Decide which running nodes Karpenter's disruption would delete or replace now: emptiness,
expiration, drift, multi-node and single-node consolidation, within NodePool budgets,
PodDisruptionBudgets and karpenter.sh/do-not-disrupt; and why every other node stays.

%s

The objects are the running cluster: Nodes (their labels give NodePool, instance type, zone
and capacity type; the catalog gives their price), Pods with spec.nodeName, NodeClaims when
present (creation time, Initialized, Consolidatable), PodDisruptionBudgets, NodePools,
DaemonSets, volumes; pending pods come first: a node they are planned onto is nominated and
not disrupted (Expiration aside), and room they need is not promised to evicted pods.

--now is the time the decision is made at (RFC 3339, default: the current time): node ages,
expireAfter, consolidateAfter and budget schedules are measured against it.

-o json and -o yaml print the nodeplan/v1 Decisions document; -o html writes one
self-contained HTML page with the cluster before and after, the commands and the nodes left
alone.`

// Consolidate is the consolidate command reading its objects from the input newInput makes.
func Consolidate(newInput NewInput) Command {
	return inputCommand("consolidate", "decide which running nodes to delete or replace", newInput, runConsolidate)
}

func runConsolidate(prog string, newInput NewInput, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs, in := newInputFlagSet(prog, "consolidate", prog+" consolidate %s [--catalog aws|synthetic|FILE] [--region R] [--now RFC3339] [-o table|json|yaml|html]", consolidateDescription, newInput, stderr)
	var nowFlag string
	fs.StringVar(&nowFlag, "now", "", "decision `time` in RFC 3339, e.g. 2026-01-10T12:00:00Z (default: the current time)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if msg := in.check(); msg != "" {
		return badFlag(stderr, fs, "%s", msg)
	}
	var now time.Time
	if nowFlag == "" {
		now = time.Now() // the only clock read: the library takes time as input
	} else {
		var err error
		if now, err = time.Parse(time.RFC3339, nowFlag); err != nil {
			return badFlag(stderr, fs, "invalid --now %q: use RFC 3339, e.g. 2026-01-10T12:00:00Z", nowFlag)
		}
	}

	res, err := app.Consolidate(in.config(stdin), now)
	if res != nil {
		warn(stderr, res.Bundle.Warnings)
	}
	if err != nil {
		return inputError(stderr, fs, err)
	}
	warn(stderr, res.Decisions.Warnings)
	switch in.output {
	case "table":
		return outputError(stderr, fs, app.WriteDecisionsTable(stdout, res))
	case "html":
		return outputError(stderr, fs, app.WriteDecisionsHTML(stdout, res))
	}
	return outputError(stderr, fs, app.Write(stdout, app.NewDecisionsDocument(res.Decisions), in.output))
}
