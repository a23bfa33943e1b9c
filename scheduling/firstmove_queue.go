package scheduling

// displacedQueue merges the removed nodes' displaced pods into queue order, one at a time:
// the walk usually ends after a few of them.
type displacedQueue struct {
	runs []queueRun // each in queue order; a heap by head when there are several
}

// queueRun is a removed node's displaced pods from position at on.
type queueRun struct {
	l  *leavingPods
	at int
}

func (q *displacedQueue) start(leaving []*leavingPods) {
	clear(q.runs)
	q.runs = q.runs[:0]
	for _, l := range leaving {
		if len(l.queued) > 0 {
			q.runs = append(q.runs, queueRun{l: l})
		}
	}
	for i := len(q.runs)/2 - 1; i >= 0; i-- {
		q.down(i)
	}
}

// next returns the next pod in queue order as its node's list and position in it, a nil
// list when none is left.
func (q *displacedQueue) next() (*leavingPods, int) {
	if len(q.runs) == 0 {
		return nil, 0
	}
	head := &q.runs[0]
	l, k := head.l, head.at
	if head.at++; head.at == len(l.queued) {
		last := len(q.runs) - 1
		q.runs[0], q.runs[last] = q.runs[last], queueRun{}
		q.runs = q.runs[:last]
	}
	q.down(0)
	return l, k
}

// before reports whether run a's head comes before run b's: by size (cpu, then memory,
// largest first), read side by side, and only on a tie by the pods themselves.
func (a queueRun) before(b queueRun) bool {
	if c := compareSizes(a.l.sizes[a.at], b.l.sizes[b.at]); c != 0 {
		return c < 0
	}
	pa, pb := a.l.queued[a.at], b.l.queued[b.at]
	return compareTied(pa, pb, pa.plainOrderKey, pb.plainOrderKey) < 0
}

// down moves the run at i down the heap to where its head belongs.
func (q *displacedQueue) down(i int) {
	for {
		least := i
		for _, c := range [2]int{2*i + 1, 2*i + 2} {
			if c < len(q.runs) && q.runs[c].before(q.runs[least]) {
				least = c
			}
		}
		if least == i {
			return
		}
		q.runs[i], q.runs[least] = q.runs[least], q.runs[i]
		i = least
	}
}
