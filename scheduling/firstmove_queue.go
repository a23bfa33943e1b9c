package scheduling

import "container/heap"

// displacedQueue merges the removed nodes' displaced pods into queue order, one at a time:
// the walk usually ends after a few of them.
type displacedQueue struct {
	lists [][]*podInfo // each in queue order; a heap of their heads when there are several
}

func (q *displacedQueue) start(leaving []*leavingPods) {
	clear(q.lists)
	q.lists = q.lists[:0]
	for _, l := range leaving {
		if len(l.queued) > 0 {
			q.lists = append(q.lists, l.queued)
		}
	}
	if len(q.lists) > 1 {
		heap.Init(q)
	}
}

// next returns the next pod in queue order, nil when none is left.
func (q *displacedQueue) next() *podInfo {
	switch len(q.lists) {
	case 0:
		return nil
	case 1:
		p := q.lists[0][0]
		if q.lists[0] = q.lists[0][1:]; len(q.lists[0]) == 0 {
			q.lists = q.lists[:0]
		}
		return p
	}
	p := q.lists[0][0]
	if q.lists[0] = q.lists[0][1:]; len(q.lists[0]) == 0 {
		heap.Pop(q)
	} else {
		heap.Fix(q, 0)
	}
	return p
}

func (q *displacedQueue) Len() int           { return len(q.lists) }
func (q *displacedQueue) Less(i, j int) bool { return comparePlain(q.lists[i][0], q.lists[j][0]) < 0 }
func (q *displacedQueue) Swap(i, j int)      { q.lists[i], q.lists[j] = q.lists[j], q.lists[i] }
func (q *displacedQueue) Push(x any)         { q.lists = append(q.lists, x.([]*podInfo)) }
func (q *displacedQueue) Pop() any {
	last := q.lists[len(q.lists)-1]
	q.lists = q.lists[:len(q.lists)-1]
	return last
}
