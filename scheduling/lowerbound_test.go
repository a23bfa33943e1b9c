package scheduling_test

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/instancetype/synthetic"
	"github.com/nodeplan/nodeplan/internal/partition"
	"github.com/nodeplan/nodeplan/internal/resources"
	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

// TestLowerBoundIsTrue compares the lower bound with the exact optimum, found by trying every
// partition of the pods into nodes, on hundreds of small random inputs: the bound never
// exceeds the optimum, and the plan never beats it. Past seed 400 the pods also carry labels
// and rules over them (from a second generator, so the first 400 inputs stay as they were):
// required hostname anti-affinity, which the optimum honours, selecting the pod's own label or
// another, so that some pods repel each other, some repel pods that do not repel them back and
// some repel none; and hostname spreads, which the optimum ignores (it is then a relaxation,
// below the true optimum, and the bound must stay below it all the same).
func TestLowerBoundIsTrue(t *testing.T) {
	tight, compared, ratios := 0, 0, 0.0
	for seed := int64(1); seed <= 1200; seed++ {
		types, pods := randomBoundCase(seed)
		plan, err := scheduling.Solve(scheduling.Input{Pods: pods, NodePools: pools(tb.NodePool("default", types...).Obj()), Options: scheduling.Options{NodeCost: -1}})
		require.NoError(t, err)
		opt := exactOptimum(types, pods, plan)
		if math.IsInf(opt, 1) {
			continue // some pod fits no type
		}
		require.LessOrEqual(t, plan.Summary.LowerBound, opt+1e-6, "seed %d: the bound exceeds the optimum", seed)
		require.GreaterOrEqual(t, plan.Summary.HourlyCost, opt-1e-6, "seed %d: the plan beats the exact optimum", seed)
		if opt > 0 {
			compared++
			ratios += plan.Summary.LowerBound / opt
			if plan.Summary.LowerBound >= 0.8*opt {
				tight++
			}
		}
	}
	t.Logf("%d inputs: the bound is on average %.0f%% of the optimum, within 80%% of it on %d", compared, 100*ratios/float64(compared), tight)
}

// randomBoundCase is TestLowerBoundIsTrue's input of one seed: 2 to 5 instance types and 1
// to 7 pods of random sizes; past seed 400 with labels and hostname rules, past seed 800
// with spot offerings, architectures and pods asking for either.
func randomBoundCase(seed int64) ([]*instancetype.InstanceType, []*corev1.Pod) {
	cpus := []string{"100m", "250m", "500m", "1", "1500m", "3"}
	mems := []string{"64Mi", "256Mi", "1Gi", "3Gi", "6Gi"}
	apps := []string{"", "a", "b"}
	r := rand.New(rand.NewSource(seed))
	rules := rand.New(rand.NewSource(-seed))
	// Past seed 800 types are also sold on spot and some are arm64, and pods may ask for
	// on-demand or an architecture (from a third generator).
	classes := rand.New(rand.NewSource(seed + 1<<20))
	var types []*instancetype.InstanceType
	for i := range 2 + r.Intn(4) {
		cpu, mem := []string{"1", "2", "4", "8"}[r.Intn(4)], []string{"512Mi", "2Gi", "4Gi", "8Gi", "16Gi"}[r.Intn(5)]
		onDemand := 0.01 + float64(r.Intn(100))/100
		b := tb.Type(fmt.Sprintf("t%d", i), cpu, mem, int64(2+r.Intn(8))).Offer("zone-a", "on-demand", onDemand)
		if seed > 800 {
			b.Offer("zone-a", "spot", onDemand*(0.2+0.6*classes.Float64()))
			if classes.Intn(3) == 0 {
				b.Arch("arm64")
			} else {
				b.Arch("amd64")
			}
		}
		types = append(types, b.Obj())
	}
	var pods []*corev1.Pod
	for i := range 1 + r.Intn(7) {
		b := tb.Pod(fmt.Sprintf("p%d", i)).CPU(cpus[r.Intn(len(cpus))]).Memory(mems[r.Intn(len(mems))])
		if seed > 400 {
			if app := apps[rules.Intn(len(apps))]; app != "" {
				b.Label("app", app)
			}
			switch rules.Intn(4) {
			case 0, 1:
				b.AntiAffinity(hostKey, map[string]string{"app": apps[1+rules.Intn(2)]})
			case 2:
				b.SpreadSelecting(hostKey, 1, corev1.DoNotSchedule, map[string]string{"app": apps[1+rules.Intn(2)]})
			}
		}
		if seed > 800 {
			switch classes.Intn(5) {
			case 0:
				b.NodeSelector("karpenter.sh/capacity-type", "on-demand")
			case 1:
				b.NodeSelector(corev1.LabelArchStable, []string{"amd64", "arm64"}[classes.Intn(2)])
			}
		}
		pods = append(pods, b.Obj())
	}
	return types, pods
}

