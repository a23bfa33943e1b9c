package freeindex

import (
	"testing"

	"github.com/nodeplan/nodeplan/internal/resources"
)

// TestEachMatchesScan checks that Each visits, in order, exactly the nodes a plain scan finds
// with room, across block boundaries and after updates that shrink and grow a block's maximum.
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
			var scanned, visited []int
			for i, f := range free {
				if (resources.Vector{want}).Fits(f) {
					scanned = append(scanned, i)
				}
			}
			ix.Each(resources.Vector{want}, func(i int) bool {
				visited = append(visited, i)
				return false
			})
			if len(scanned) != len(visited) {
				t.Fatalf("step %d, want %d: visited %v, scan finds %v", step, want, visited, scanned)
			}
			for k := range scanned {
				if scanned[k] != visited[k] {
					t.Fatalf("step %d, want %d: visited %v, scan finds %v", step, want, visited, scanned)
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
