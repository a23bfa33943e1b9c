package bound

import (
	"slices"
	"sync"

	"github.com/nodeplan/nodeplan/internal/resources"
)

// ColumnSets are the rooms and prices of a fluid LP that is solved again and again for other
// demands (a repack solves one per bin, and a planner repacks the same node kinds in every
// plan): which rooms the LP needs as columns depends only on the dimensions a demand asks
// for, so it is found once per set of dimensions and shared. The rooms and prices must not
// change afterwards. Safe for concurrent use.
type ColumnSets struct {
	rooms  []resources.Vector
	prices []float64
	mu     sync.Mutex
	// byRows holds, per set of demanded dimensions (a bit each), the columns and their prices.
	byRows map[uint64]columnSet
}

type columnSet struct {
	cols   []int
	prices []float64
}

// NewColumnSets returns the column sets of rooms priced prices, found as they are needed.
func NewColumnSets(rooms []resources.Vector, prices []float64) *ColumnSets {
	return &ColumnSets{rooms: rooms, prices: prices, byRows: map[uint64]columnSet{}}
}

// of returns the columns for the demanded rows, and false when rows cannot be told by a
// set of bits (a dimension past the 64th).
func (c *ColumnSets) of(rows []int) ([]int, []float64, bool) {
	var mask uint64
	for _, i := range rows {
		if i >= 64 {
			return nil, nil, false
		}
		mask |= 1 << i
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if set, ok := c.byRows[mask]; ok {
		return set.cols, set.prices, true
	}
	var lp LP
	cols, prices := lp.distinctColumns(c.rooms, c.prices, rows)
	set := columnSet{slices.Clip(cols), slices.Clip(prices)}
	c.byRows[mask] = set
	return set.cols, set.prices, true
}
