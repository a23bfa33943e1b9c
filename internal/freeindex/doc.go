// Package freeindex keeps the free room of many nodes, in the order they were added, so that
// finding the nodes that might hold a request skips whole blocks of full nodes at once.
//
//	ix := freeindex.New(2) // cpu, memory
//	ix.Add(resources.Vector{4000, 16 << 30})
//	ix.Add(resources.Vector{500, 1 << 30})
//	ix.Each(resources.Vector{1000, 2 << 30}, func(i int) bool {
//		fmt.Println("node", i, "may hold it") // node 0
//		return true                             // placed: stop
//	})
//	ix.Update(0, resources.Vector{3000, 14 << 30})
package freeindex
