package freeindex

import (
	"math"
	"slices"

	"github.com/nodeplan/nodeplan/internal/resources"
)

// block is how many nodes share one summary in an Index.
const block = 32

// Index keeps the free room of nodes in placement order, with a per-block maximum, so a pod
// skips whole blocks of nodes that cannot hold it instead of trying each (the scan is
// otherwise quadratic on large plans).
//
// The vectors live back to back in two flat slices (node i's room is free[i*dims:(i+1)*dims]),
// so that indexing a thousand nodes allocates a few times rather than twice per node.
type Index struct {
	free     []int64
	blockMax []int64
	dims     int
	n        int
}

// New returns an empty index of vectors of dims dimensions.
func New(dims int) *Index { return &Index{dims: dims} }

// Grow makes room for n more nodes, so that adding them allocates nothing.
func (f *Index) Grow(n int) {
	f.free = growTo(f.free, (f.n+n)*f.dims)
	f.blockMax = growTo(f.blockMax, ((f.n+n+block-1)/block)*f.dims)
}

func growTo(s []int64, capacity int) []int64 {
	if cap(s) >= capacity {
		return s
	}
	out := make([]int64, len(s), capacity)
	copy(out, s)
	return out
}

// Add appends a node's free room and returns its position.
func (f *Index) Add(free resources.Vector) int {
	i := f.n
	f.n++
	f.free = append(f.free, free[:f.dims]...)
	if i%block == 0 {
		f.blockMax = append(f.blockMax, free[:f.dims]...)
	} else {
		f.blockOf(i / block).Max(free)
	}
	return i
}

// Update records the new free room of the node at position i.
func (f *Index) Update(i int, free resources.Vector) {
	copy(f.Free(i), free)
	b := i / block
	m := f.blockOf(b)
	for d := range m {
		m[d] = 0
	}
	end := min((b+1)*block, f.n)
	for j := b * block; j < end; j++ {
		m.Max(f.Free(j))
	}
}

// Each calls try, in order, for every node whose free room might hold want, until try
// returns true.
func (f *Index) Each(want resources.Vector, try func(i int) bool) bool {
	blocks := (f.n + block - 1) / block
	for b := range blocks {
		if !want.Fits(f.blockOf(b)) {
			continue
		}
		end := min((b+1)*block, f.n)
		for i := b * block; i < end; i++ {
			if want.Fits(f.Free(i)) && try(i) {
				return true
			}
		}
	}
	return false
}

// Free returns the free room of the node at position i: the index's own, to read only.
func (f *Index) Free(i int) resources.Vector {
	return resources.Vector(f.free[i*f.dims : (i+1)*f.dims : (i+1)*f.dims])
}

func (f *Index) blockOf(b int) resources.Vector {
	return resources.Vector(f.blockMax[b*f.dims : (b+1)*f.dims : (b+1)*f.dims])
}

// Clone returns an index of its own with the same nodes.
func (f *Index) Clone() *Index {
	return &Index{free: slices.Clone(f.free), blockMax: slices.Clone(f.blockMax), dims: f.dims, n: f.n}
}

// Remove takes the node at position i out: its position stays, and no request fits it any
// more, so the other nodes keep theirs.
func (f *Index) Remove(i int) {
	gone := f.Free(i)
	for d := range gone {
		gone[d] = math.MinInt64
	}
	f.Update(i, gone)
}
