package cli

import (
	"flag"
	"fmt"
	"io"
	"math"

	"github.com/nodeplan/nodeplan/cmd/nodeplan/app"
	"github.com/nodeplan/nodeplan/manifest"
	"github.com/nodeplan/nodeplan/scheduling"
)

// planDescription is the plan command's help around its input's paragraph.
const planDescription = `
Plan the nodes Karpenter would launch for the pending pods in the manifests: which new nodes
(NodePool, instance type, zone, capacity type, price), which pods go on existing nodes, and
which pods cannot be scheduled and why.

%s

Deployments, StatefulSets, Jobs… expand into their pods; Pods with spec.nodeName and Nodes
are the running cluster. Without a NodePool in the input, a "default" NodePool with no
requirements is used. Every NodePool may choose any instance type of the catalog its
requirements allow.

The table shows, per new node, the share of its allocatable CPU and memory that its pods and
the DaemonSet pods it would run request. -o json and -o yaml print the nodeplan/v1 Plan
document; -o html writes one self-contained HTML page (nodes drawn by zone, pods coloured by
workload, cost by workload) to open in a browser. --explain NAMESPACE/POD tells where one pod
goes and what constrained it; with -o json, yaml or html the document goes to stdout and the
explanation to stderr.

Exit status: 0 when a plan was made (even with unschedulable pods), 1 for unusable input,
2 for a bad command line.`

// inputFlags are the flags of the commands that read manifests: the input's, the catalog's
// and -o.
type inputFlags struct {
	input   Input
	catalog *catalogFlags
	output  string
}

func addInputFlags(fs *flag.FlagSet, newInput NewInput) *inputFlags {
	f := &inputFlags{catalog: addCatalogFlags(fs, true), input: newInput(fs)}
	fs.StringVar(&f.output, "o", "table", "output `format`: table, json, yaml or html (one self-contained page)")
	fs.StringVar(&f.output, "output", "table", "output `format` (same as -o)")
	return f
}

// check validates the flags after parsing; a non-empty message is a bad command line.
func (f *inputFlags) check() string {
	if msg := f.input.Check(); msg != "" {
		return msg
	}
	if msg := f.catalog.check(); msg != "" {
		return msg
	}
	switch f.output {
	case "table", "json", "yaml", "html":
		return ""
	}
	return fmt.Sprintf("invalid -o %q: use table, json, yaml or html", f.output)
}

func (f *inputFlags) config(stdin io.Reader) app.Config {
	load := func() (*manifest.Bundle, error) { return f.input.Load(stdin) }
	return app.Config{Load: load, Catalog: f.catalog.catalog, Region: f.catalog.region}
}

// newInputFlagSet returns the flag set of a command that reads objects from the input
// newInput makes, with the input's, the catalog's and -o flags; synopsis and description
// have a %s for the input's synopsis and help paragraph.
func newInputFlagSet(prog, name, synopsis, description string, newInput NewInput, stderr io.Writer) (*flag.FlagSet, *inputFlags) {
	help := newInput(flag.NewFlagSet("", flag.ContinueOnError))
	fs := newFlagSet(prog, name, fmt.Sprintf(synopsis, help.Synopsis()), fmt.Sprintf(description, help.Help()), stderr)
	return fs, addInputFlags(fs, newInput)
}

// inputCommand is a command whose run reads its objects from the input newInput makes.
func inputCommand(name, summary string, newInput NewInput, run func(prog string, newInput NewInput, args []string, stdin io.Reader, stdout, stderr io.Writer) int) Command {
	return Command{name, summary, func(prog string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
		return run(prog, newInput, args, stdin, stdout, stderr)
	}}
}

// Plan is the plan command reading its objects from the input newInput makes.
func Plan(newInput NewInput) Command {
	return inputCommand("plan", "plan the nodes for the pending pods of some manifests", newInput, runPlan)
}

