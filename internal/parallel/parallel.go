package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Each calls f(0), …, f(n-1) on up to GOMAXPROCS goroutines and returns when all have
// returned. Each call must write only its own results, so that the outcome depends neither on
// the number of cores nor on the order the calls run in.
func Each(n int, f func(i int)) { EachMin(n, 1, f) }

// EachMin is Each for calls too cheap to be worth a goroutine for a few of them: it starts a
// worker per perWorker calls at most, so that fewer than 2·perWorker calls run on the caller
// alone (a what-if of a few dozen pods does not wake another core to copy them).
func EachMin(n, perWorker int, f func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n/max(1, perWorker))
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	work := func() {
		for {
			i := int(next.Add(1) - 1)
			if i >= n {
				return
			}
			f(i)
		}
	}
	// The caller is one of the workers: one goroutine fewer to start and wake.
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
}

// Ranges splits 0…n-1 into consecutive ranges of at most most items, at least one range per
// core when n allows, and calls f(from, to) for each as Each does: f must write only the
// results of its range, so that the outcome depends neither on the number of cores nor on
// where the ranges start.
func Ranges(n, most int, f func(from, to int)) { RangesMin(n, 1, most, f) }

// RangesMin is Ranges with ranges of at least least items (the last one aside): fewer than
// 2·least items are one range, on the caller.
func RangesMin(n, least, most int, f func(from, to int)) {
	if n > 0 && n < 2*least && n <= most {
		f(0, n)
		return
	}
	procs := runtime.GOMAXPROCS(0)
	size := max(1, least, min(most, (n+procs-1)/procs))
	Each((n+size-1)/size, func(r int) { f(r*size, min((r+1)*size, n)) })
}

// Go starts f on a goroutine of its own and returns a function that waits until f returns.
func Go(f func()) (wait func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	return func() { <-done }
}
