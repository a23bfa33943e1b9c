package main

import (
	"io"

	"github.com/nodeplan/nodeplan/cmd/nodeplan/cli"
)

// run is the whole program: main only supplies the process's arguments (without the program
// name), streams and exit.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return cli.Nodeplan().Run(args, stdin, stdout, stderr)
}
