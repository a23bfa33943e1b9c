package main

import (
	"io"

	"github.com/nodeplan/nodeplan/cmd/nodeplan/cli"
	"github.com/nodeplan/nodeplan/kubectl-nodeplan/internal/cluster"
)

// program is kubectl nodeplan: nodeplan's plan, consolidate and replay (its start state) on
// the cluster, and snapshot. Progress goes to stderr.
func program(stderr io.Writer) cli.Program {
	return cli.Program{
		Name:  "kubectl nodeplan",
		About: "kubectl nodeplan runs nodeplan on the cluster of the current kubeconfig context, read-only.",
		Commands: []cli.Command{
			cli.Plan(cluster.Input(stderr, true)),
			cli.Consolidate(cluster.Input(stderr, false)),
			cli.Replay(cluster.Input(stderr, false)),
			snapshotCommand(),
		},
	}
}

// run is the whole program: main supplies the arguments (without the program name), streams
// and exit.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return program(stderr).Run(args, stdin, stdout, stderr)
}
