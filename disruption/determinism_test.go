package disruption_test

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

// TestDeterminism shuffles every list of the input and expects byte-identical decisions.
func TestDeterminism(t *testing.T) {
	for _, budget := range []string{"10%", "100%"} {
		t.Run("budget "+budget, func(t *testing.T) {
			in := syntheticCluster(120, 6)
			np := *in.NodePools[0]
			np.Disruption.Budgets = []scheduling.Budget{{Nodes: budget}}
			in.NodePools = []*scheduling.NodePool{&np, pool("spare").Obj()}
			want, err := disruption.Decide(in)
			require.NoError(t, err)
			require.NotEmpty(t, want.Commands)
			wantJSON, err := json.Marshal(want)
			require.NoError(t, err)
			rng := rand.New(rand.NewSource(1))
			for i := 0; i < 3; i++ {
				got, err := disruption.Decide(shuffled(in, rng))
				require.NoError(t, err)
				gotJSON, err := json.Marshal(got)
				require.NoError(t, err)
				assert.JSONEq(t, string(wantJSON), string(gotJSON))
			}
		})
	}
}

// shuffled returns in with every list in a random order; the objects are shared.
func shuffled(in disruption.Input, rng *rand.Rand) disruption.Input {
	out := in
	out.Nodes = shuffle(rng, in.Nodes)
	for i, n := range out.Nodes {
		cp := *n
		cp.Pods = shuffle(rng, n.Pods)
		out.Nodes[i] = &cp
	}
	out.NodePools = shuffle(rng, in.NodePools)
	out.PodDisruptionBudgets = shuffle(rng, in.PodDisruptionBudgets)
	out.DaemonSets = shuffle(rng, in.DaemonSets)
	out.PendingPods = shuffle(rng, in.PendingPods)
	return out
}

func shuffle[T any](rng *rand.Rand, in []T) []T {
	out := append([]T(nil), in...)
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// TestDecideDoesNotModifyInput runs a decision that commits several commands and checks
// the input objects are unchanged.
func TestDecideDoesNotModifyInput(t *testing.T) {
	in := syntheticCluster(40, 5)
	np := *in.NodePools[0]
	np.Disruption.Budgets = []scheduling.Budget{{Nodes: "100%"}}
	in.NodePools = []*scheduling.NodePool{&np}
	before, err := json.Marshal(in)
	require.NoError(t, err)
	var pods []*corev1.Pod
	for _, n := range in.Nodes {
		pods = append(pods, n.Pods...)
	}
	d := decide(t, in)
	require.NotEmpty(t, d.Commands)
	after, err := json.Marshal(in)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after))
	for _, p := range pods {
		assert.NotEmpty(t, p.Spec.NodeName)
	}
}

// TestDecideSameOnAnyGOMAXPROCS decides with one worker and with several, on clusters where
// many simulations run in parallel (every node's host-port pod needs a node of its own, so
// no consolidation succeeds and every candidate is simulated), on the synthetic cluster, and
// on one large enough to be classified on every core, and expects byte-identical decisions.
func TestDecideSameOnAnyGOMAXPROCS(t *testing.T) {
	stuck := disruption.Input{NodePools: []*scheduling.NodePool{onDemand("default").Obj()}}
	for i := 0; i < 24; i++ {
		name := fmt.Sprintf("node-%02d", i)
		stuck.Nodes = append(stuck.Nodes, running(name, "default", small, "on-demand",
			testbuild.Pod("port-"+name).Label("app", "port").CPU("100m").HostPort(8080).Obj(),
			pod("web-"+name, "100m")))
	}
	stuck.Now = now
	synthetic := syntheticCluster(120, 6)
	one := *synthetic.NodePools[0]
	one.Disruption.Budgets = []scheduling.Budget{{Nodes: "1"}}
	single := synthetic
	single.NodePools = []*scheduling.NodePool{&one}
	large := syntheticCluster(300, 4)
	for name, in := range map[string]disruption.Input{"stuck": stuck, "synthetic": synthetic, "one at a time": single, "large": large} {
		t.Run(name, func(t *testing.T) {
			var want []byte
			for _, procs := range []int{1, 2, 4} {
				prev := runtime.GOMAXPROCS(procs)
				d, err := disruption.Decide(in)
				runtime.GOMAXPROCS(prev)
				require.NoError(t, err)
				got, err := json.Marshal(d)
				require.NoError(t, err)
				if want == nil {
					want = got
					continue
				}
				assert.Equal(t, string(want), string(got), "GOMAXPROCS %d", procs)
			}
		})
	}
}
