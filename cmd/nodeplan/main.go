// Command nodeplan plans Kubernetes nodes with Karpenter's semantics, without a cluster.
// Run "nodeplan help" for the commands.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	// A reader that stops early ("nodeplan catalog | head") is not an error: with SIGPIPE
	// ignored, the write fails with EPIPE and run ends quietly instead of dying of the signal.
	signal.Ignore(syscall.SIGPIPE)
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
