package disruption

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/nodeplan/nodeplan/scheduling"
)

// firstSuccess evaluates items in order until one succeeds, on up to GOMAXPROCS workers:
// the simulator's cluster and clones of it for the other workers. It returns every result up
// to and including the first success (later ones may be nil) and that index, or -1. Which
// items are evaluated past the first success may depend on timing; the results up to it do
// not, so the decision is the same whatever GOMAXPROCS is.
func firstSuccess[R any](s *simulator, n int, eval func(*scheduling.Cluster, int) (R, bool)) ([]R, []bool, int) {
	results := make([]R, n)
	done := make([]bool, n)
	if n == 0 {
		return results, done, -1
	}
	// The first item alone: when it succeeds (often, on a loose cluster), no worker is needed.
	r, ok := eval(s.cluster, 0)
	results[0], done[0] = r, true
	if ok {
		return results, done, 0
	}
	workers := min(runtime.GOMAXPROCS(0), n-1)
	if workers < 2 {
		for i := 1; i < n; i++ {
			r, ok := eval(s.cluster, i)
			results[i], done[i] = r, true
			if ok {
				return results, done, i
			}
		}
		return results, done, -1
	}
	var (
		next   atomic.Int64
		best   atomic.Int64 // lowest successful index, n when none yet
		wg     sync.WaitGroup
		worker = func(cluster *scheduling.Cluster) {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n || int64(i) > best.Load() {
					return
				}
				r, ok := eval(cluster, i)
				results[i], done[i] = r, true
				if ok {
					for {
						b := best.Load()
						if int64(i) >= b || best.CompareAndSwap(b, int64(i)) {
							break
						}
					}
				}
			}
		}
	)
	next.Store(1)
	best.Store(int64(n))
	wg.Add(workers)
	for _, cluster := range s.workerClusters(workers - 1) {
		go worker(cluster)
	}
	worker(s.cluster)
	wg.Wait()
	first := int(best.Load())
	if first == n {
		first = -1
	}
	return results, done, first
}

// consolidateAhead starts consolidating set on a worker's cluster, so that the consolidate of
// it that follows finds the result memoised, and returns the wait for it. The caller goes on
// with another simulation on the simulator's own cluster meanwhile. It does nothing (the wait
// returns at once) with a single worker or when the set's result is memoised already. The
// result is the one consolidate finds on any cluster of the decision, so decisions do not
// depend on it.
func (d *decider) consolidateAhead(set []*nodeState) (wait func()) {
	if runtime.GOMAXPROCS(0) < 2 {
		return func() {}
	}
	if _, ok := d.sim.consolidated.get(orderedNames(set)); ok {
		return func() {}
	}
	cluster := d.sim.workerClusters(1)[0] // cloned here, before the simulator's cluster is used
	done := make(chan struct{})
	go func() {
		defer close(done)
		d.consolidate(cluster, set)
	}()
	return func() { <-done }
}
