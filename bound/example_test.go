package bound_test

import (
	"fmt"

	"github.com/nodeplan/nodeplan/bound"
	"github.com/nodeplan/nodeplan/internal/resources"
)

// vec is cpu and memory in milli-units, and pod slots (1000 per pod).
func vec(cpu, memGi, pods int64) resources.Vector {
	return resources.Vector{cpu, memGi << 30 * 1000, pods * 1000}
}

// Ten web pods of 1.5 cpu may run on either kind; two database pods that may not share a
// node may run on the large kind only. The fluid bound buys fractions of nodes; the pattern
// bound sees that a 4-cpu node holds only two web pods and that each database needs a node.
func Example() {
	in := bound.Input{
		Classes: 2, // 0: web, 1: database
		Pods: []bound.Pods{
			{Class: 0, Requests: vec(1500, 1, 1), Count: 10},
			{Class: 1, Requests: vec(3000, 8, 1), Count: 2},
		},
		Kinds: []bound.Kind{
			{Type: "c4", Room: vec(4000, 8, 30), Price: 0.10, ClassPrices: []float64{0.10, -1}},
			{Type: "m8", Room: vec(8000, 32, 60), Price: 0.24, ClassPrices: []float64{0.24, 0.24}},
		},
		Exclusive: []bound.Exclusive{{Members: []bound.Member{{Pods: 1, Count: 2}}}},
	}
	if err := in.Validate(); err != nil {
		panic(err)
	}
	fmt.Printf("fluid %.3f, alone %.3f, patterns %.3f: no plan costs less than $%.3f/h\n",
		bound.Fluid(in), bound.Alone(in), bound.Patterns(in), bound.Lower(in))

	// The LP underneath: the cheapest fractional nodes for 10 cpu and 20Gi.
	var lp bound.LP
	sol, _ := lp.SolveFluid([]resources.Vector{vec(4000, 8, 30), vec(8000, 32, 60)}, []float64{0.10, 0.24}, vec(10000, 20, 0))
	fmt.Printf("fluid LP: $%.3f/h, %.2f c4 and %.2f m8\n", sol.Cost, sol.Count[0], sol.Count[1])

	// Solved again and again over the same kinds (a repack, bin after bin), ColumnSets work
	// out once which kinds the LP needs for the resources a demand asks for.
	sets := bound.NewColumnSets([]resources.Vector{vec(4000, 8, 30), vec(8000, 32, 60)}, []float64{0.10, 0.24})
	for _, demand := range []resources.Vector{vec(10000, 20, 0), vec(2000, 64, 0)} {
		sol, _ := lp.SolveFluidWith(sets, demand)
		fmt.Printf("fluid LP over column sets: $%.3f/h\n", sol.Cost)
	}
	// Output:
	// fluid 0.525, alone 0.000, patterns 0.630: no plan costs less than $0.630/h
	// fluid LP: $0.250/h, 2.50 c4 and 0.00 m8
	// fluid LP over column sets: $0.250/h
	// fluid LP over column sets: $0.480/h
}
