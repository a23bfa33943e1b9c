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
// The rooms of a block's nodes live back to back in one slice (node i's room is
// rooms[i/block][(i%block)*dims:][:dims]), carved from one array per Grow, so that indexing a
// thousand nodes allocates a few times rather than twice per node. A clone shares the
// blocks and copies one when it first writes to it: a what-if that changes a few nodes of a
// large cluster copies a few blocks, not every node's room.
type Index struct {
	rooms [][]int64
	// own reports, per block, whether rooms[b] is this index's to write; a clone's blocks are
	// the original's until it writes to them.
	own      []bool
	blockMax []int64
	dims     int
	n        int
}

// New returns an empty index of vectors of dims dimensions.
func New(dims int) *Index { return &Index{dims: dims} }

// Grow makes room for n more nodes, so that adding them allocates nothing (a block shared
// with the index this one was cloned from aside).
func (f *Index) Grow(n int) {
	have := len(f.rooms)
	need := (f.n + n + block - 1) / block
	if need <= have {
		return
	}
	f.rooms, f.own = slices.Grow(f.rooms, need-have), slices.Grow(f.own, need-have)
	f.blockMax = slices.Grow(f.blockMax, (need-have)*f.dims)
	size := block * f.dims
	array := make([]int64, (need-have)*size)
	for b := range need - have {
		f.rooms = append(f.rooms, array[b*size:b*size:(b+1)*size])
		f.own = append(f.own, true)
	}
	// Blocks made ahead stay empty until Add reaches them.
	f.rooms, f.own = f.rooms[:have], f.own[:have]
}

// Add appends a node's free room and returns its position.
func (f *Index) Add(free resources.Vector) int {
	i := f.n
	f.n++
	b := i / block
	if i%block == 0 {
		if b < cap(f.rooms) && cap(f.rooms[:b+1][b]) > 0 {
			f.rooms, f.own = f.rooms[:b+1], f.own[:b+1] // made by Grow
		} else {
			f.rooms = append(f.rooms, make([]int64, 0, block*f.dims))
			f.own = append(f.own, true)
		}
		f.rooms[b] = append(f.rooms[b][:0], free[:f.dims]...)
		f.blockMax = append(f.blockMax, free[:f.dims]...)
		return i
	}
	f.write(b)
	f.rooms[b] = append(f.rooms[b], free[:f.dims]...)
	f.blockOf(b).Max(free)
	return i
}

// write makes block b this index's own.
func (f *Index) write(b int) {
	if !f.own[b] {
		cp := make([]int64, len(f.rooms[b]), block*f.dims)
		copy(cp, f.rooms[b])
		f.rooms[b], f.own[b] = cp, true
	}
}

// Update records the new free room of the node at position i.
func (f *Index) Update(i int, free resources.Vector) {
	f.write(i / block)
	copy(f.Free(i), free)
	f.summarize(i / block)
}

// summarize works out block b's maximum again.
func (f *Index) summarize(b int) {
	m := f.blockOf(b)
	for d := range m {
		m[d] = 0
	}
	rooms := f.rooms[b]
	for j := 0; j < len(rooms); j += f.dims {
		m.Max(resources.Vector(rooms[j : j+f.dims]))
	}
}

// Each calls try, in order, for every node whose free room might hold want, until try
// returns true.
func (f *Index) Each(want resources.Vector, try func(i int) bool) bool {
	return f.EachFrom(0, want, try)
}

// EachFrom is Each over the nodes from position from on.
func (f *Index) EachFrom(from int, want resources.Vector, try func(i int) bool) bool {
	for b := max(from, 0) / block; b < len(f.rooms); b++ {
		rooms := f.rooms[b]
		if !want.Fits(f.blockOf(b)) {
			continue
		}
		j, i := 0, b*block
		if i < from {
			j, i = (from-i)*f.dims, from
		}
		for ; j < len(rooms); j, i = j+f.dims, i+1 {
			if want.Fits(resources.Vector(rooms[j:j+f.dims])) && try(i) {
				return true
			}
		}
	}
	return false
}

// Free returns the free room of the node at position i: the index's own, to read only.
func (f *Index) Free(i int) resources.Vector {
	at := (i % block) * f.dims
	return resources.Vector(f.rooms[i/block][at : at+f.dims : at+f.dims])
}

func (f *Index) blockOf(b int) resources.Vector {
	return resources.Vector(f.blockMax[b*f.dims : (b+1)*f.dims : (b+1)*f.dims])
}

// Clone returns an index of its own with the same nodes. It shares f's rooms until it writes
// to them, so f must not change while the clone is in use (a solve clones a cluster's index,
// which is never written again, once per what-if).
func (f *Index) Clone() *Index {
	return &Index{rooms: slices.Clone(f.rooms), own: make([]bool, len(f.rooms)), blockMax: slices.Clone(f.blockMax), dims: f.dims, n: f.n}
}

// Remove takes the node at position i out: its position stays, and no request fits it any
// more, so the other nodes keep theirs.
func (f *Index) Remove(i int) {
	f.write(i / block)
	gone := f.Free(i)
	for d := range gone {
		gone[d] = math.MinInt64
	}
	f.summarize(i / block)
}
