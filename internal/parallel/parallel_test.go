package parallel_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/internal/parallel"
)

func TestEachCallsEveryIndexOnce(t *testing.T) {
	for _, procs := range []int{1, 2, 4} {
		t.Run(fmt.Sprint(procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			for _, n := range []int{0, 1, 7, 1000} {
				calls := make([]int, n)
				parallel.Each(n, func(i int) { calls[i]++ })
				for i, c := range calls {
					require.Equal(t, 1, c, "n %d: index %d", n, i)
				}
			}
		})
	}
}

func ExampleEach() {
	squares := make([]int, 5)
	parallel.Each(len(squares), func(i int) { squares[i] = i * i })
	fmt.Println(squares)
	// Output: [0 1 4 9 16]
}
