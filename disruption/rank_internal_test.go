package disruption

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRankOrderIsRankLess expects the order a decision sorts its nodes in once to be
// rankLess's, on nodes with ties in price per disruption cost and in disruption cost, empty
// nodes (negative cost) and unpriced ones.
func TestRankOrderIsRankLess(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for round := range 200 {
		var nodes []*nodeState
		for i := range 1 + r.Intn(60) {
			nodes = append(nodes, &nodeState{
				name:  fmt.Sprintf("node-%d", r.Intn(1000)*100+i),
				price: float64(r.Intn(4)) * 0.25,
				cost:  float64(r.Intn(5) - 1),
			})
		}
		want := slices.Clone(nodes)
		slices.SortStableFunc(want, func(a, b *nodeState) int {
			switch {
			case rankLess(a, b):
				return -1
			case rankLess(b, a):
				return 1
			}
			return 0
		})
		require.Equal(t, want, rankOrder(nodes), "round %d", round)
	}
}
