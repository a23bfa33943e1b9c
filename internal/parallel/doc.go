// Package parallel runs independent pieces of work on every core, for the packages that decode
// manifests, prepare and render plans: each piece writes only its own result slot, so results
// are the same whatever GOMAXPROCS is.
//
//	squares := make([]int, 10)
//	parallel.Each(len(squares), func(i int) { squares[i] = i * i })
package parallel
