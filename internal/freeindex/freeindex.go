package freeindex

import "github.com/nodeplan/nodeplan/internal/resources"

// block is how many nodes share one summary in an Index.
const block = 32

// Index keeps the free room of nodes in placement order, with a per-block maximum, so a pod
// skips whole blocks of nodes that cannot hold it instead of trying each (the scan is
// otherwise quadratic on large plans).
type Index struct {
	free     []resources.Vector
	blockMax []resources.Vector
	dims     int
}

// New returns an empty index of vectors of dims dimensions.
func New(dims int) *Index { return &Index{dims: dims} }

// Add appends a node's free room and returns its position.
func (f *Index) Add(free resources.Vector) int {
	i := len(f.free)
	f.free = append(f.free, free.Clone())
	if i%block == 0 {
		f.blockMax = append(f.blockMax, free.Clone())
	} else {
		f.blockMax[i/block].Max(free)
	}
	return i
}

// Update records the new free room of the node at position i.
func (f *Index) Update(i int, free resources.Vector) {
	copy(f.free[i], free)
	b := i / block
	m := f.blockMax[b]
	for d := range m {
		m[d] = 0
	}
	end := min((b+1)*block, len(f.free))
	for j := b * block; j < end; j++ {
		m.Max(f.free[j])
	}
}

// Each calls try, in order, for every node whose free room might hold want, until try
// returns true.
func (f *Index) Each(want resources.Vector, try func(i int) bool) bool {
	for b, m := range f.blockMax {
		if !want.Fits(m) {
			continue
		}
		end := min((b+1)*block, len(f.free))
		for i := b * block; i < end; i++ {
			if want.Fits(f.free[i]) && try(i) {
				return true
			}
		}
	}
	return false
}

// Free returns the free room of the node at position i.
func (f *Index) Free(i int) resources.Vector { return f.free[i] }