// exactOptimum is the cheapest way to put the placed pods on nodes: every partition of them
// with no pod in a block that another's required hostname anti-affinity selects, each block on
// the cheapest type it fits (requests and pod slots within allocatable).
func exactOptimum(types []*instancetype.InstanceType, pods []*corev1.Pod, plan scheduling.Plan) float64 {
	placed := map[string]bool{}
	for _, nc := range plan.NodeClaims {
		for _, k := range nc.Pods {
			placed[k] = true
		}
	}
	var lists []corev1.ResourceList
	var reqs []corev1.ResourceList
	var kept []*corev1.Pod
	for _, p := range pods {
		if placed["default/"+p.Name] {
			l := p.Spec.Containers[0].Resources.Requests.DeepCopy()
			reqs = append(reqs, l)
			lists = append(lists, l)
			kept = append(kept, p)
		}
	}
	// repels[i][j]: pod i's required hostname anti-affinity selects pod j.
	repels := make([][]bool, len(kept))
	for i, p := range kept {
		repels[i] = make([]bool, len(kept))
		if p.Spec.Affinity == nil || p.Spec.Affinity.PodAntiAffinity == nil {
			continue
		}
		for _, term := range p.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
			if term.TopologyKey != hostKey {
				continue
			}
			for j, q := range kept {
				if j != i && labels.SelectorFromSet(term.LabelSelector.MatchLabels).Matches(labels.Set(q.Labels)) {
					repels[i][j] = true
				}
			}
		}
	}
	for _, it := range types {
		lists = append(lists, it.Allocatable())
	}
	dims := resources.NewDims(lists...)
	vecs := make([]resources.Vector, len(reqs))
	for i, l := range reqs {
		vecs[i] = dims.Vector(l)
		vecs[i][resources.Pods] = 1000
	}
	blockCost := func(block []int) float64 {
		for _, i := range block {
			for _, j := range block {
				if repels[i][j] {
					return math.Inf(1)
				}
			}
		}
		sum := make(resources.Vector, dims.Len())
		for _, i := range block {
			sum.Add(vecs[i])
		}
		best := math.Inf(1)
		for _, it := range types {
			if !sum.Fits(dims.Vector(it.Allocatable())) {
				continue
			}
			for _, o := range it.Offerings {
				if o.Price < best && blockAccepts(kept, block, it, o) {
					best = o.Price
				}
			}
		}
		return best
	}
	return partition.Cheapest(len(vecs), blockCost)
}

// blockAccepts reports whether every pod of the block accepts a node of type it launched at
// offering o: the pods' node selectors on capacity type and architecture.
func blockAccepts(pods []*corev1.Pod, block []int, it *instancetype.InstanceType, o instancetype.Offering) bool {
	for _, i := range block {
		for k, v := range pods[i].Spec.NodeSelector {
			switch k {
			case "karpenter.sh/capacity-type":
				if o.CapacityType != v {
					return false
				}
			case corev1.LabelArchStable:
				if it.Labels[corev1.LabelArchStable] != v {
					return false
				}
			}
		}
	}
	return true
}

