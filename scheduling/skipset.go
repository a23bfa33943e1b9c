package scheduling

// skipSet marks positions as blocked and finds the next unblocked one in near-constant time
// (union-find with path halving). The solver keeps one per hostname rule so a pod whose
// anti-affinity or hostname spread rules out most nodes visits only the nodes still open to
// it.
type skipSet struct {
	next []int32 // next[i] == i: unblocked; else a later position to continue from
}

// find returns the first unblocked position at or after i (positions never blocked count as
// unblocked).
func (s *skipSet) find(i int) int {
	for i < len(s.next) && int(s.next[i]) != i {
		n := int(s.next[i])
		if n < len(s.next) {
			s.next[i] = s.next[n]
		}
		i = n
	}
	return i
}

// block marks position i.
func (s *skipSet) block(i int) {
	for len(s.next) <= i+1 {
		s.next = append(s.next, int32(len(s.next)))
	}
	s.next[i] = int32(i + 1)
}

// skipSetFor returns the set kept under k, creating it on first use.
func skipSetFor[K comparable](sets map[K]*skipSet, k K) *skipSet {
	set := sets[k]
	if set == nil {
		set = &skipSet{}
		sets[k] = set
	}
	return set
}
