// Command kubectl-nodeplan is nodeplan on a live cluster: "kubectl nodeplan plan",
// "consolidate" and "snapshot" read the current kubeconfig context, read-only, and run
// nodeplan's commands with the same flags and output.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	// A reader that stops early ("kubectl nodeplan plan | head") is not an error.
	signal.Ignore(syscall.SIGPIPE)
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