// Pods that may not share a node need a node each: the bound counts those nodes, at the
// cheapest type that holds each, though the fluid room of one large type would hold them all.
func TestLowerBoundCountsExclusivePods(t *testing.T) {
	small := tb.Type("small", "1", "2Gi", 8).Offer("zone-a", "on-demand", 0.05).Obj()
	medium := tb.Type("medium", "2", "4Gi", 8).Offer("zone-a", "on-demand", 0.08).Obj()
	large := tb.Type("large", "16", "64Gi", 100).Offer("zone-a", "on-demand", 0.40).Obj()
	exclusive := func(name, cpu string) *corev1.Pod {
		return tb.Pod(name).Label("app", "db").CPU(cpu).AntiAffinity(hostKey, map[string]string{"app": "db"}).Obj()
	}
	pods := []*corev1.Pod{exclusive("db-0", "500m"), exclusive("db-1", "500m"), exclusive("db-2", "1500m"), exclusive("db-3", "1500m")}
	plan, err := scheduling.Solve(scheduling.Input{Pods: pods, NodePools: pools(tb.NodePool("default", small, medium, large).Obj()), Options: scheduling.Options{NodeCost: -1}})
	require.NoError(t, err)
	require.Equal(t, 4, plan.Summary.NewNodes)
	// Two nodes of at least small, and two of at least medium (1500m fits no small node).
	require.InDelta(t, 2*0.05+2*0.08, plan.Summary.LowerBound, 1e-6)
	require.InDelta(t, plan.Summary.HourlyCost, plan.Summary.LowerBound, 1e-6, "here the bound is the optimum")
}

// The lower bound is a property of the input: each strategy plans the same pods on other
// nodes, in another order, and the bound stays the same. TestLowerBoundIsTrue's inputs, and
// pods whose preferred node affinity a plan may keep for some and relax for others.
func TestLowerBoundIsTheSameWhateverTheStrategy(t *testing.T) {
	type input struct {
		name string
		in   scheduling.Input
	}
	var inputs []input
	for seed := int64(1); seed <= 1200; seed++ {
		types, pods := randomBoundCase(seed)
		inputs = append(inputs, input{fmt.Sprintf("seed %d", seed), scheduling.Input{Pods: pods, NodePools: pools(tb.NodePool("default", types...).Obj()), Options: scheduling.Options{NodeCost: -1}}})
	}
	cat := synthetic.Default()
	inputs = append(inputs, input{"preferences", scheduling.Input{Pods: preferencesWorkload(4000, cat.InstanceTypes[0].Offerings[0].Zone), NodePools: pools(tb.NodePool("default", cat.InstanceTypes...).Obj())}})
	for _, c := range inputs {
		bounds := map[scheduling.Strategy]float64{}
		for _, s := range scheduling.Strategies {
			c.in.Options.Strategy = s
			plan, err := scheduling.Solve(c.in)
			require.NoError(t, err)
			bounds[s] = plan.Summary.LowerBound
		}
		for _, s := range scheduling.Strategies {
			require.Equal(t, bounds[scheduling.Strategies[0]], bounds[s], "%s: the lower bound under --strategy %s is not the one under %s", c.name, s, scheduling.Strategies[0])
		}
	}
}

// TestLowerBoundIsThePlacedPodsWhereverItIsWorkedOut checks the bound worked out while the
// pods are placed (no existing nodes) against the one worked out after (a cordoned existing
// node turns that off), and that a pod left unschedulable does not count: it must be the bound
// of the pods that end on new nodes either way.
func TestLowerBoundIsThePlacedPodsWhereverItIsWorkedOut(t *testing.T) {
	for seed := int64(1); seed <= 300; seed++ {
		types, pods := randomBoundCase(seed)
		solve := func(pods []*corev1.Pod, existing ...*scheduling.ExistingNode) scheduling.Plan {
			plan, err := scheduling.Solve(scheduling.Input{Pods: pods, ExistingNodes: existing,
				NodePools: pools(tb.NodePool("default", types...).Obj()), Options: scheduling.Options{NodeCost: -1}})
			require.NoError(t, err)
			return plan
		}
		meanwhile := solve(pods)
		after := solve(pods, tb.Node("cordoned", "64", "256Gi", 110).Cordoned().Obj())
		require.Equal(t, meanwhile.Summary.LowerBound, after.Summary.LowerBound, "seed %d: the bound worked out during placement differs from the one after", seed)
		withHuge := solve(append(slices.Clone(pods), tb.Pod("huge").CPU("100000").Obj()))
		require.Len(t, withHuge.Unschedulable, len(meanwhile.Unschedulable)+1, "seed %d", seed)
		require.Equal(t, meanwhile.Summary.LowerBound, withHuge.Summary.LowerBound, "seed %d: an unschedulable pod changed the bound", seed)
	}
}