func runPlan(prog string, newInput NewInput, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs, in := newInputFlagSet(prog, "plan", prog+" plan %s [--catalog aws|synthetic|FILE] [--region R] [-o table|json|yaml|html] [--explain POD] [--preferences Respect|Ignore] [--min-values Strict|BestEffort] [--node-cost USD] [--strategy cheapest|karpenter]", planDescription, newInput, stderr)
	var explain, preferences, minValues, strategy string
	fs.StringVar(&explain, "explain", "", "explain the placement of one `POD` (namespace/name; the namespace defaults to default), or of a workload's first pending pod (deployment/web, shop/statefulset/db)")
	fs.StringVar(&preferences, "preferences", string(scheduling.PreferencesRespect), "`policy` for preferred scheduling terms: Respect (relax them one at a time when a pod cannot be placed otherwise) or Ignore")
	fs.StringVar(&minValues, "min-values", string(scheduling.MinValuesStrict), "`policy` for NodePool minValues: Strict (refuse nodes with fewer distinct values) or BestEffort (keep them, with a note)")
	fs.StringVar(&strategy, "strategy", string(scheduling.StrategyCheapest), "what to plan: cheapest (the cheapest valid nodes, repacked) or karpenter (what Karpenter itself would launch: its order, first-fit, no repacking)")
	nodeCost := fs.Float64("node-cost", scheduling.DefaultNodeCost, "what each new node costs in `USD` per hour beyond its instance price (root volume, public IPv4); the default is a 20 GiB gp3 volume; 0 for none")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if msg := in.check(); msg != "" {
		return badFlag(stderr, fs, "%s", msg)
	}
	if *nodeCost < 0 || math.IsNaN(*nodeCost) || math.IsInf(*nodeCost, 0) {
		return badFlag(stderr, fs, "invalid --node-cost %v: use a price in USD per hour, 0 or more", *nodeCost)
	}
	opts := scheduling.Options{PreferencePolicy: scheduling.PreferencePolicy(preferences), MinValuesPolicy: scheduling.MinValuesPolicy(minValues), NodeCost: *nodeCost, Strategy: scheduling.Strategy(strategy)}
	if *nodeCost == 0 {
		opts.NodeCost = -1 // none
	}
	switch opts.PreferencePolicy {
	case scheduling.PreferencesRespect, scheduling.PreferencesIgnore:
	default:
		return badFlag(stderr, fs, "invalid --preferences %q: use Respect or Ignore", preferences)
	}
	switch opts.MinValuesPolicy {
	case scheduling.MinValuesStrict, scheduling.MinValuesBestEffort:
	default:
		return badFlag(stderr, fs, "invalid --min-values %q: use Strict or BestEffort", minValues)
	}
	switch opts.Strategy {
	case scheduling.StrategyCheapest, scheduling.StrategyKarpenter:
	default:
		return badFlag(stderr, fs, "invalid --strategy %q: use cheapest or karpenter", strategy)
	}
	var (
		res  *app.Planned
		text string
		err  error
	)
	if explain != "" {
		res, text, err = app.ExplainPlan(in.config(stdin), opts, explain)
	} else {
		res, err = app.Plan(in.config(stdin), opts)
	}
	if res != nil {
		warn(stderr, res.Bundle.Warnings)
	}
	if err != nil {
		return inputError(stderr, fs, err)
	}
	switch {
	case explain != "" && in.output == "table":
		// The explanation is the answer asked for.
		_, err = io.WriteString(stdout, text)
		return outputError(stderr, fs, err)
	case explain != "":
		// A document for tools on stdout, the explanation for the reader on stderr.
		if _, err := io.WriteString(stderr, text); err != nil {
			return outputError(stderr, fs, err)
		}
	}
	switch in.output {
	case "table":
		return outputError(stderr, fs, app.WritePlanTable(stdout, res))
	case "html":
		return outputError(stderr, fs, app.WritePlanHTML(stdout, res))
	}
	return outputError(stderr, fs, app.Write(stdout, app.NewPlanDocument(res.Plan), in.output))
}

// warn prints the loader's warnings, one a line.
func warn(stderr io.Writer, warnings []string) {
	for _, w := range warnings {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
}
