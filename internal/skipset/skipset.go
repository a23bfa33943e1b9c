// Package skipset marks positions in a growing list as blocked and finds the next unblocked one
// in near-constant time (union-find with path halving). The solver keeps one per hostname rule
// and per host port, so a pod that most planned nodes refuse visits only the nodes still open
// to it.
//
//	var s skipset.Set
//	s.Block(0)
//	s.Find(0) // 1
package skipset

// Set is a set of blocked positions; the zero value blocks nothing.
type Set struct {
	next []int32 // next[i] == i: unblocked; else a later position to continue from
}

// Find returns the first unblocked position at or after i (positions never blocked count as
// unblocked).
func (s *Set) Find(i int) int {
	for i < len(s.next) && int(s.next[i]) != i {
		n := int(s.next[i])
		if n < len(s.next) {
			s.next[i] = s.next[n]
		}
		i = n
	}
	return i
}

// Block marks position i.
func (s *Set) Block(i int) {
	for len(s.next) <= i+1 {
		s.next = append(s.next, int32(len(s.next)))
	}
	s.next[i] = int32(i + 1)
}

// For returns the set kept under k in sets, creating it on first use.
func For[K comparable](sets map[K]*Set, k K) *Set {
	set := sets[k]
	if set == nil {
		set = &Set{}
		sets[k] = set
	}
	return set
}
