package scheduling

// displacedQueue merges the removed nodes' displaced pods into queue order, one at a time:
// the walk usually ends after a few of them.
type displacedQueue struct {
	lists [][]*podInfo // each in queue order; a heap by head when there are several
}

func (q *displacedQueue) start(leaving []*leavingPods) {
	clear(q.lists)
	q.lists = q.lists[:0]
	for _, l := range leaving {
		if len(l.queued) > 0 {
			q.lists = append(q.lists, l.queued)
		}
	}
	for i := len(q.lists)/2 - 1; i >= 0; i-- {
		q.down(i)
	}
}

// next returns the next pod in queue order, nil when none is left.
func (q *displacedQueue) next() *podInfo {
	if len(q.lists) == 0 {
		return nil
	}
	p := q.lists[0][0]
	if q.lists[0] = q.lists[0][1:]; len(q.lists[0]) == 0 {
		last := len(q.lists) - 1
		q.lists[0], q.lists[last] = q.lists[last], nil
		q.lists = q.lists[:last]
	}
	q.down(0)
	return p
}

// down moves the list at i down the heap to where its head belongs.
func (q *displacedQueue) down(i int) {
	for {
		least := i
		for _, c := range [2]int{2*i + 1, 2*i + 2} {
			if c < len(q.lists) && comparePlain(q.lists[c][0], q.lists[least][0]) < 0 {
				least = c
			}
		}
		if least == i {
			return
		}
		q.lists[i], q.lists[least] = q.lists[least], q.lists[i]
		i = least
	}
}
