package main

import (
	"bytes"
	"context"
	"io"
	"os"

	"github.com/nodeplan/nodeplan/cmd/nodeplan/cli"
	"github.com/nodeplan/nodeplan/kubectl-nodeplan/internal/cluster"
)

const snapshotDescription = `
Write what kubectl nodeplan reads from the cluster to a file: every kind nodeplan reads
(Secrets and ConfigMaps never), one "kind: List" document per kind, without managedFields.
"nodeplan plan -f FILE" and "nodeplan consolidate -f FILE" then give, offline, the answer
"kubectl nodeplan plan" and "consolidate" give now (pass the same --now to consolidate), so
a bug report can carry its input.

-o - writes to stdout. -n NAMESPACE keeps only that namespace's pending pods and workloads,
as "kubectl nodeplan plan -n" reads them.`

func snapshotCommand() cli.Command {
	return cli.Command{Name: "snapshot", Summary: "save what kubectl nodeplan reads as YAML, for nodeplan -f", Run: func(prog string, args []string, _ io.Reader, stdout, stderr io.Writer) int {
		return runSnapshot(prog, args, stdout, stderr)
	}}
}

func runSnapshot(prog string, args []string, stdout, stderr io.Writer) int {
	fs := cli.NewFlagSet(prog, "snapshot", prog+" snapshot -o FILE.yaml [--kubeconfig FILE] [--context NAME] [-n NAMESPACE | -A]", snapshotDescription, stderr)
	flags := cluster.AddFlags(fs, true)
	var out string
	fs.StringVar(&out, "o", "", "`file` to write the snapshot to (- for stdout)")
	fs.StringVar(&out, "output", "", "`file` (same as -o)")
	if code, ok := cli.ParseFlags(fs, args); !ok {
		return code
	}
	if out == "" {
		return cli.BadFlag(stderr, fs, "no output: give the file to write with -o FILE.yaml (or -o - for stdout)")
	}
	if msg := flags.Check(); msg != "" {
		return cli.BadFlag(stderr, fs, "%s", msg)
	}
	lists, err := flags.Read(context.Background(), stderr)
	if err != nil {
		return cli.InputError(stderr, fs, err)
	}
	// Check that nodeplan can read it before writing, so a bad object is reported now.
	if _, err := cluster.Bundle(lists); err != nil {
		return cli.InputError(stderr, fs, err)
	}
	var buf bytes.Buffer
	if err := cluster.WriteSnapshot(&buf, lists); err != nil {
		return cli.InputError(stderr, fs, err)
	}
	if out == "-" {
		_, err = stdout.Write(buf.Bytes())
	} else {
		err = os.WriteFile(out, buf.Bytes(), 0o644)
	}
	if err != nil {
		return cli.InputError(stderr, fs, err)
	}
	return cli.ExitOK
}
