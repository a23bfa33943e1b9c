// Command check runs kube-scheduler's filters on the cluster a nodeplan/v1 Plan or Decisions
// document leaves behind, whoever wrote it: nodeplan, or another tool writing the same shape.
// It reads the input as the nodeplan CLI does (-f, --catalog, --region), then the document
// (JSON or YAML, "-" for stdin), and prints every failure with package check. It exits 0 when
// there is none, 1 when there are failures, and 2 for a bad command line or unreadable input.
//
//	nodeplan plan -f examples/spread-zones -o json > plan.json
//	go run ./cmd/check -f ../examples/spread-zones plan.json
//	nodeplan consolidate -f cluster.yaml -o yaml | go run ./cmd/check -f cluster.yaml -
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/nodeplan/nodeplan/cmd/nodeplan/app"
	"github.com/nodeplan/nodeplan/conformance/check"
	"github.com/nodeplan/nodeplan/manifest"
	"github.com/nodeplan/nodeplan/scheduling"
)

// paths collects repeated -f flags.
type paths []string

func (p *paths) String() string     { return strings.Join(*p, ",") }
func (p *paths) Set(v string) error { *p = append(*p, v); return nil }

// errUsage marks a bad command line (exit 2).
var errUsage = errors.New("usage")

func main() {
	failures, err := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	switch {
	case errors.Is(err, errUsage):
		os.Exit(2)
	case err != nil:
		fmt.Fprintln(os.Stderr, "check:", err)
		os.Exit(2)
	case failures > 0:
		os.Exit(1)
	}
}

// run checks the document the arguments name and returns how many failures it found.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg app.Config
	var files paths
	fs.Var(&files, "f", "manifest file or directory of the input, repeatable (\"-\" for stdin)")
	fs.StringVar(&cfg.Catalog, "catalog", "", "instance-type catalog: aws (default), synthetic or a catalog file")
	fs.StringVar(&cfg.Region, "region", "", "region of the catalog (default: the one the input's zones imply)")
	nowFlag := fs.String("now", "", "time the decisions were made at, RFC 3339 (default: now); only ages depend on it")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: check -f INPUT [--catalog NAME] [--region REGION] [--now TIME] DOCUMENT|-")
		fmt.Fprintln(stderr, "Checks a nodeplan/v1 Plan or Decisions document against kube-scheduler's filters.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 0, errUsage
	}
	if len(files) == 0 || fs.NArg() != 1 {
		fs.Usage()
		return 0, errUsage
	}
	docPath := fs.Arg(0)
	if docPath == "-" {
		for _, f := range files {
			if f == "-" {
				return 0, errors.New("only one of -f and the document can be read from stdin")
			}
		}
	}
	now := time.Now()
	if *nowFlag != "" {
		t, err := time.Parse(time.RFC3339, *nowFlag)
		if err != nil {
			return 0, fmt.Errorf("--now %q: %w (write it like 2026-11-25T10:00:00Z)", *nowFlag, err)
		}
		now = t
	}
	cfg.Paths, cfg.Stdin = files, stdin

	var data []byte
	var err error
	if docPath == "-" {
		data, err = io.ReadAll(stdin)
	} else {
		data, err = os.ReadFile(docPath)
	}
	if err != nil {
		return 0, fmt.Errorf("reading the document: %w", err)
	}
	doc, err := check.ReadDocument(data)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", docPath, err)
	}

	var res check.Result
	switch doc.Kind {
	case check.KindPlan:
		in, b, err := app.PlanInput(cfg)
		printWarnings(stderr, b)
		if err != nil {
			return 0, err
		}
		plan := *doc.Plan
		if !doc.HasSummary {
			plan.Summary = summaryOf(in, plan)
			fmt.Fprintln(stderr, "note: the plan has no summary, so it is not checked")
		}
		if res, err = check.Plan(in, plan); err != nil {
			return 0, err
		}
	case check.KindDecisions:
		in, b, err := app.DisruptionInput(cfg, now)
		printWarnings(stderr, b)
		if err != nil {
			return 0, err
		}
		if res, err = check.Decisions(in, *doc.Decisions); err != nil {
			return 0, err
		}
	}
	fmt.Fprintln(stdout, res.Summary())
	for _, f := range res.Failures {
		fmt.Fprintln(stdout, "FAIL", f)
	}
	for _, f := range res.Preexisting {
		fmt.Fprintln(stdout, "already before the decisions:", f)
	}
	for _, p := range res.Pending {
		fmt.Fprintln(stdout, "left pending by a forceful command:", p)
	}
	return len(res.Failures), nil
}

// printWarnings shows the input's warnings as the nodeplan CLI does, on stderr.
func printWarnings(w io.Writer, b *manifest.Bundle) {
	if b == nil {
		return
	}
	for _, warning := range b.Warnings {
		fmt.Fprintln(w, "warning:", warning)
	}
}

// summaryOf is the summary a plan without one would carry, so only its placements are checked.
func summaryOf(in scheduling.Input, p scheduling.Plan) scheduling.Summary {
	s := scheduling.Summary{Pods: len(in.Pods), NewNodes: len(p.NodeClaims)}
	for _, nc := range p.NodeClaims {
		s.Placed += len(nc.Pods)
		s.HourlyCost += nc.Price
	}
	for _, e := range p.ExistingNodes {
		s.Placed += len(e.Pods)
	}
	return s
}
