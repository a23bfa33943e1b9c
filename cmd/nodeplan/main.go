// Command nodeplan plans Kubernetes nodes with Karpenter's semantics, without a cluster.
// Run "nodeplan help" for the commands.
package main

import (
	"os"
	"os/signal"
	"runtime"
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

// Garbage collection settings for one short run, unless GOGC or GOMEMLIMIT say otherwise. The
// heap is not collected at all until it first reaches gcFirstAt: a plan of a thousand pods
// ends before that, and collecting its few tens of megabytes cost a tenth of its time. From
// then on the heap may grow to five times what is live (a fifth less CPU on a plan of
// thousands of pods), but the collector works harder from gcMemoryLimit on, so that a plan of
// 100,000 pods stays under a gigabyte. Past the limit it only costs time (the collector takes
// at most half).
const (
	gcFirstAt     = 64 << 20
	gcPercent     = 400
	gcMemoryLimit = 768 << 20
)

func tuneGC() {
	limit := int64(gcMemoryLimit)
	if os.Getenv("GOMEMLIMIT") != "" {
		limit = debug.SetMemoryLimit(-1) // as given
	}
	if os.Getenv("GOGC") != "" {
		debug.SetMemoryLimit(limit)
		return
	}
	// Collection off, but for the memory limit, lowered to gcFirstAt; the first collection
	// frees the sentinel, whose cleanup sets the settings of the rest of the run.
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(min(limit, gcFirstAt))
	sentinel := new(gcSentinel)
	runtime.AddCleanup(sentinel, func(limit int64) {
		debug.SetGCPercent(gcPercent)
		debug.SetMemoryLimit(limit)
	}, limit)
}

// gcSentinel is large enough not to share a tiny allocation block with other objects, whose
// cleanups may then never run.
type gcSentinel [64]byte
