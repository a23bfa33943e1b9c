package disruption

import (
	"runtime"
	"slices"
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
	q := &itemQueue{next: 1, best: n, n: n}
	q.idle.L = &q.mu
	worker := func(cluster *scheduling.Cluster) {
		for {
			i, ok := q.claim()
			if !ok {
				return
			}
			r, ok := eval(cluster, i)
			results[i], done[i] = r, true
			q.finish(i, ok)
		}
	}
	for _, cluster := range s.workerClusters(workers - 1) {
		go worker(cluster)
	}
	worker(s.cluster)
	return results, done, q.wait()
}

// itemQueue hands firstSuccess's items out in order. The caller waits for the items a worker
// took, not for the worker: one woken late (a goroutine starts some 0.2 ms after it is made,
// on this kind of host), once every item is taken or one succeeded, takes none and touches
// nothing.
type itemQueue struct {
	mu   sync.Mutex
	idle sync.Cond // signalled when no item taken is under way
	// next is the next item to take; best the lowest that succeeded (n when none yet);
	// working counts the items taken and not finished.
	next, best, working, n int
}

// claim takes the next item, false when none is left or one before it succeeded.
func (q *itemQueue) claim() (int, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	i := q.next
	if i >= q.n || i > q.best {
		return 0, false
	}
	q.next++
	q.working++
	return i, true
}

// finish records that item i was evaluated, and whether it succeeded.
func (q *itemQueue) finish(i int, ok bool) {
	q.mu.Lock()
	if ok && i < q.best {
		q.best = i
	}
	if q.working--; q.working == 0 {
		q.idle.Broadcast()
	}
	q.mu.Unlock()
}

// wait returns, once every item taken is evaluated, the first that succeeded, or -1.
func (q *itemQueue) wait() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.working > 0 {
		q.idle.Wait()
	}
	if q.best == q.n {
		return -1
	}
	return q.best
}

// ahead simulates the sets a prefix search tries next while its tries keep failing (most
// do), so that each is memoised, or under way, when the search reaches it. A worker runs
// through them in order on a cluster of its own while the search simulates the set it tries;
// when the search waits for one still under way, it simulates the next one nobody took, on
// the simulator's cluster, so both cores go on. Each try after a failure is about half the
// last. When the search takes another way (a try succeeds), it follows another chain: the
// sets under way are finished, the rest of the old chain dropped. Results are the ones
// consolidate finds on any cluster of the decision, so decisions do not depend on it.
//
// Once its chain is done, while the search simulates its own try, the worker simulates the
// single-node consolidations of the decision's candidates in rank order (see spare): grow's
// first round and single-node consolidation run those sets next when the search finds no
// command (most searches), and find them memoised. It stops when the search ends, after the
// set under way.
type ahead struct {
	d       *decider
	cluster *scheduling.Cluster
	// The chain under way: its sets and their keys, a channel per set closed once it is
	// memoised or skipped, the next set nobody took, and the worker's stop and end.
	sets     [][]*nodeState
	keys     []string
	done     []chan struct{}
	next     *atomic.Int64
	stop     *atomic.Bool
	finished chan struct{}
	// started is set once the worker runs: end waits only for a worker that may be
	// simulating (one made last may start some 0.2 ms later, and then only sees it is done).
	started *atomic.Bool
	// singles are the candidates spare simulates alone, in order; spared counts those taken.
	singles []*nodeState
	spared  atomic.Int64
}

// newAhead returns the lookahead of a prefix search, which simulates singles alone when it
// has nothing else to do; nil with a single worker.
func (d *decider) newAhead(singles []*nodeState) *ahead {
	if runtime.GOMAXPROCS(0) < 2 {
		return nil
	}
	d.roomIndex() // read for the bounds on both workers: made here, before the worker starts
	return &ahead{d: d, cluster: d.sim.workerClusters(1)[0], singles: singles}
}

// follow makes chain the sets simulated ahead: nothing changes when the chain under way goes
// on with them.
func (a *ahead) follow(chain [][]*nodeState) {
	if a == nil {
		return
	}
	keys := make([]string, len(chain))
	for i, set := range chain {
		keys[i] = orderedNames(set)
	}
	if len(keys) > 0 && len(a.keys) >= len(keys) && slices.Equal(a.keys[len(a.keys)-len(keys):], keys) {
		return
	}
	a.end()
	if len(keys) == 0 && a.spared.Load() >= int64(len(a.singles)) {
		return
	}
	a.sets, a.keys, a.done = chain, keys, make([]chan struct{}, len(keys))
	for i := range a.done {
		a.done[i] = make(chan struct{})
	}
	a.next, a.stop, a.finished, a.started = &atomic.Int64{}, &atomic.Bool{}, make(chan struct{}), &atomic.Bool{}
	next, stop, finished, started := a.next, a.stop, a.finished, a.started
	go func() {
		defer close(finished)
		started.Store(true) // before stop is read: see end
		for !stop.Load() && a.take(next, a.cluster) {
		}
		for !stop.Load() && a.spare() {
		}
	}()
}

// take simulates, on cluster, the next set of the chain nobody took, unless memoised or ruled
// out by a bound; false when none is left.
func (a *ahead) take(next *atomic.Int64, cluster *scheduling.Cluster) bool {
	i := int(next.Add(1) - 1)
	if i >= len(a.sets) {
		return false
	}
	if _, ok := a.d.sim.consolidated.get(a.keys[i]); !ok && a.d.multiNodeBound(a.sets[i]) == "" {
		a.d.consolidate(cluster, a.sets[i])
	}
	close(a.done[i])
	return true
}

// spare simulates the next single nobody took, on the worker's cluster, unless memoised or
// ruled out by single-node consolidation's bound; false when none is left.
func (a *ahead) spare() bool {
	i := int(a.spared.Add(1) - 1)
	if i >= len(a.singles) {
		return false
	}
	set := a.singles[i : i+1 : i+1]
	if _, ok := a.d.sim.consolidated.get(orderedNames(set)); !ok && a.d.singleNodeBound(set[0], a.d.rooms) == "" {
		a.d.consolidate(a.cluster, set)
	}
	return true
}

// wait returns once set is memoised when the chain under way simulates it, taking the chain's
// next sets meanwhile.
func (a *ahead) wait(set []*nodeState) {
	if a == nil {
		return
	}
	i := slices.Index(a.keys, orderedNames(set))
	if i < 0 {
		return
	}
	for {
		select {
		case <-a.done[i]:
			return
		default:
		}
		if !a.take(a.next, a.d.sim.cluster) {
			<-a.done[i]
			return
		}
	}
}

// end drops the chain under way, once the worker's set under way is finished: the worker's
// cluster is then free.
func (a *ahead) end() {
	if a == nil || a.finished == nil {
		return
	}
	a.stop.Store(true)
	// A worker not started yet reads stop once it starts, after it sets started, and so takes
	// no set and leaves the cluster alone: only one that started may be simulating.
	if a.started.Load() {
		<-a.finished
	}
	a.sets, a.keys, a.done, a.next, a.stop, a.finished, a.started = nil, nil, nil, nil, nil, nil, nil
}
