// Package cli is nodeplan's command line: the commands, their flags, usage and exit codes,
// over package app. The nodeplan binary runs Nodeplan(); kubectl-nodeplan (its own module)
// runs the same plan and consolidate commands with an Input that reads a cluster instead of
// files, so both take the same flags and print the same output.
package cli

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
	ExitOK    = 0
	ExitInput = 1 // the command line was fine but the input cannot be used
	ExitUsage = 2 // the command line cannot be parsed
)

// Command is one subcommand: "<program> <name> [flags]". Run gets the arguments after the
// name; prog is the program's name for messages ("nodeplan", "kubectl nodeplan").
type Command struct {
	Name    string
	Summary string
	Run     func(prog string, args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

// Program is a command-line program made of commands.
type Program struct {
	// Name is how the user calls it: "nodeplan" or "kubectl nodeplan".
	Name string
	// About is the first line of the usage.
	About    string
	Commands []Command
}

// Nodeplan is the nodeplan program: plan, consolidate and catalog, reading files.
func Nodeplan() Program {
	return Program{
		Name:  "nodeplan",
		About: "nodeplan plans Kubernetes nodes with Karpenter's semantics, without a cluster.",
		Commands: []Command{
			Plan(Files),
			Consolidate(Files),
			Replay(Files),
			{"catalog", "list the instance types of a catalog, cheapest first", runCatalog},
		},
	}
}

// Run is the whole program: main only supplies the process's arguments (without the program
// name), streams and exit.
func (p Program) Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		p.usage(stderr)
		return ExitUsage
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(rest) > 0 && name == "help" {
			if c, ok := p.lookup(rest[0]); ok {
				return c.Run(p.Name, []string{"-h"}, stdin, stdout, stdout)
			}
			return p.unknownCommand(stderr, rest[0])
		}
		p.usage(stdout)
		return ExitOK
	}
	c, ok := p.lookup(name)
	if !ok {
		return p.unknownCommand(stderr, name)
	}
	return c.Run(p.Name, rest, stdin, stdout, stderr)
}

func (p Program) lookup(name string) (Command, bool) {
	for _, c := range p.Commands {
		if c.Name == name {
			return c, true
		}
	}
	return Command{}, false
}

func (p Program) usage(w io.Writer) {
	fmt.Fprintf(w, `%s

Usage:
  %s <command> [flags]

Commands:
`, p.About, p.Name)
	for _, c := range p.Commands {
		fmt.Fprintf(w, "  %-12s %s\n", c.Name, c.Summary)
	}
	fmt.Fprintf(w, `
Run "%s <command> -h" for a command's flags.
Exit status: 0 done, 1 unusable input, 2 bad command line.
`, p.Name)
}

// newFlagSet returns the flag set of a subcommand; its errors and usage go to stderr.
// synopsis is the line after "Usage:", description what the command does.
func newFlagSet(prog, name, synopsis, description string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(prog+" "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage:\n  %s\n\n%s\n\nFlags:\n", synopsis, strings.TrimSpace(description))
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses a subcommand's flags. When it returns false, the command returns code:
// ExitOK after -h, ExitUsage after a bad flag (a short error naming the nearest flag) or a
// stray argument.
func parseFlags(fs *flag.FlagSet, args []string) (code int, ok bool) {
	if err := parseShort(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK, false
		}
		return ExitUsage, false
	}
	if fs.NArg() > 0 {
		hint := ""
		if paths := leadingPaths(fs.Args()); len(paths) > 0 && fs.Lookup("f") != nil {
			hint = fmt.Sprintf(": did you mean -f %s?", strings.Join(paths, " -f "))
		}
		fmt.Fprintf(fs.Output(), "%s: unexpected argument %q%s\nRun \"%s -h\" for usage.\n", fs.Name(), fs.Arg(0), hint, fs.Name())
		return ExitUsage, false
	}
	return ExitOK, true
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

// badFlag reports a flag value that cannot be used and returns ExitUsage.
func badFlag(stderr io.Writer, fs *flag.FlagSet, format string, args ...any) int {
	fmt.Fprintf(stderr, "%s: %s\nRun \"%s -h\" for usage.\n", fs.Name(), fmt.Sprintf(format, args...), fs.Name())
	return ExitUsage
}

// inputError reports input that cannot be used and returns ExitInput.
func inputError(stderr io.Writer, fs *flag.FlagSet, err error) int {
	fmt.Fprintf(stderr, "%s: %v\n", fs.Name(), err)
	return ExitInput
}

// outputError ends a command after writing its output: ExitOK when err is nil or the reader
// has gone away (a closed pipe, as with "| head"), else the error and ExitInput.
func outputError(stderr io.Writer, fs *flag.FlagSet, err error) int {
	if err == nil || errors.Is(err, syscall.EPIPE) {
		return ExitOK
	}
	fmt.Fprintf(stderr, "%s: writing output: %v\n", fs.Name(), err)
	return ExitInput
}

// NewFlagSet returns the flag set of another program's command, with nodeplan's usage
// layout (kubectl nodeplan snapshot uses it).
func NewFlagSet(prog, name, synopsis, description string, stderr io.Writer) *flag.FlagSet {
	return newFlagSet(prog, name, synopsis, description, stderr)
}

// ParseFlags parses a command's flags as nodeplan's commands do; when it returns false, the
// command returns code.
func ParseFlags(fs *flag.FlagSet, args []string) (code int, ok bool) { return parseFlags(fs, args) }

// BadFlag reports a flag value that cannot be used and returns ExitUsage.
func BadFlag(stderr io.Writer, fs *flag.FlagSet, format string, args ...any) int {
	return badFlag(stderr, fs, format, args...)
}

// InputError reports input that cannot be used and returns ExitInput.
func InputError(stderr io.Writer, fs *flag.FlagSet, err error) int {
	return inputError(stderr, fs, err)
}
