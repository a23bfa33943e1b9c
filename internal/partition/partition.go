package partition

import "math"

// Cheapest is the least total cost of splitting items 0..n-1 into blocks, trying
// every partition (branch and bound on the cost so far): the exhaustive optimum that lower
// bounds are checked against on small inputs. blockCost may return +Inf for a block that
// cannot be; the result is +Inf when no partition can.
func Cheapest(n int, blockCost func(block []int) float64) float64 {
	best := math.Inf(1)
	var blocks [][]int
	var walk func(i int, cost float64)
	walk = func(i int, cost float64) {
		if cost >= best {
			return
		}
		if i == n {
			best = cost
			return
		}
		for b := range blocks {
			old := blockCost(blocks[b])
			blocks[b] = append(blocks[b], i)
			walk(i+1, cost-old+blockCost(blocks[b]))
			blocks[b] = blocks[b][:len(blocks[b])-1]
		}
		blocks = append(blocks, []int{i})
		walk(i+1, cost+blockCost([]int{i}))
		blocks = blocks[:len(blocks)-1]
	}
	walk(0, 0)
	return best
}
