package scheduling_test

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/scheduling"
)

// TestBaseFromLastIsBaseAfresh follows random clusters through Apply (simulated first or not,
// so that a base is built for some states and not others) and PrepareReusing (nodes dropped,
// added, changed, readied, reordered; names reserved), and checks that the base a state's
// simulations start from, which takes what still holds from the last state's, is the one
// worked out afresh from its input alone.
func TestBaseFromLastIsBaseAfresh(t *testing.T) {
	clusters, steps := 8, 30
	if testing.Short() {
		clusters = 3
	}
	taken, checked := 0, 0
	for seed := int64(1); seed <= int64(clusters); seed++ {
		r := rand.New(rand.NewSource(seed))
		c, newPod := growRandomCluster(t, r)
		// A caller preparing its cluster again gives the NodePools prepared once, so that the
		// nodes' conversions carry over.
		in := c.Input()
		pools, err := scheduling.PreparePools(in)
		require.NoError(t, err)
		in.Pools = pools
		c, err = scheduling.Prepare(in)
		require.NoError(t, err)
		_, err = c.Simulate(scheduling.Change{}, scheduling.Options{})
		require.NoError(t, err)
		extra := 0
		for step := range steps {
			where := fmt.Sprintf("seed %d, step %d", seed, step)
			if r.Intn(2) == 0 {
				change, opts := randomChange(r, c, newPod)
				change.Requirements = nil
				plan := scheduling.Plan{}
				if r.Intn(2) == 0 {
					plan, err = c.Simulate(change, opts)
					require.NoError(t, err, where)
				}
				require.NoError(t, c.Apply(change, plan), where)
			} else {
				c, err = scheduling.PrepareReusing(changedInput(r, c.Input(), &extra), c)
				require.NoError(t, err, where)
			}
			if r.Intn(3) == 0 {
				continue // no base for this state: the next one starts from an older one
			}
			if scheduling.BaseTakenFromLast(c) {
				taken++
			}
			checked++
			require.Empty(t, scheduling.BaseDiff(c), where)
		}
	}
	require.Greater(t, taken, checked/2, "most bases are taken from the last state's (%d of %d)", taken, checked)
}

// changedInput is in as a caller preparing its cluster again might give it: some nodes
// dropped, some given as changed copies (a pod fewer, readied or not), a node added, names
// reserved, and now and then two nodes swapped.
func changedInput(r *rand.Rand, in scheduling.Input, extra *int) scheduling.Input {
	nodes := make([]*scheduling.ExistingNode, 0, len(in.ExistingNodes)+1)
	for _, en := range in.ExistingNodes {
		switch r.Intn(12) {
		case 0:
			continue // dropped
		case 1:
			cp := *en
			if len(cp.Pods) > 0 {
				cp.Pods = cp.Pods[:len(cp.Pods)-1]
			}
			en = &cp
		case 2:
			cp := *en
			cp.Initialized = !cp.Initialized
			en = &cp
		}
		nodes = append(nodes, en)
	}
	if len(nodes) > 0 && r.Intn(3) == 0 {
		cp := *nodes[r.Intn(len(nodes))]
		cp.Node = cp.Node.DeepCopy()
		*extra++
		cp.Node.Name = fmt.Sprintf("extra-%d", *extra)
		cp.Pods = nil
		nodes = slices.Insert(nodes, r.Intn(len(nodes)+1), &cp)
	}
	if len(nodes) > 1 && r.Intn(5) == 0 {
		i, j := r.Intn(len(nodes)), r.Intn(len(nodes))
		nodes[i], nodes[j] = nodes[j], nodes[i]
	}
	if r.Intn(4) == 0 {
		in.ReservedNodeNames = append(slices.Clip(in.ReservedNodeNames), fmt.Sprintf("reserved-%d", r.Intn(1000)))
	}
	in.ExistingNodes = nodes
	return in
}
