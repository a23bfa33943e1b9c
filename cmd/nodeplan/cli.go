package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Exit codes of every command.
const (
	exitOK    = 0
	exitInput = 1 // the command line was fine but the input cannot be used
	exitUsage = 2 // the command line cannot be parsed
)

// command is one subcommand: "nodeplan <name> [flags]".
type command struct {
	name    string
	summary string
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

// commands lists the subcommands in the order usage shows them. It is a function, not a
// variable, so that a command may print the general usage without an initialization cycle.
func commands() []command {
	return []command{
		{"plan", "plan the nodes for the pending pods of some manifests", runPlan},
		{"consolidate", "decide which running nodes to delete or replace", runConsolidate},
		{"replay", "replay a workload trace through provisioning and disruption", runReplay},
		{"catalog", "list the instance types of a catalog, cheapest first", runCatalog},
	}
}

// run is the whole program: main only supplies the process's arguments (without the program
// name), streams and exit.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(rest) > 0 && name == "help" {
			if c, ok := lookup(rest[0]); ok {
				return c.run([]string{"-h"}, stdin, stdout, stdout)
			}
			fmt.Fprintf(stderr, "nodeplan: unknown command %q\n\n", rest[0])
			usage(stderr)
			return exitUsage
		}
		usage(stdout)
		return exitOK
	}
	c, ok := lookup(name)
	if !ok {
		fmt.Fprintf(stderr, "nodeplan: unknown command %q\n\n", name)
		usage(stderr)
		return exitUsage
	}
	return c.run(rest, stdin, stdout, stderr)
}

func lookup(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func usage(w io.Writer) {
	fmt.Fprint(w, `nodeplan plans Kubernetes nodes with Karpenter's semantics, without a cluster.

Usage:
  nodeplan <command> [flags]

Commands:
`)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-12s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
Run "nodeplan <command> -h" for a command's flags.
Exit status: 0 done, 1 unusable input, 2 bad command line.
`)
}

// newFlagSet returns the flag set of a subcommand; its errors and usage go to stderr.
// synopsis is the line after "Usage:", description what the command does.
func newFlagSet(name, synopsis, description string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("nodeplan "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage:\n  %s\n\n%s\n\nFlags:\n", synopsis, strings.TrimSpace(description))
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses a subcommand's flags. When it returns false, the command returns code:
// exitOK after -h, exitUsage after a bad flag (the flag package has printed the error and the
// usage) or a stray argument.
func parseFlags(fs *flag.FlagSet, args []string) (code int, ok bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK, false
		}
		return exitUsage, false
	}
	if fs.NArg() > 0 {
		hint := ""
		if paths := leadingPaths(fs.Args()); len(paths) > 0 && fs.Lookup("f") != nil {
			hint = fmt.Sprintf(": did you mean -f %s?", strings.Join(paths, " -f "))
		}
		fmt.Fprintf(fs.Output(), "%s: unexpected argument %q%s\nRun \"%s -h\" for usage.\n", fs.Name(), fs.Arg(0), hint, fs.Name())
		return exitUsage, false
	}
	return exitOK, true
}

// leadingPaths returns the arguments before the first flag-like one when they all look like
// manifest paths (an existing file or directory, a .yaml, .yml or .json name, or - for
// stdin), the usual slip of leaving out -f; else nil.
func leadingPaths(args []string) []string {
	var paths []string
	for _, a := range args {
		if a != "-" && strings.HasPrefix(a, "-") {
			break
		}
		ext := strings.ToLower(filepath.Ext(a))
		if _, err := os.Stat(a); err != nil && a != "-" && ext != ".yaml" && ext != ".yml" && ext != ".json" {
			return nil
		}
		paths = append(paths, a)
	}
	return paths
}

// badFlag reports a flag value that cannot be used and returns exitUsage.
func badFlag(stderr io.Writer, fs *flag.FlagSet, format string, args ...any) int {
	fmt.Fprintf(stderr, "%s: %s\nRun \"%s -h\" for usage.\n", fs.Name(), fmt.Sprintf(format, args...), fs.Name())
	return exitUsage
}

// inputError reports input that cannot be used and returns exitInput.
func inputError(stderr io.Writer, fs *flag.FlagSet, err error) int {
	fmt.Fprintf(stderr, "%s: %v\n", fs.Name(), err)
	return exitInput
}

// outputError ends a command after writing its output: exitOK when err is nil or the reader
// has gone away (a closed pipe, as with "| head"), else the error and exitInput.
func outputError(stderr io.Writer, fs *flag.FlagSet, err error) int {
	if err == nil || errors.Is(err, syscall.EPIPE) {
		return exitOK
	}
	fmt.Fprintf(stderr, "%s: writing output: %v\n", fs.Name(), err)
	return exitInput
}
