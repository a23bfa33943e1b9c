package scheduling

import (
	"runtime"
	"sync"
)

// parallel runs work(0) … work(n-1) on up to GOMAXPROCS goroutines and returns when all are
// done. Each call must write only its own result slot, so the outcome does not depend on the
// number of cores or the order the calls run in.
func parallel(n int, work func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := range n {
			work(i)
		}
		return
	}
	var next sync.Mutex
	i := 0
	take := func() int {
		next.Lock()
		defer next.Unlock()
		i++
		return i - 1
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := take(); k < n; k = take() {
				work(k)
			}
		}()
	}
	wg.Wait()
}
