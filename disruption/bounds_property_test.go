package disruption

import (
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

// TestBoundsAreSound checks on random clusters (every other one under Karpenter's multi-node
// rules, Input.KarpenterMultiNode) that the bounds never rule out what a simulation would
// accept. For every consolidation candidate, for prefixes and random
// subsets of the ranked candidates, and for every node grow could add to the empty set or to
// a valid set, it simulates the very consolidation the decider would (consolidate: Simulate
// with the candidates removed, again with spot offerings only for spot candidates) and
// asserts:
//   - a set a bound rules out is no valid consolidation (for grow: none saving more than the
//     set it grows), so the bound changes no decision, only skips work;
//   - the bound's price is a true lower bound: whenever the simulation places every pod, its
//     replacements cost at least that much (a single node's pods on one replacement).
//   - a single node or set the scheduler's first round rules out for a decision for its
//     commands (firstRound) is no valid consolidation, and a set of several is not one whose
//     pods all fit on fewer new nodes (which prefixSearch reads of its failures).
//
// The second holds whether or not the bound rules the set out, so it checks the bound's
// arithmetic on every simulated set, not only on those near its limit. The test also counts
// what it checked and fails when the generator stops reaching rulings or valid
// consolidations, so a bound that never rules anything out does not pass unnoticed.
// NODEPLAN_BOUND_SEEDS=2000 runs more clusters.
func TestBoundsAreSound(t *testing.T) {
	seeds := 200
	if testing.Short() {
		seeds = 30
	}
	if v, err := strconv.Atoi(os.Getenv("NODEPLAN_BOUND_SEEDS")); err == nil {
		seeds = v
	}
	var st boundStats
	for seed := 1; seed <= seeds; seed++ {
		in := boundCluster(rand.New(rand.NewSource(int64(seed))))
		// Every other cluster under Karpenter's multi-node rules, whose bounds differ.
		in.KarpenterMultiNode = seed%2 == 0
		d, err := newDecider(in)
		require.NoError(t, err, "seed %d", seed)
		for _, e := range checkBounds(d, rand.New(rand.NewSource(int64(-seed))), &st) {
			t.Errorf("seed %d: %s", seed, e)
		}
	}
	t.Logf("%d clusters: %+v", seeds, st)
	if testing.Short() && seeds < 100 {
		return
	}
	// What the generator must reach for the checks to mean something.
	require.Greater(t, st.singleRuled, seeds/3, "single-node bounds ruled out too few candidates: %+v", st)
	require.Greater(t, st.multiRuled, seeds/20, "multi-node bounds ruled out too few sets: %+v", st)
	require.Greater(t, st.firstRoundRuled, seeds/20, "the first round ruled out too few candidates: %+v", st)
	require.Greater(t, st.firstRoundSets, seeds/40, "the first round ruled out too few sets of several nodes: %+v", st)
	require.Greater(t, st.growRuled, seeds/3, "grow bounds ruled out too few additions: %+v", st)
	require.Greater(t, st.ruledPlaced, seeds/4, "too few ruled-out sets whose pods all found a place: %+v", st)
	require.Greater(t, st.valid, seeds, "too few valid consolidations among the simulated sets: %+v", st)
	require.Greater(t, st.costChecked, 5*seeds, "too few simulations checked the lower bound: %+v", st)
}

// boundStats counts what TestBoundsAreSound checked.
type boundStats struct {
	candidates, simulated, valid int
	// singleRuled, multiRuled and growRuled count the sets bounds ruled out; ruledPlaced those
	// of them whose pods the simulation still placed (on replacements that cost too much).
	singleRuled, multiRuled, growRuled, ruledPlaced int
	// firstRoundRuled counts the single nodes and sets the first round rules out, and
	// firstRoundSets those of several nodes.
	firstRoundRuled, firstRoundSets int
	// costChecked counts the simulations that placed every pod, whose cost was held against
	// the lower bound.
	costChecked int
}

// checkBounds runs the checks of TestBoundsAreSound on one decider before any command and
// returns every violation as a sentence.
func checkBounds(d *decider, rng *rand.Rand, st *boundStats) []string {
	var errs []string
	cands := d.consolidationCandidates()
	st.candidates += len(cands)
	sim := func(set []*nodeState) (*outcome, bool) {
		st.simulated++
		o, why := d.consolidate(d.sim.cluster, set)
		if why == "" {
			st.valid++
		}
		return o, why == ""
	}
	// costAtLeast checks the simulation against the bound's price for new nodes.
	costAtLeast := func(set []*nodeState, o *outcome, n need, lower float64, oneNode bool) {
		if !o.allPlaced() || (oneNode && len(o.replacements) > 1) {
			return
		}
		st.costChecked++
		if o.cost < lower-1e-6 {
			errs = append(errs, fmt.Sprintf("removing %s: the bound prices new capacity for %s at $%.4f/h or more, but the simulation places every pod on %s costing $%.4f/h",
				namesKey(set), describeVec(n.total), lower, describeReplacements(o), o.cost))
		}
	}
	// ruled records a set a bound ruled out.
	ruled := func(counter *int, o *outcome) {
		*counter++
		if o.allPlaced() {
			st.ruledPlaced++
		}
	}

	rooms := d.roomIndex()
	var valid [][]*nodeState // sets found valid, for grow to start from
	for _, c := range cands {
		set := []*nodeState{c}
		why := d.singleNodeBound(c, rooms)
		o, ok := sim(set)
		n, lower := d.newNodesLower(set, rooms, need{}, true)
		costAtLeast(set, o, n, lower, true)
		if why != "" {
			ruled(&st.singleRuled, o)
			if ok {
				errs = append(errs, fmt.Sprintf("single-node: the bound rules out %s (%s), but the simulation consolidates it: %s", c.name, why, describeOutcome(o)))
			}
		}
		if ok {
			valid = append(valid, set)
		}
	}

	var sets [][]*nodeState
	for k := 2; k <= min(len(cands), 8); k++ {
		sets = append(sets, cands[:k])
	}
	for range 10 {
		if len(cands) < 3 {
			break
		}
		perm := rng.Perm(len(cands))[:2+rng.Intn(min(len(cands)-2, 3))]
		set := make([]*nodeState, len(perm))
		for i, j := range perm {
			set[i] = cands[j]
		}
		sets = append(sets, set)
	}
	for _, set := range append(singles(cands), sets...) {
		// The first round's rulings, for a decision for its commands (firstRound): the set is
		// no valid consolidation, and, for several nodes, not one whose pods all fit on fewer
		// new nodes (prefixSearch's "too short", which the search reads of a failure).
		if told, ok := d.firstRound(d.sim.cluster, set); ok && told.bounded != "" {
			st.firstRoundRuled++
			if len(set) > 1 {
				st.firstRoundSets++
			}
			o, ok := sim(set)
			short := o.allPlaced() && len(set) > 1 && len(o.replacements) < len(set) && !d.karpenterMultiNode
			if ok || short {
				errs = append(errs, fmt.Sprintf("first round: it rules out %s (%s), but the simulation finds %s (valid %v)", namesKey(set), told.bounded, describeOutcome(o), ok))
			}
		}
	}
	for _, set := range sets {
		why := d.multiNodeBound(set)
		o, ok := sim(set)
		n, lower := d.newNodesLower(set, rooms.without(set), need{}, d.karpenterMultiNode)
		costAtLeast(set, o, n, lower, d.karpenterMultiNode)
		if why != "" {
			ruled(&st.multiRuled, o)
			if ok {
				errs = append(errs, fmt.Sprintf("multi-node: the bound rules out %s (%s), but the simulation consolidates it: %s", namesKey(set), why, describeOutcome(o)))
			}
		}
		if ok {
			valid = append(valid, set)
		}
	}

	// grow, from the empty set and from up to three valid sets.
	bases := [][]*nodeState{nil}
	for i := 0; i < len(valid) && len(bases) < 4; i++ {
		bases = append(bases, valid[rng.Intn(len(valid))])
	}
	for _, base := range bases {
		var current *outcome
		floor := 0.0
		if len(base) > 0 {
			var ok bool
			if current, ok = sim(base); !ok {
				errs = append(errs, fmt.Sprintf("internal: %s was valid and is not when simulated again", namesKey(base)))
				continue
			}
			floor = savings(current)
		}
		growRooms, extra := d.growRooms(base)
		for _, c := range cands {
			if containsNode(base, c) {
				continue
			}
			grown := append(append([]*nodeState(nil), base...), c)
			why := d.growBound(base, c, growRooms, extra, floor)
			o, ok := sim(grown)
			n, lower := d.newNodesLower([]*nodeState{c}, growRooms, extra, len(base) == 0)
			costAtLeast(grown, o, n, lower, len(base) == 0)
			if why != "" {
				ruled(&st.growRuled, o)
				if ok && better(o, current) {
					errs = append(errs, fmt.Sprintf("grow: the bound rules out adding %s to [%s] (saving $%.4f/h) (%s), but the simulation saves more: %s",
						c.name, namesKey(base), floor, why, describeOutcome(o)))
				}
			}
		}
	}
	return errs
}

// singles is each of cands alone.
func singles(cands []*nodeState) [][]*nodeState {
	out := make([][]*nodeState, len(cands))
	for i, c := range cands {
		out[i] = []*nodeState{c}
	}
	return out
}

func describeOutcome(o *outcome) string {
	return fmt.Sprintf("its pods move to %s, costing $%.4f/h, saving $%.4f/h", describeReplacements(o), o.cost, savings(o))
}

func describeReplacements(o *outcome) string {
	if len(o.replacements) == 0 {
		return "existing nodes"
	}
	return "existing nodes and " + describeClaims(o.replacements)
}

// boundCluster builds a small random cluster for TestBoundsAreSound: a catalog priced anew
// per seed (types of several shapes and an arm64 one, three zones, on-demand and spot, some
// offerings unavailable, some types with reserved overhead), three NodePools that narrow it
// differently (general, spot-only and a tainted batch pool), and nodes of every kind (spot
// and on-demand, some starting, cordoned, leaving or NotReady) filled to a random share with
// pods of varied requests: memory-heavy ones, ones with init containers, overhead or limits
// only, spread over zones, apart by hostname, pinned to a zone or an arch. Some pods are
// pending and two PodDisruptionBudgets select some pods. Everything may be consolidated now,
// so most nodes are candidates.
func boundCluster(rng *rand.Rand) Input {
	chance := func(p float64) bool { return rng.Float64() < p }
	zones := []string{"bound-zone-a", "bound-zone-b", "bound-zone-c"}
	shapes := []struct {
		name, arch string
		cpu, memGi int64
		pods       int64
	}{
		{"c-small", "amd64", 2, 4, 20},
		{"m-small", "amd64", 2, 8, 30},
		{"m-medium", "amd64", 4, 16, 60},
		{"c-large", "amd64", 8, 16, 110},
		{"m-large", "amd64", 8, 32, 110},
		{"g-large", "arm64", 8, 32, 110},
		{"r-large", "amd64", 8, 64, 110},
		{"m-xlarge", "amd64", 16, 64, 250},
	}
	flat := chance(0.4)
	var types []*instancetype.InstanceType
	for _, s := range shapes {
		b := testbuild.Type(s.name, strconv.FormatInt(s.cpu, 10), fmt.Sprintf("%dGi", s.memGi), s.pods).Arch(s.arch)
		if chance(0.3) {
			b.KubeReserved(fmt.Sprintf("%dm", 50*(1+rng.Intn(4))), fmt.Sprintf("%dMi", 256*(1+rng.Intn(4))))
		}
		// Prices roughly by size, each type, zone and capacity type a little off; or, in a
		// flat catalog, by cpu alone, where nodes cost what their room is worth and bounds are
		// tight.
		base := (0.024*float64(s.cpu) + 0.003*float64(s.memGi)) * (0.8 + 0.45*rng.Float64())
		if flat {
			base = 0.048 * float64(s.cpu)
		}
		for _, z := range zones {
			od := base * (0.9 + 0.25*rng.Float64())
			spot := od * (0.25 + 0.3*rng.Float64())
			if flat {
				od, spot = base, base*0.35
			}
			for _, o := range []struct {
				ct    string
				price float64
			}{{"on-demand", od}, {"spot", spot}} {
				if chance(0.1) {
					b.Unavailable(z, o.ct, o.price)
				} else {
					b.Offer(z, o.ct, o.price)
				}
			}
		}
		types = append(types, b.Obj())
	}
	subset := func(min int) []*instancetype.InstanceType {
		var out []*instancetype.InstanceType
		for _, i := range rng.Perm(len(types)) {
			if len(out) < min || chance(0.5) {
				out = append(out, types[i])
			}
		}
		return out
	}

	general := testbuild.NodePool("general", types...).ConsolidateAfter(0).Budget("100%")
	if chance(0.3) {
		general.Requirement("topology.kubernetes.io/zone", corev1.NodeSelectorOpIn, zones[0], zones[1])
	}
	if chance(0.5) {
		general.Requirement("karpenter.sh/capacity-type", corev1.NodeSelectorOpIn, "on-demand")
	}
	if chance(0.15) {
		general.Requirement("kubernetes.io/arch", corev1.NodeSelectorOpIn, "amd64")
	}
	if chance(0.15) {
		general.Requirement("node.kubernetes.io/instance-type", corev1.NodeSelectorOpNotIn, types[rng.Intn(len(types))].Name)
	}
	spotPool := testbuild.NodePool("spot", subset(3)...).ConsolidateAfter(0).Budget("100%").
		Requirement("karpenter.sh/capacity-type", corev1.NodeSelectorOpIn, "spot").Weight(int32(rng.Intn(2) * 10))
	batch := testbuild.NodePool("batch", subset(2)...).ConsolidateAfter(0).Budget("100%").
		Taint("dedicated", "batch", corev1.TaintEffectNoSchedule).Label("team", "batch")
	pools := map[string]*scheduling.NodePool{"general": general.Obj(), "spot": spotPool.Obj(), "batch": batch.Obj()}
	// The spot and batch NodePools are not always there: a cheap spot pool prices every new
	// node low, and so leaves bounds little to rule out.
	poolNames := []string{"general"}
	for _, name := range []string{"batch", "spot"} {
		if chance(0.5) {
			poolNames = append(poolNames, name)
		}
	}

	in := Input{Now: time.Date(2025, 6, 2, 12, 0, 0, 0, time.UTC)}
	for _, name := range poolNames {
		in.NodePools = append(in.NodePools, pools[name])
	}
	in.DaemonSets = []*appsv1.DaemonSet{{
		ObjectMeta: metav1.ObjectMeta{Name: "logging", Namespace: "kube-system"},
		Spec: appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "logging"}},
			Spec:       testbuild.Pod("logging").CPU("50m").Memory("64Mi").TolerateAll().Obj().Spec,
		}},
	}}
	in.PodDisruptionBudgets = []*policyv1.PodDisruptionBudget{
		testbuild.PDB("web", map[string]string{"app": "web"}).MaxUnavailable([]string{"1", "50%", "100%"}[rng.Intn(3)]).Obj(),
		testbuild.PDB("db", map[string]string{"app": "db"}).MaxUnavailable("1").Obj(),
	}

	// Loose clusters have valid consolidations to find; packed ones, pods that fit on no
	// other node, which the bounds are about.
	fillLo := []int{30, 70, 85, 95}[rng.Intn(4)]
	seq := 0
	nodes := 3 + rng.Intn(12)
	for i := range nodes {
		name := fmt.Sprintf("node-%02d", i)
		poolName := poolNames[rng.Intn(len(poolNames))]
		np := pools[poolName]
		it := np.InstanceTypes[rng.Intn(len(np.InstanceTypes))]
		if chance(0.05) {
			it = types[rng.Intn(len(types))] // a type the NodePool no longer has
		}
		zone := zones[rng.Intn(len(zones))]
		ct := "on-demand"
		if poolName == "spot" || chance(0.35) {
			ct = "spot"
		}
		node := testbuild.KarpenterNode(name, poolName, it, zone, ct)
		if poolName == "batch" {
			node.Labels["team"] = "batch"
			node.Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: "batch", Effect: corev1.TaintEffectNoSchedule}}
		}
		n := &Node{
			Node:         node,
			NodePool:     poolName,
			InstanceType: it.Name,
			Zone:         zone,
			CapacityType: ct,
			Created:      in.Now.Add(-time.Duration(1+rng.Intn(500)) * time.Hour),
			Initialized:  !chance(0.05),
		}
		n.LastPodEvent = n.Created
		switch rng.Intn(25) {
		case 0:
			n.Disrupting = true
		case 1:
			node.Spec.Unschedulable = true
		case 2:
			node.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionFalse}}
		}
		n.Pods = append(n.Pods, testbuild.Pod("logging-"+name).Namespace("kube-system").Label("app", "logging").
			CPU("50m").Memory("64Mi").OwnedByDaemonSet("logging").NodeName(name).Obj())
		alloc := it.Allocatable()
		fill := int64(fillLo + rng.Intn(101-fillLo))
		cpuBudget := alloc.Cpu().MilliValue() * fill / 100
		memBudget := alloc.Memory().Value() * fill / 100
		hasDB := false
		for cpuUsed, memUsed := int64(100), int64(64<<20); cpuBudget-cpuUsed >= 100 && memBudget-memUsed >= 128<<20; {
			seq++
			// Up to half the node's cpu, so that some pods fit on few other nodes.
			cpu := min(int64(100*(1+rng.Intn(int(alloc.Cpu().MilliValue()/200)))), cpuBudget-cpuUsed)
			// Memory in about the node's proportion to cpu, so that both fill up together.
			mem := min(alloc.Memory().Value()/alloc.Cpu().MilliValue()*cpu*int64(50+rng.Intn(100))/100, memBudget-memUsed)
			if chance(0.15) { // memory-heavy
				cpu, mem = min(cpu, 250), min(int64(1<<30)*int64(2+rng.Intn(10)), memBudget-memUsed)
			}
			cpuUsed += cpu
			memUsed += mem
			b := testbuild.Pod(fmt.Sprintf("p-%03d", seq)).CPU(fmt.Sprintf("%dm", cpu)).Memory(strconv.FormatInt(mem, 10)).NodeName(name)
			switch k := rng.Intn(12); {
			case k < 3:
				b.Label("app", "web")
			case k == 3:
				b.Label("app", "spread-"+poolName).ZoneSpread(1)
				if poolName == "batch" {
					b.NodeSelector("team", "batch")
				}
			case k == 4 && !hasDB:
				hasDB = true
				b.Label("app", "db").AntiAffinity("kubernetes.io/hostname", map[string]string{"app": "db"})
			case k == 5:
				b.Label("app", "zonal").NodeSelector("topology.kubernetes.io/zone", zone)
			case k == 6 && it.Labels["kubernetes.io/arch"] == "arm64":
				b.Label("app", "arm").NodeSelector("kubernetes.io/arch", "arm64")
			case k == 7:
				// An init container asking for more than the main one: the pod's requests are
				// the larger.
				b.Label("app", "init").InitContainer(fmt.Sprintf("%dm", cpu+200), "64Mi")
			case k == 8:
				b.Label("app", "kata").Overhead(corev1.ResourceCPU, "100m").Overhead(corev1.ResourceMemory, "64Mi")
			default:
				b.Label("app", "api")
			}
			if poolName == "batch" {
				b.Toleration("dedicated", "batch", corev1.TaintEffectNoSchedule)
			}
			p := b.Obj()
			if chance(0.05) {
				// Limits only: the API server defaults requests to them.
				r := &p.Spec.Containers[0].Resources
				r.Limits, r.Requests = r.Requests, nil
			}
			if chance(0.03) {
				p.Status.Phase = corev1.PodSucceeded
			}
			n.Pods = append(n.Pods, p)
		}
		in.Nodes = append(in.Nodes, n)
	}
	for i := range rng.Intn(4) {
		in.PendingPods = append(in.PendingPods, testbuild.Pod(fmt.Sprintf("pending-%d", i)).Label("app", "batchjob").
			CPU(fmt.Sprintf("%dm", 200*(1+rng.Intn(12)))).Memory(resource.NewQuantity(int64(1+rng.Intn(6))<<30, resource.BinarySI).String()).Obj())
	}
	return in
}
