package suite

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/nodeplan/nodeplan/conformance/workload"
)

// Karpenter's diverse benchmark workload, at two sizes and several seeds.
func TestDiverse(t *testing.T) {
	for _, tc := range []struct {
		pods  int
		seeds []uint64
	}{
		{1000, []uint64{1, 2, 3}},
		{5000, []uint64{1, 2}},
	} {
		for _, seed := range tc.seeds {
			t.Run(fmt.Sprintf("%dpods/seed%d", tc.pods, seed), func(t *testing.T) {
				if testing.Short() && tc.pods > 1000 {
					t.Skip("short mode")
				}
				in := workload.DiverseInput(rand.New(rand.NewPCG(seed, 0)), tc.pods)
				requireValid(t, in)
			})
		}
	}
}
