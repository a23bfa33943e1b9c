// Command nodeplan plans Kubernetes nodes with Karpenter's semantics, without a cluster.
// Run "nodeplan help" for the commands.
package main

import (
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
)

func main() {
	// A reader that stops early ("nodeplan catalog | head") is not an error: with SIGPIPE
	// ignored, the write fails with EPIPE and run ends quietly instead of dying of the signal.
	signal.Ignore(syscall.SIGPIPE)
	tuneGC()
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Garbage collection settings for one short run, unless GOGC or GOMEMLIMIT say otherwise: the
// heap may grow to five times what is live (a fifth less CPU on a plan of thousands of pods),
// but the collector works harder from gcMemoryLimit on, so that a plan of 100,000 pods stays
// under a gigabyte. Past the limit it only costs time (the collector takes at most half).
const (
	gcPercent     = 400
	gcMemoryLimit = 768 << 20
)

func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(gcMemoryLimit)
	}
}
