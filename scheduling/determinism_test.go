package scheduling_test

import (
	"math/rand"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/instancetype/synthetic"
	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

// TestSolveIsDeterministic solves each input twice, and again with every list in it shuffled
// (pods, NodePools, their instance types and offerings, existing nodes, DaemonSets): the plans
// must be identical. It also checks that Solve leaves its input untouched.
func TestSolveIsDeterministic(t *testing.T) {
	for seed := int64(1); seed <= 60; seed++ {
		in := randomInput(rand.New(rand.NewSource(seed)))
		before := snapshot(in)
		want, err := scheduling.Solve(in)
		require.NoError(t, err)
		require.Empty(t, cmp.Diff(before, snapshot(in), quantities), "seed %d: Solve modified its input", seed)

		again, err := scheduling.Solve(in)
		require.NoError(t, err)
		require.Empty(t, cmp.Diff(want, again, quantities), "seed %d: second solve differs", seed)

		r := rand.New(rand.NewSource(-seed))
		for i := 0; i < 3; i++ {
			shuffledIn := shuffled(r, in)
			got, err := scheduling.Solve(shuffledIn)
			require.NoError(t, err)
			require.Empty(t, cmp.Diff(want, got, quantities, cmpopts.IgnoreFields(scheduling.Plan{}, "Placements")), "seed %d, shuffle %d: plan depends on input order", seed, i)
			// Placements follow the input's order, and say the same thing.
			where := map[*corev1.Pod]scheduling.Placement{}
			for _, pl := range want.Placements {
				where[pl.Pod] = pl
			}
			for j, pl := range got.Placements {
				require.Same(t, shuffledIn.Pods[j], pl.Pod)
				require.Equal(t, where[pl.Pod].Node, pl.Node, "seed %d: pod %s", seed, pl.Pod.Name)
			}
		}
	}
}

// quantities compares resource quantities by value (their cached text is not part of it).
var quantities = cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 && a.Format == b.Format })

// shuffled returns a copy of in with every list in a random order. The objects are shared, so
// the copy also shows whether Solve depends on their addresses.
func shuffled(r *rand.Rand, in scheduling.Input) scheduling.Input {
	out := in
	out.Pods = shuffle(r, in.Pods)
	out.ExistingNodes = shuffle(r, in.ExistingNodes)
	out.DaemonSets = shuffle(r, in.DaemonSets)
	out.NodePools = nil
	for _, np := range shuffle(r, in.NodePools) {
		c := *np
		c.Requirements = shuffle(r, np.Requirements)
		c.Taints = np.Taints // taint order is part of the NodePool's spec and shows in the plan
		c.InstanceTypes = nil
		for _, it := range shuffle(r, np.InstanceTypes) {
			ic := *it
			ic.Offerings = shuffle(r, it.Offerings)
			c.InstanceTypes = append(c.InstanceTypes, &ic)
		}
		out.NodePools = append(out.NodePools, &c)
	}
	return out
}

func shuffle[T any](r *rand.Rand, xs []T) []T {
	if xs == nil {
		return nil
	}
	out := append([]T(nil), xs...)
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// inputSnapshot is a deep copy of what Solve must not change.
type inputSnapshot struct {
	Pods      []*corev1.Pod
	NodePools []scheduling.NodePool
	Types     [][]instancetype.InstanceType
	Nodes     []*corev1.Node
	NodePods  [][]*corev1.Pod
	Daemons   []*appsv1.DaemonSet
}

func snapshot(in scheduling.Input) inputSnapshot {
	var s inputSnapshot
	for _, p := range in.Pods {
		s.Pods = append(s.Pods, p.DeepCopy())
	}
	for _, np := range in.NodePools {
		c := *np
		c.InstanceTypes = nil
		c.Labels = copyMap(np.Labels)
		c.Taints = append([]corev1.Taint(nil), np.Taints...)
		c.Requirements = append([]scheduling.NodeSelectorRequirementWithMinValues(nil), np.Requirements...)
		c.Limits = np.Limits.DeepCopy()
		s.NodePools = append(s.NodePools, c)
		var types []instancetype.InstanceType
		for _, it := range np.InstanceTypes {
			ic := *it
			ic.Labels = copyMap(it.Labels)
			ic.Capacity = it.Capacity.DeepCopy()
			ic.Offerings = append([]instancetype.Offering(nil), it.Offerings...)
			types = append(types, ic)
		}
		s.Types = append(s.Types, types)
	}
	for _, en := range in.ExistingNodes {
		s.Nodes = append(s.Nodes, en.Node.DeepCopy())
		var ps []*corev1.Pod
		for _, p := range en.Pods {
			ps = append(ps, p.DeepCopy())
		}
		s.NodePods = append(s.NodePods, ps)
	}
	for _, ds := range in.DaemonSets {
		s.Daemons = append(s.Daemons, ds.DeepCopy())
	}
	return s
}

func copyMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// TestJoinMemoChangesNothing: plain pods skip planned nodes a pod just like them failed to join
// as the node is now; tracing a pod turns that off for it, so tracing every pod must give the
// same plan.
func TestJoinMemoChangesNothing(t *testing.T) {
	for seed := int64(1); seed <= 30; seed++ {
		in := randomInput(rand.New(rand.NewSource(seed)))
		want, err := scheduling.Solve(in)
		require.NoError(t, err)
		for _, p := range in.Pods {
			if p != nil {
				ns := p.Namespace
				if ns == "" {
					ns = "default"
				}
				in.Options.Trace = append(in.Options.Trace, ns+"/"+p.Name)
			}
		}
		got, err := scheduling.Solve(in)
		require.NoError(t, err)
		require.Empty(t, cmp.Diff(want, got, quantities, cmpopts.IgnoreFields(scheduling.Plan{}, "Traces")), "seed %d", seed)
	}
	pods := mixedPods(3000)
	in := scheduling.Input{Pods: pods, NodePools: pools(tb.NodePool("default", synthetic.Default().InstanceTypes...).Obj())}
	want, err := scheduling.Solve(in)
	require.NoError(t, err)
	for _, p := range pods {
		in.Options.Trace = append(in.Options.Trace, "default/"+p.Name)
	}
	got, err := scheduling.Solve(in)
	require.NoError(t, err)
	require.Empty(t, cmp.Diff(want, got, quantities, cmpopts.IgnoreFields(scheduling.Plan{}, "Traces")))
}
