package suite

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/nodeplan/nodeplan/conformance/workload"
)

// Randomized clusters: existing nodes with running pods, DaemonSets, taints and tolerations,
// node selectors, volumes with zone constraints and host ports.
func TestRandomClusters(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		pods := 50 + int(seed%4)*50
		t.Run(fmt.Sprintf("seed%d/%dpods", seed, pods), func(t *testing.T) {
			in := workload.RandomCluster(rand.New(rand.NewPCG(seed, 1)), pods)
			requireValid(t, in)
		})
	}
}
