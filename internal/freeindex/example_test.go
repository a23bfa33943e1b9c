package freeindex_test

import (
	"fmt"

	"github.com/nodeplan/nodeplan/internal/freeindex"
	"github.com/nodeplan/nodeplan/internal/resources"
)

func Example() {
	ix := freeindex.New(2) // cpu (millicores), memory (MiB)
	ix.Add(resources.Vector{500, 1024})
	ix.Add(resources.Vector{4000, 16384})
	ix.Add(resources.Vector{2000, 8192})
	want := resources.Vector{1000, 2048}
	ix.Each(want, func(i int) bool {
		fmt.Println("node", i, "may hold it")
		return false // not placed: go on
	})
	ix.Update(1, resources.Vector{0, 0})
	ix.Each(want, func(i int) bool {
		fmt.Println("after the update, node", i)
		return true // placed: stop
	})
	// Output:
	// node 1 may hold it
	// node 2 may hold it
	// after the update, node 2
}
