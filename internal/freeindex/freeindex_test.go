package freeindex

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/nodeplan/nodeplan/internal/resources"
)

// TestEachMatchesScan checks that Each, and EachFrom from any position, visit, in order,
// exactly the nodes a plain scan finds with room (from that position), across block boundaries and after updates that shrink and grow a block's maximum.
func TestEachMatchesScan(t *testing.T) {
	ix := New(1)
	var free []resources.Vector
	for i := range 3*block + 5 {
		v := resources.Vector{int64((i * 37) % 100)}
		free = append(free, v.Clone())
		if got := ix.Add(v); got != i {
			t.Fatalf("Add returned %d, want %d", got, i)
		}
	}
	updates := []struct{ i, v int }{{3, 0}, {block, 99}, {2*block + 1, 0}, {3 * block, 100}}
	for step := 0; step <= len(updates); step++ {
		for _, want := range []int64{0, 1, 50, 99, 100, 101} {
			// from 0 is Each; the others start inside a block, on a block's first node and
			// past the last node.
			for _, from := range []int{0, 3, block - 1, block, 2*block + 7, 3*block + 4, 3*block + 5, 200} {
				var scanned, visited []int
				for i, f := range free {
					if i >= from && (resources.Vector{want}).Fits(f) {
						scanned = append(scanned, i)
					}
				}
				each := ix.EachFrom
				if from == 0 {
					each = func(_ int, want resources.Vector, try func(i int) bool) bool { return ix.Each(want, try) }
				}
				each(from, resources.Vector{want}, func(i int) bool {
					visited = append(visited, i)
					return false
				})
				if !slices.Equal(scanned, visited) {
					t.Fatalf("step %d, want %d from %d: visited %v, scan finds %v", step, want, from, visited, scanned)
				}
			}
		}
		if step < len(updates) {
			u := updates[step]
			free[u.i] = resources.Vector{int64(u.v)}
			ix.Update(u.i, resources.Vector{int64(u.v)})
			if ix.Free(u.i)[0] != int64(u.v) {
				t.Fatalf("Free(%d) = %v after Update to %d", u.i, ix.Free(u.i), u.v)
			}
		}
	}
}

// TestCloneAndRemove checks that a clone is the index's equal and its own, and that a
// removed node keeps its position but is never visited.
func TestCloneAndRemove(t *testing.T) {
	ix := New(2)
	for i := range block + 3 {
		ix.Add(resources.Vector{int64(i), 10})
	}
	cp := ix.Clone()
	cp.Remove(1)
	cp.Remove(block + 1)
	visit := func(f *Index, want resources.Vector) []int {
		var out []int
		f.Each(want, func(i int) bool { out = append(out, i); return false })
		return out
	}
	if got := visit(cp, resources.Vector{0, 0}); len(got) != block+1 || got[1] != 2 || got[block] != block+2 {
		t.Fatalf("after removing 1 and %d, visited %v", block+1, got)
	}
	if got := visit(ix, resources.Vector{0, 0}); len(got) != block+3 {
		t.Fatalf("removing from the clone changed the original: visited %v", got)
	}
	if got := visit(cp, resources.Vector{block + 1, 0}); len(got) != 1 || got[0] != block+2 {
		t.Fatalf("the removed node's room still counts in its block's maximum: visited %v", got)
	}
}

// TestClonesShareUntilWritten checks clones against a plain list of rooms: each clone sees
// its original's rooms as they were when cloned, adds, updates and removes of its own (with
// and without Grow, in blocks shared and not) change only it, and the original, never
// written after it is cloned, is unchanged by all its clones.
func TestClonesShareUntilWritten(t *testing.T) {
	type model struct {
		ix    *Index
		rooms []int64
	}
	check := func(t *testing.T, m model) {
		t.Helper()
		for _, want := range []int64{-1, 0, 30, 60, 99} {
			var scanned, visited []int
			for i, r := range m.rooms {
				if want <= r {
					scanned = append(scanned, i)
				}
			}
			m.ix.Each(resources.Vector{want}, func(i int) bool { visited = append(visited, i); return false })
			if fmt.Sprint(scanned) != fmt.Sprint(visited) {
				t.Fatalf("want %d: visited %v, scan finds %v", want, visited, scanned)
			}
		}
		for i, r := range m.rooms {
			if got := m.ix.Free(i)[0]; got != r {
				t.Fatalf("Free(%d) = %d, want %d", i, got, r)
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	root := model{ix: New(1)}
	for range 2*block + 7 {
		r := rng.Int64N(100)
		root.ix.Add(resources.Vector{r})
		root.rooms = append(root.rooms, r)
	}
	frozen := slices.Clone(root.rooms)
	for c := range 20 {
		m := model{ix: root.ix.Clone(), rooms: slices.Clone(root.rooms)}
		if c%2 == 0 {
			m.ix.Grow(1 + rng.IntN(2*block))
		}
		for step := range 60 {
			switch i := rng.IntN(len(m.rooms)); rng.IntN(3) {
			case 0:
				r := rng.Int64N(100)
				m.ix.Update(i, resources.Vector{r})
				m.rooms[i] = r
			case 1:
				m.ix.Remove(i)
				m.rooms[i] = math.MinInt64
			default:
				r := rng.Int64N(100)
				if got := m.ix.Add(resources.Vector{r}); got != len(m.rooms) {
					t.Fatalf("clone %d step %d: Add returned %d, want %d", c, step, got, len(m.rooms))
				}
				m.rooms = append(m.rooms, r)
			}
			check(t, m)
		}
		if c%3 == 0 { // a clone of a written clone
			cc := model{ix: m.ix.Clone(), rooms: slices.Clone(m.rooms)}
			cc.ix.Update(0, resources.Vector{99})
			cc.rooms[0] = 99
			check(t, cc)
			check(t, m)
		}
		check(t, root)
		if !slices.Equal(root.rooms, frozen) {
			t.Fatal("the model of the original changed")
		}
	}
}
