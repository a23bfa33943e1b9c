package suite

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/nodeplan/nodeplan/conformance/workload"
	"github.com/nodeplan/nodeplan/scheduling"
)

// The karpenter strategy places pods in another order and does not repack; its plans must be
// as valid as the default's: the diverse workload and randomized clusters.
func TestStrategyKarpenter(t *testing.T) {
	t.Run("diverse/1000pods", func(t *testing.T) {
		in := workload.DiverseInput(rand.New(rand.NewPCG(1, 0)), 1000)
		in.Options.Strategy = scheduling.StrategyKarpenter
		requireValid(t, in)
	})
	for seed := uint64(1); seed <= 20; seed++ {
		pods := 50 + int(seed%4)*50
		t.Run(fmt.Sprintf("random/seed%d/%dpods", seed, pods), func(t *testing.T) {
			in := workload.RandomCluster(rand.New(rand.NewPCG(seed, 1)), pods)
			in.Options.Strategy = scheduling.StrategyKarpenter
			requireValid(t, in)
		})
	}
}
