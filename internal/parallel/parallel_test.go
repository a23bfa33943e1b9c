package parallel_test

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
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
				for _, perWorker := range []int{0, 1, 3, 64} {
					calls := make([]atomic.Int32, n)
					parallel.EachMin(n, perWorker, func(i int) { calls[i].Add(1) })
					for i := range calls {
						require.Equal(t, int32(1), calls[i].Load(), "EachMin n %d per worker %d: index %d", n, perWorker, i)
					}
				}
			}
		})
	}
}

func TestRangesCoverEveryIndexOnceWithinTheLimit(t *testing.T) {
	for _, procs := range []int{1, 2, 4} {
		for _, tc := range []struct{ n, most int }{{0, 256}, {1, 256}, {7, 2}, {200, 256}, {1000, 256}, {1000, 1}} {
			t.Run(fmt.Sprintf("procs %d n %d most %d", procs, tc.n, tc.most), func(t *testing.T) {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				calls := make([]int, tc.n)
				ranges := make([]int, tc.n+1) // size of the range starting at each index
				parallel.Ranges(tc.n, tc.most, func(from, to int) {
					ranges[from] = to - from
					for i := from; i < to; i++ {
						calls[i]++
					}
				})
				for i, c := range calls {
					require.Equal(t, 1, c, "index %d", i)
				}
				count := 0
				for _, size := range ranges {
					require.LessOrEqual(t, size, tc.most)
					if size > 0 {
						count++
					}
				}
				require.GreaterOrEqual(t, count, min(procs, tc.n), "a range per core when there are enough items")
			})
		}
	}
}

func TestGoWaitsForItsFunction(t *testing.T) {
	done := false
	wait := parallel.Go(func() { done = true })
	wait()
	require.True(t, done, "wait returns once the function has")
	wait() // waiting again returns at once
}

func ExampleEach() {
	squares := make([]int, 5)
	parallel.Each(len(squares), func(i int) { squares[i] = i * i })
	fmt.Println(squares)
	// Output: [0 1 4 9 16]
}

func TestRangesMinKeepsRangesAtLeastThatLong(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for _, n := range []int{0, 1, 15, 16, 17, 100, 1000} {
		var mu sync.Mutex
		covered := make([]int, n)
		var sizes []int
		parallel.RangesMin(n, 16, 256, func(from, to int) {
			mu.Lock()
			defer mu.Unlock()
			sizes = append(sizes, to-from)
			for i := from; i < to; i++ {
				covered[i]++
			}
		})
		for i, c := range covered {
			require.Equal(t, 1, c, "n %d: index %d", n, i)
		}
		short := 0
		for _, size := range sizes {
			require.LessOrEqual(t, size, 256)
			if size < 16 {
				short++
			}
		}
		require.LessOrEqual(t, short, 1, "n %d: ranges %v, at most the last one shorter than 16", n, sizes)
		if n > 0 && n < 32 {
			require.Len(t, sizes, 1, "n %d: one range", n)
		}
	}
}

func TestEachMinRunsFewCallsOnTheCaller(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	var goroutines atomic.Int32
	caller := goroutineID()
	parallel.EachMin(127, 64, func(int) {
		if goroutineID() != caller {
			goroutines.Add(1)
		}
	})
	require.Zero(t, goroutines.Load(), "127 calls at 64 a worker: one worker, the caller")
}

// goroutineID is the number runtime.Stack prints for the calling goroutine.
func goroutineID() string {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	return strings.Fields(string(buf))[1]
}
