package cli

import (
	"flag"
	"io"
	"strings"

	"github.com/nodeplan/nodeplan/manifest"
)

// Input is where a command that reads Kubernetes objects gets them: files for nodeplan (-f),
// a cluster for kubectl nodeplan.
type Input interface {
	// Synopsis is how the usage line shows the input's flags, e.g. "-f PATH...".
	Synopsis() string
	// Help is the paragraph of the command's help that says where the objects come from.
	Help() string
	// Check validates the flags after parsing; a message is a bad command line.
	Check() string
	// Load reads the objects.
	Load(stdin io.Reader) (*manifest.Bundle, error)
}

// NewInput registers an Input's flags on a command's flag set, before parsing.
type NewInput func(fs *flag.FlagSet) Input

// pathsFlag collects -f values: repeated, or comma-separated.
type pathsFlag []string

func (p *pathsFlag) String() string { return strings.Join(*p, ",") }

func (p *pathsFlag) Set(v string) error {
	for _, path := range strings.Split(v, ",") {
		if path != "" {
			*p = append(*p, path)
		}
	}
	return nil
}

// files is the -f input: manifest files, directories and stdin.
type files struct{ paths pathsFlag }

// Files is nodeplan's input: -f PATH (files, directories, - for stdin), repeatable.
func Files(fs *flag.FlagSet) Input {
	f := &files{}
	fs.Var(&f.paths, "f", "manifest `PATH`: a file, a directory or - for stdin (repeatable)")
	fs.Var(&f.paths, "filename", "manifest `PATH` (same as -f)")
	return f
}

func (f *files) Synopsis() string { return "-f PATH..." }

func (f *files) Help() string {
	return `-f takes files and directories (every *.yaml, *.yml and *.json below them, dot folders
skipped) and - for stdin; repeat it or separate paths with commas. They hold the objects as
"kubectl get -o yaml" writes them.`
}

func (f *files) Check() string {
	if len(f.paths) == 0 {
		return "no input: give manifests with -f PATH (a file, a directory or - for stdin)"
	}
	return ""
}

func (f *files) Load(stdin io.Reader) (*manifest.Bundle, error) {
	return manifest.Load(f.paths, stdin)
}
