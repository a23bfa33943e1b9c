package binpack_test

import (
	"fmt"

	"github.com/nodeplan/nodeplan/binpack"
	"github.com/nodeplan/nodeplan/internal/resources"
)

// Six cpu-heavy and six memory-heavy pods, and two kinds of node: 4 cpu / 8 GiB for $0.20 and
// 8 cpu / 16 GiB for $0.38. Each bin mixes the shapes so that neither cpu nor memory is left
// idle: the large node and then the small one are full to the last millicore and mebibyte.
func Example() {
	vec := func(milliCPU, memMi int64) resources.Vector { return resources.Vector{milliCPU, memMi << 20} }
	// NewKinds: the fills over these kinds share what the fluid LP works out of them.
	kinds := binpack.NewKinds([]resources.Vector{vec(4000, 8192), vec(8000, 16384)}, []float64{0.20, 0.38})
	classes := []binpack.Class{
		{Requests: vec(1500, 1024), Left: 6}, // cpu-heavy
		{Requests: vec(500, 3072), Left: 6},  // memory-heavy
	}
	remaining := vec(0, 0)
	for _, c := range classes {
		for range c.Left {
			remaining.Add(c.Requests)
		}
	}
	ws := &binpack.Workspace{}
	for bin := 1; classes[0].Left+classes[1].Left > 0; bin++ {
		f := binpack.MostEfficient(ws, kinds, remaining, classes)
		if f == nil {
			break
		}
		for i, n := range f.Taken {
			classes[i].Left -= n
			for range n {
				remaining.Sub(classes[i].Requests)
			}
		}
		fmt.Printf("bin %d: %d cpu-heavy, %d memory-heavy, $%.2f\n", bin, f.Taken[0], f.Taken[1], f.Price)
	}
	// Output:
	// bin 1: 4 cpu-heavy, 4 memory-heavy, $0.38
	// bin 2: 2 cpu-heavy, 2 memory-heavy, $0.20
}
