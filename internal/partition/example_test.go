package partition_test

import (
	"fmt"
	"math"

	"github.com/nodeplan/nodeplan/internal/partition"
)

// Four pods of 1, 1, 2 and 3 cpu on nodes of 4 cpu at $1 each: two nodes.
func ExampleCheapest() {
	cpu := []int{1, 1, 2, 3}
	cost := partition.Cheapest(len(cpu), func(block []int) float64 {
		sum := 0
		for _, i := range block {
			sum += cpu[i]
		}
		if sum > 4 {
			return math.Inf(1)
		}
		return 1
	})
	fmt.Println(cost)
	// Output: 2
}
