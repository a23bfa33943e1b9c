package scheduling

import "github.com/nodeplan/nodeplan/internal/resources"

// freeBlock is how many nodes share one summary in a freeIndex.
const freeBlock = 32

// freeIndex keeps the free room of nodes in placement order, with a per-block maximum, so a
// pod skips whole blocks of nodes that cannot hold it instead of trying each (the scan is
// otherwise quadratic on large plans).
type freeIndex struct {
	free     []resources.Vector
	blockMax []resources.Vector
	dims     int
}

func newFreeIndex(dims int) *freeIndex { return &freeIndex{dims: dims} }

// add appends a node's free room and returns its position.
func (f *freeIndex) add(free resources.Vector) int {
	i := len(f.free)
	f.free = append(f.free, free.Clone())
	if i%freeBlock == 0 {
		f.blockMax = append(f.blockMax, free.Clone())
	} else {
		f.blockMax[i/freeBlock].Max(free)
	}
	return i
}

// update records a node's new free room.
func (f *freeIndex) update(i int, free resources.Vector) {
	copy(f.free[i], free)
	b := i / freeBlock
	m := f.blockMax[b]
	for d := range m {
		m[d] = 0
	}
	end := min((b+1)*freeBlock, len(f.free))
	for j := b * freeBlock; j < end; j++ {
		m.Max(f.free[j])
	}
}

// each calls try, in order, for every node whose free room might hold want, until try
// returns true.
func (f *freeIndex) each(want resources.Vector, try func(i int) bool) bool {
	for b, m := range f.blockMax {
		if !want.Fits(m) {
			continue
		}
		end := min((b+1)*freeBlock, len(f.free))
		for i := b * freeBlock; i < end; i++ {
			if want.Fits(f.free[i]) && try(i) {
				return true
			}
		}
	}
	return false
}
