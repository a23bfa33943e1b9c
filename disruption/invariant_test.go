package disruption_test

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	resourcehelper "k8s.io/component-helpers/resource"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

// TestInvariants decides random clusters and checks every decision against rules derived
// from the input alone (not from the decider's internals), then decides the shuffled input
// again and expects the same decisions. NODEPLAN_INVARIANT_SEEDS=3000 runs more clusters.
func TestInvariants(t *testing.T) {
	seeds := 150
	if testing.Short() {
		seeds = 30
	}
	if v, err := strconv.Atoi(os.Getenv("NODEPLAN_INVARIANT_SEEDS")); err == nil {
		seeds = v
	}
	methods := map[string]int{}
	for seed := 1; seed <= seeds; seed++ {
		in := randomCluster(rand.New(rand.NewSource(int64(seed))))
		d, err := disruption.Decide(in)
		require.NoError(t, err, "seed %d", seed)
		if errs := invariantViolations(in, d); len(errs) > 0 {
			t.Errorf("seed %d: %d violation(s):\n  %s\ndecisions: %s", seed, len(errs), strings.Join(errs, "\n  "), strings.Join(summary(d), "; "))
		}
		again, err := disruption.Decide(shuffled(in, rand.New(rand.NewSource(int64(-seed)))))
		require.NoError(t, err, "seed %d", seed)
		if diff := cmp.Diff(d, again); diff != "" {
			t.Errorf("seed %d: shuffled input decides differently (-first +shuffled):\n%s", seed, diff)
		}
		if len(d.Commands) > 0 {
			methods[d.Commands[0].Method]++
		} else {
			methods["none"]++
		}
	}
	t.Logf("decisions by method: %v", methods)
	// The generator must reach every method, or the invariants check little.
	for _, m := range []string{disruption.MethodEmptiness, disruption.MethodExpiration, disruption.MethodDrift,
		disruption.MethodMultiNodeConsolidation, disruption.MethodSingleNodeConsolidation, "none"} {
		if !testing.Short() {
			require.NotZero(t, methods[m], "no random cluster was decided by %s: %v", m, methods)
		}
	}
}

// The random clusters' catalog: two zones, on-demand and spot, one arm64 type.
var (
	invZones = []string{"inv-zone-a", "inv-zone-b"}
	invTypes = []*instancetype.InstanceType{
		invType("c-small", "2", "4Gi", 20, "amd64", 0.085, 0.030),
		invType("m-small", "2", "8Gi", 30, "amd64", 0.100, 0.040),
		invType("m-medium", "4", "16Gi", 60, "amd64", 0.200, 0.080),
		invType("m-large", "8", "32Gi", 110, "amd64", 0.400, 0.160),
		invType("g-large", "8", "32Gi", 110, "arm64", 0.320, 0.120),
		invType("r-large", "8", "64Gi", 110, "amd64", 0.500, 0.200),
	}
)

func invType(name, cpu, memory string, pods int64, arch string, onDemand, spot float64) *instancetype.InstanceType {
	b := testbuild.Type(name, cpu, memory, pods).Arch(arch).Label("inv/family", name[:1])
	for i, z := range invZones {
		// Zone b is a little dearer, so zone matters to prices.
		b = b.Offer(z, "on-demand", onDemand*(1+0.05*float64(i))).Offer(z, "spot", spot*(1+0.05*float64(i)))
	}
	return b.Obj()
}

func invPrice(it *instancetype.InstanceType, zone, capacityType string) float64 {
	for _, o := range it.Offerings {
		if o.Zone == zone && o.CapacityType == capacityType {
			return o.Price
		}
	}
	return 0
}

var invBase = time.Date(2025, 6, 2, 0, 0, 0, 0, time.UTC) // a Monday

// randomCluster builds a small cluster over two NodePools: "general" (every type, maybe
// narrowed so some nodes drift) and "batch" (tainted and labelled), with random budgets,
// consolidateAfter, expireAfter and Now, and random pods: some under PodDisruptionBudgets,
// some do-not-disrupt, spread over zones, apart by hostname, pinned to a zone or an arch.
func randomCluster(rng *rand.Rand) disruption.Input {
	now := invBase.Add(time.Duration(rng.Intn(7*24*60)) * time.Minute)
	pick := func(options ...string) string { return options[rng.Intn(len(options))] }
	chance := func(p float64) bool { return rng.Float64() < p }

	pools := map[string]*testbuild.NodePoolBuilder{
		"general": testbuild.NodePool("general", invTypes...),
		"batch":   testbuild.NodePool("batch", invTypes[1], invTypes[2], invTypes[3]).Taint("dedicated", "batch", corev1.TaintEffectNoSchedule).Label("team", "batch"),
	}
	for _, name := range []string{"batch", "general"} {
		b := pools[name]
		switch rng.Intn(5) {
		case 0: // consolidateAfter: Never
		case 1:
			b.ConsolidateAfter(time.Hour)
		case 2:
			b.ConsolidateAfter(10 * time.Minute)
		default:
			b.ConsolidateAfter(0)
		}
		if chance(0.25) {
			b.ConsolidationPolicy(pick(scheduling.ConsolidationWhenEmpty, "WhenUnderutilized"))
		}
		if chance(0.2) {
			b.ExpireAfter(time.Duration(pick1(rng, 300, 720)) * time.Hour)
		}
		for range rng.Intn(4) {
			nodes := pick("0", "1", "2", "3", "10%", "34%", "50%", "100%")
			var reasons []string
			if chance(0.4) {
				for _, r := range []string{scheduling.ReasonEmpty, scheduling.ReasonUnderutilized, scheduling.ReasonDrifted} {
					if chance(0.5) {
						reasons = append(reasons, r)
					}
				}
			}
			if chance(0.35) {
				b.ScheduledBudget(nodes, fmt.Sprintf("0 %d * * *", rng.Intn(24)), time.Duration(1+rng.Intn(8))*time.Hour, reasons...)
			} else {
				b.Budget(nodes, reasons...)
			}
		}
	}
	switch rng.Intn(10) { // drift: the general NodePool narrowed after its nodes launched
	case 0:
		pools["general"].Requirement("karpenter.sh/capacity-type", corev1.NodeSelectorOpIn, "on-demand")
	case 1:
		pools["general"].Requirement("kubernetes.io/arch", corev1.NodeSelectorOpIn, "amd64")
	case 2:
		pools["general"].Types(invTypes[:4]...)
	}

	in := disruption.Input{Now: now}
	for _, name := range []string{"general", "batch"} {
		in.NodePools = append(in.NodePools, pools[name].Obj())
	}
	in.DaemonSets = []*appsv1.DaemonSet{{
		ObjectMeta: metav1.ObjectMeta{Name: "logging", Namespace: "kube-system"},
		Spec: appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "logging"}},
			Spec:       testbuild.Pod("logging").CPU("50m").Memory("64Mi").TolerateAll().Obj().Spec,
		}},
	}}
	if chance(0.8) {
		pdb := testbuild.PDB("web", map[string]string{"app": "web"})
		switch rng.Intn(4) {
		case 0:
			pdb.MaxUnavailable("1")
		case 1:
			pdb.MinAvailable("50%")
		case 2:
			pdb.MaxUnavailable("0")
		default:
			pdb.MaxUnavailable("34%")
		}
		in.PodDisruptionBudgets = append(in.PodDisruptionBudgets, pdb.Obj())
	}
	if chance(0.2) { // a second budget selecting some web pods too: they cannot be evicted
		in.PodDisruptionBudgets = append(in.PodDisruptionBudgets, testbuild.PDB("web-canary", map[string]string{"track": "canary"}).MaxUnavailable("100%").Obj())
	}
	if chance(0.5) {
		in.PodDisruptionBudgets = append(in.PodDisruptionBudgets, testbuild.PDB("db", map[string]string{"app": "db"}).MaxUnavailable("1").Obj())
	}

	seq := 0
	emptyNodes := chance(0.25)
	nodes := 4 + rng.Intn(9)
	for i := range nodes {
		poolName := "general"
		if chance(0.3) {
			poolName = "batch"
		}
		// Named as the planner names new nodes, so a replacement that reuses a name shows.
		name := fmt.Sprintf("%s-%d", poolName, i+1)
		var it *instancetype.InstanceType
		if poolName == "batch" {
			it = invTypes[1+rng.Intn(3)]
		} else {
			it = invTypes[rng.Intn(len(invTypes))]
		}
		zone := invZones[rng.Intn(len(invZones))]
		ct := "on-demand"
		if chance(0.4) {
			ct = "spot"
		}
		node := testbuild.KarpenterNode(name, poolName, it, zone, ct)
		if poolName == "batch" {
			node.Labels["team"] = "batch"
			if chance(0.95) { // else the node lacks the NodePool's taint: drifted
				node.Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: "batch", Effect: corev1.TaintEffectNoSchedule}}
			}
		}
		n := &disruption.Node{
			Node:         node,
			NodePool:     poolName,
			InstanceType: it.Name,
			Zone:         zone,
			CapacityType: ct,
			Price:        invPrice(it, zone, ct),
			Created:      now.Add(-time.Duration(1+rng.Intn(800)) * time.Hour),
			Initialized:  chance(0.92),
		}
		n.LastPodEvent = now.Add(-time.Duration(rng.Intn(180)) * time.Minute)
		if n.LastPodEvent.Before(n.Created) {
			n.LastPodEvent = n.Created
		}
		switch rng.Intn(20) {
		case 0:
			n.Disrupting = true
		case 1:
			node.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionFalse}}
		case 2:
			node.Annotations = map[string]string{pick(disruption.AnnotationDoNotDisrupt, disruption.AnnotationDoNotConsolidate): "true"}
		case 3: // unmanaged
			delete(node.Labels, "karpenter.sh/nodepool")
			n.NodePool = ""
		case 4: // from a NodePool that is gone
			node.Labels["karpenter.sh/nodepool"] = "retired"
			n.NodePool = "retired"
		case 5:
			node.Spec.Unschedulable = true
		case 6, 7: // the NodeClaim's Consolidatable condition decides over the last pod event
			n.Consolidatable = new(chance(0.5))
		}
		n.Pods = append(n.Pods, testbuild.Pod("logging-"+name).Namespace("kube-system").Label("app", "logging").
			CPU("50m").Memory("64Mi").OwnedByDaemonSet("logging").NodeName(name).Obj())
		if chance(0.2) {
			n.Pods = append(n.Pods, testbuild.Pod("proxy-"+name).Namespace("kube-system").CPU("100m").
				Annotation("kubernetes.io/config.mirror", "x").NodeName(name).Obj())
		}
		// Fill the node to a random share of its cpu.
		alloc := it.Allocatable()
		budget := alloc.Cpu().MilliValue() * int64(5+rng.Intn(85)) / 100
		if emptyNodes && chance(0.2) {
			budget = 0 // an empty node
		}
		hasDB := false
		for used := int64(0); budget-used >= 100; {
			seq++
			cpu := min(int64(100*(1+rng.Intn(15))), budget-used)
			used += cpu
			b := testbuild.Pod(fmt.Sprintf("p-%03d", seq)).CPU(fmt.Sprintf("%dm", cpu)).Memory(fmt.Sprintf("%dMi", 256*(1+rng.Intn(8)))).NodeName(name)
			switch k := rng.Intn(10); {
			case k < 3:
				b.Label("app", "web")
				if chance(0.15) {
					b.Label("track", "canary")
				}
			case k == 3 && poolName == "batch":
				// A group of its own: scheduling counts a spread group's pods on every node,
				// where kube-scheduler (nodeAffinityPolicy Honor) counts only the nodes
				// matching the pod's node selector; one selector per group keeps this test
				// clear of that divergence.
				b.Label("app", "spread-batch").NodeSelector("team", "batch").ZoneSpread(1)
			case k == 3:
				b.Label("app", "spread").ZoneSpread(1)
			case k == 4 && !hasDB:
				hasDB = true
				b.Label("app", "db").AntiAffinity("kubernetes.io/hostname", map[string]string{"app": "db"})
			case k == 5:
				b.Label("app", "zonal").NodeSelector("topology.kubernetes.io/zone", zone)
			case k == 6 && it.Labels["kubernetes.io/arch"] == "arm64":
				b.Label("app", "arm").NodeSelector("kubernetes.io/arch", "arm64")
			default:
				b.Label("app", "api")
			}
			if poolName == "batch" {
				b.Toleration("dedicated", "batch", corev1.TaintEffectNoSchedule)
				if chance(0.5) {
					b.NodeSelector("team", "batch")
				}
			}
			if chance(0.04) {
				b.Annotation(pick(disruption.AnnotationDoNotDisrupt, disruption.AnnotationDoNotEvict), "true")
			}
			if chance(0.2) {
				b.Priority(int32(rng.Intn(1000)))
			}
			p := b.Obj()
			switch rng.Intn(30) {
			case 0:
				p.Status.Phase = corev1.PodSucceeded
				if chance(0.5) {
					p.Annotations = map[string]string{disruption.AnnotationDoNotDisrupt: "true"}
				}
			case 1:
				p.DeletionTimestamp = &metav1.Time{Time: now.Add(-time.Minute)}
				p.Labels = map[string]string{"app": "leaving"} // no budget counts it
				if chance(0.5) {
					p.Annotations = map[string]string{disruption.AnnotationDoNotDisrupt: "true"}
				}
			}
			n.Pods = append(n.Pods, p)
		}
		in.Nodes = append(in.Nodes, n)
	}
	for i := range rng.Intn(3) {
		in.PendingPods = append(in.PendingPods, testbuild.Pod(fmt.Sprintf("pending-%d", i)).Label("app", "batchjob").
			CPU(fmt.Sprintf("%dm", 200*(1+rng.Intn(10)))).Memory("1Gi").Obj())
	}
	return in
}

func pick1(rng *rand.Rand, options ...int) int { return options[rng.Intn(len(options))] }

// invariantViolations checks decisions against the input, with kube-scheduler's helpers and
// Karpenter's documented rules, and returns every broken rule as a sentence.
func invariantViolations(in disruption.Input, d disruption.Decisions) []string {
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }

	nodes := map[string]*disruption.Node{}
	for _, n := range in.Nodes {
		nodes[n.Node.Name] = n
	}
	poolOf := func(n *disruption.Node) string {
		if n.NodePool != "" {
			return n.NodePool
		}
		return n.Node.Labels["karpenter.sh/nodepool"]
	}
	pools := map[string]*scheduling.NodePool{}
	for _, np := range in.NodePools {
		pools[np.Name] = np
	}

	// A replacement's name is its hostname: no other node of the cluster has it.
	named := map[string]bool{}
	for name := range nodes {
		named[name] = true
	}
	for i, c := range d.Commands {
		for _, r := range c.Replacements {
			if named[r.Name] {
				fail("command %d launches %s, which names another node", i, r.Name)
			}
			named[r.Name] = true
		}
	}

	// Candidates are distinct input nodes, acted on by one command each, all by one method.
	removedBy := map[string]int{}
	for i, c := range d.Commands {
		if c.Method != d.Commands[0].Method {
			fail("command %d is %s but command 0 is %s: one method acts per decision", i, c.Method, d.Commands[0].Method)
		}
		if len(c.Candidates) == 0 {
			fail("command %d has no candidates", i)
		}
		for _, cand := range c.Candidates {
			if nodes[cand.Node] == nil {
				fail("command %d removes %s, which is not an input node", i, cand.Node)
				continue
			}
			if j, ok := removedBy[cand.Node]; ok {
				fail("node %s is a candidate of commands %d and %d", cand.Node, j, i)
			}
			removedBy[cand.Node] = i
		}
	}

	// Replacement names are unique and never an input node's.
	replacementOf := map[string]int{}
	for i, c := range d.Commands {
		for _, r := range c.Replacements {
			if nodes[r.Name] != nil {
				fail("replacement %s of command %d has an input node's name", r.Name, i)
			}
			if j, ok := replacementOf[r.Name]; ok {
				fail("replacement %s appears in commands %d and %d", r.Name, j, i)
			}
			replacementOf[r.Name] = i
		}
	}

	// Evictions, moves and their targets.
	movedTo := map[string][]*corev1.Pod{} // target -> pods moved there
	podByKey := map[string]*corev1.Pod{}
	for _, n := range in.Nodes {
		for _, p := range n.Pods {
			podByKey[p.Namespace+"/"+p.Name] = p
		}
	}
	evictedBy := map[string]int{}
	for i, c := range d.Commands {
		var want []string
		for _, cand := range c.Candidates {
			if n := nodes[cand.Node]; n != nil {
				for _, p := range n.Pods {
					if mustMove(p) {
						want = append(want, p.Namespace+"/"+p.Name)
					}
				}
			}
		}
		sort.Strings(want)
		got := append([]string(nil), c.Evictions...)
		sort.Strings(got)
		if !slicesEqual(want, got) {
			fail("command %d evicts %v, but its candidates' reschedulable pods are %v", i, got, want)
		}
		evicted := map[string]bool{}
		for _, k := range c.Evictions {
			evicted[k] = true
			if j, ok := evictedBy[k]; ok {
				fail("pod %s is evicted by commands %d and %d", k, j, i)
			}
			evictedBy[k] = i
		}
		ownReplacements := map[string]scheduling.NodeClaim{}
		for _, r := range c.Replacements {
			ownReplacements[r.Name] = r
		}
		moves := map[string]int{}
		for _, m := range c.Moves {
			moves[m.Pod]++
			if !evicted[m.Pod] {
				fail("command %d moves %s, which it does not evict", i, m.Pod)
				continue
			}
			p := podByKey[m.Pod]
			var target *corev1.Node
			if r, ok := ownReplacements[m.To]; ok {
				target = &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: r.Name, Labels: r.Labels}, Spec: corev1.NodeSpec{Taints: r.Taints},
					Status: corev1.NodeStatus{Allocatable: r.Allocatable}}
			} else if n := nodes[m.To]; n != nil {
				target = n.Node
				if j, ok := removedBy[m.To]; ok {
					fail("command %d moves %s to %s, which command %d removes", i, m.Pod, m.To, j)
				}
				if n.Disrupting {
					fail("command %d moves %s to %s, which is already being disrupted", i, m.Pod, m.To)
				}
				// Expiration is forceful: it may count on a starting node, and says so.
				if !n.Initialized && poolOf(n) != "" && !(c.Method == disruption.MethodExpiration && containsSubstring(c.Notes, "which is not initialized yet")) {
					fail("command %d moves %s to %s, which is not initialized", i, m.Pod, m.To)
				}
				if n.Node.Spec.Unschedulable {
					fail("command %d moves %s to %s, which is cordoned", i, m.Pod, m.To)
				}
			} else {
				fail("command %d moves %s to %s, which is neither an input node nor one of its replacements", i, m.Pod, m.To)
				continue
			}
			if ok, err := nodeaffinity.GetRequiredNodeAffinity(p).Match(target); err != nil || !ok {
				fail("command %d moves %s to %s, whose labels do not match its node selector or required affinity", i, m.Pod, m.To)
			}
			if taint, bad := corev1helpers.FindMatchingUntoleratedTaint(logr.Discard(), target.Spec.Taints, p.Spec.Tolerations, func(t *corev1.Taint) bool {
				return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
			}, false); bad {
				fail("command %d moves %s to %s, whose taint %s it does not tolerate", i, m.Pod, m.To, taint.ToString())
			}
			movedTo[m.To] = append(movedTo[m.To], p)
		}
		for _, k := range c.Evictions {
			switch {
			case moves[k] > 1:
				fail("command %d moves %s %d times", i, k, moves[k])
			case moves[k] == 0 && c.Method != disruption.MethodExpiration:
				fail("command %d evicts %s without a move", i, k)
			case moves[k] == 0 && !containsSubstring(c.Notes, "pod "+k+" is left pending"):
				fail("expiration %d evicts %s without a move or a note that it is left pending", i, k)
			}
		}
	}

	// Targets keep their room and their pods' hostname anti-affinity after the moves.
	for target, moved := range movedTo {
		var staying []*corev1.Pod
		var alloc corev1.ResourceList
		if n := nodes[target]; n != nil {
			alloc = n.Node.Status.Allocatable
			for _, p := range n.Pods {
				if !isFinished(p) {
					staying = append(staying, p)
				}
			}
		} else {
			c := d.Commands[replacementOf[target]]
			for _, r := range c.Replacements {
				if r.Name == target {
					alloc = r.Allocatable
				}
			}
		}
		all := append(append([]*corev1.Pod(nil), staying...), moved...)
		var cpu, mem int64
		for _, p := range all {
			req := resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{})
			cpu += req.Cpu().MilliValue()
			mem += req.Memory().Value()
		}
		if cpu > alloc.Cpu().MilliValue() || mem > alloc.Memory().Value() || int64(len(all)) > alloc.Pods().Value() {
			fail("node %s would run %dm cpu, %dMi memory, %d pods after the moves, beyond its allocatable %v", target, cpu, mem>>20, len(all), alloc)
		}
		db := 0
		for _, p := range all {
			if p.Labels["app"] == "db" {
				db++
			}
		}
		if db > 1 {
			fail("node %s would run %d db pods after the moves, against their hostname anti-affinity", target, db)
		}
	}

	// Zone spread holds after each command as kube-scheduler sees it: a zone that received a
	// spread pod is at most maxSkew above the emptiest zone, over the nodes that match the
	// pod's node affinity (default nodeAffinityPolicy Honor, nodeTaintsPolicy Ignore).
	errs = append(errs, spreadViolations(in, d, nodes)...)

	// Savings and prices.
	for i, c := range d.Commands {
		before, after := 0.0, 0.0
		for _, cand := range c.Candidates {
			if n := nodes[cand.Node]; n != nil {
				before += n.Price
				if math.Abs(cand.Price-n.Price) > 1e-6 {
					fail("command %d lists %s at $%v, its price is $%v", i, cand.Node, cand.Price, n.Price)
				}
			}
		}
		for _, r := range c.Replacements {
			after += r.Price
		}
		if math.Abs(c.Savings-(before-after)) > 1e-5 {
			fail("command %d saves $%v, but its candidates cost $%v and its replacements $%v", i, c.Savings, before, after)
		}
		if c.Method == disruption.MethodMultiNodeConsolidation || c.Method == disruption.MethodSingleNodeConsolidation {
			if !(after < before) || c.Savings <= 0 {
				fail("consolidation %d does not save: candidates $%v, replacements $%v, savings $%v", i, before, after, c.Savings)
			}
			if len(c.Candidates) > 1 && len(c.Replacements) >= len(c.Candidates) {
				fail("consolidation %d replaces %d nodes by %d", i, len(c.Candidates), len(c.Replacements))
			}
		}
		if (c.Action == disruption.ActionReplace) != (len(c.Replacements) > 0) {
			fail("command %d has action %s and %d replacements", i, c.Action, len(c.Replacements))
		}
	}

	// do-not-disrupt and PodDisruptionBudgets only yield to Expiration, and to Drift on a
	// NodePool with a terminationGracePeriod (pods' blocks only); nodes that are not managed,
	// initialized or settled are never candidates.
	pdbs := evalPDBs(in)
	boundedDrift := func(c disruption.Command, n *disruption.Node) bool {
		np := pools[poolOf(n)]
		return c.Method == disruption.MethodDrift && np != nil && np.TerminationGracePeriod != nil
	}
	for i, c := range d.Commands {
		for _, cand := range c.Candidates {
			n := nodes[cand.Node]
			if n == nil {
				continue
			}
			if poolOf(n) == "" || pools[poolOf(n)] == nil || !n.Initialized || n.Disrupting {
				fail("command %d removes %s, which is unmanaged, not initialized or already disrupting", i, cand.Node)
			}
			if c.Method == disruption.MethodExpiration {
				continue
			}
			if why := doNotDisrupt(n); why != "" && (!boundedDrift(c, n) || strings.HasPrefix(why, "the node has")) {
				fail("%s %d removes %s, but %s", c.Method, i, cand.Node, why)
			}
			for _, p := range n.Pods {
				if !mustMove(p) {
					continue
				}
				var matched []*invPDB
				for _, b := range pdbs {
					if b.selects(p) {
						matched = append(matched, b)
					}
				}
				if len(matched) > 1 {
					fail("%s %d evicts %s/%s, which two PodDisruptionBudgets select", c.Method, i, p.Namespace, p.Name)
				}
			}
		}
	}
	for _, b := range pdbs {
		total, most := 0, 0
		for _, c := range d.Commands {
			if c.Method == disruption.MethodExpiration {
				continue
			}
			for _, cand := range c.Candidates {
				if boundedDrift(c, nodes[cand.Node]) {
					continue
				}
				k := 0
				for _, p := range nodes[cand.Node].Pods {
					if mustMove(p) && b.selects(p) {
						k++
					}
				}
				total += k
				most = max(most, k)
			}
		}
		// Each node needs one disruption left when it is taken: all but the last node's pods
		// fit in what the budget allowed.
		if total > 0 && total-most >= b.allowed {
			fail("PodDisruptionBudget %s allows %d disruption(s), but the commands evict %d of its pods (at most %d from one node)", b.name, b.allowed, total, most)
		}
	}

	// Each method acts only on nodes it applies to.
	for i, c := range d.Commands {
		for _, cand := range c.Candidates {
			n := nodes[cand.Node]
			np := pools[poolOf(n)]
			if n == nil || np == nil {
				continue
			}
			switch c.Method {
			case disruption.MethodExpiration:
				exp := np.ExpireAfter
				if n.ExpireAfterSet {
					exp = n.ExpireAfter
				}
				if exp == nil || in.Now.Sub(n.Created) < *exp {
					fail("expiration %d removes %s, created %s, which has not expired", i, cand.Node, n.Created.Format(time.RFC3339))
				}
			case disruption.MethodDrift:
				if why := driftedFrom(n, np); why == "" {
					fail("drift %d removes %s, which still matches NodePool %s", i, cand.Node, np.Name)
				}
			default: // Emptiness and consolidation wait for consolidateAfter
				after := np.Disruption.ConsolidateAfter
				settled := after != nil && in.Now.Sub(n.LastPodEvent) >= *after
				if n.Consolidatable != nil {
					settled = after != nil && *n.Consolidatable
				}
				if !settled {
					fail("%s %d removes %s before consolidateAfter (%v) passed since its last pod event", c.Method, i, cand.Node, after)
				}
				moving := 0
				for _, p := range n.Pods {
					if mustMove(p) {
						moving++
					}
				}
				if c.Method == disruption.MethodEmptiness && moving > 0 {
					fail("emptiness %d removes %s, which runs %d pod(s) that must move", i, cand.Node, moving)
				}
				if c.Method != disruption.MethodEmptiness && np.Disruption.ConsolidationPolicy == scheduling.ConsolidationWhenEmpty {
					fail("%s %d removes %s, whose NodePool consolidates only empty nodes", c.Method, i, cand.Node)
				}
			}
		}
		switch c.Method {
		case disruption.MethodSingleNodeConsolidation:
			if len(d.Commands) != 1 || len(c.Candidates) != 1 || len(c.Replacements) > 1 {
				fail("single-node consolidation: %d command(s), %d candidate(s), %d replacement(s)", len(d.Commands), len(c.Candidates), len(c.Replacements))
			}
		case disruption.MethodMultiNodeConsolidation:
			if len(d.Commands) != 1 || len(c.Candidates) < 2 {
				fail("multi-node consolidation: %d command(s), %d candidate(s)", len(d.Commands), len(c.Candidates))
			}
		}
		// Replacements are real offerings of their NodePool, and consolidation never swaps a
		// node for its own type at no lower price, nor one spot node for another without 15
		// cheaper spot types to launch from.
		for _, r := range c.Replacements {
			np := pools[r.NodePool]
			if np == nil {
				fail("replacement %s comes from unknown NodePool %s", r.Name, r.NodePool)
				continue
			}
			offered := false
			for _, it := range np.InstanceTypes {
				for _, o := range it.Offerings {
					if it.Name == r.InstanceType && o.Zone == r.Zone && o.CapacityType == r.CapacityType && o.Available && math.Abs(o.Price-r.Price) < 1e-9 {
						offered = true
					}
				}
			}
			if !offered {
				fail("replacement %s (%s %s %s at $%v) is not an offering of NodePool %s", r.Name, r.InstanceType, r.Zone, r.CapacityType, r.Price, np.Name)
			}
			if c.Method != disruption.MethodMultiNodeConsolidation && c.Method != disruption.MethodSingleNodeConsolidation {
				continue
			}
			for _, cand := range c.Candidates {
				if cand.InstanceType == r.InstanceType && r.Price >= cand.Price {
					fail("consolidation %d replaces %s by its own type %s at no lower price", i, cand.Node, r.InstanceType)
				}
			}
			if len(c.Candidates) == 1 && c.Candidates[0].CapacityType == "spot" && r.CapacityType == "spot" {
				cheaper := 0
				for _, name := range r.InstanceTypeOptions {
					for _, it := range np.InstanceTypes {
						if it.Name != name {
							continue
						}
						for _, o := range it.Offerings {
							if o.CapacityType == "spot" && o.Available && o.Price < c.Candidates[0].Price {
								cheaper++
								break
							}
						}
					}
				}
				if cheaper < 15 {
					fail("consolidation %d replaces spot node %s by spot with %d cheaper spot options", i, c.Candidates[0].Node, cheaper)
				}
			}
		}
	}

	// NodePool budgets, for every method but Expiration.
	taken := map[string]int{}
	reason := ""
	for _, c := range d.Commands {
		if c.Method == disruption.MethodExpiration {
			continue
		}
		reason = c.Reason
		for _, cand := range c.Candidates {
			taken[poolOf(nodes[cand.Node])]++
		}
	}
	for pool, k := range taken {
		if allowed := allowedDisruptions(in, pools[pool], reason); k > allowed {
			fail("NodePool %s has %d %s candidates, its budgets allow %d at %s", pool, k, reason, allowed, in.Now.Format(time.RFC3339))
		}
	}

	// Every node not acted on is blocked once, with a reason.
	blocked := map[string]int{}
	for _, b := range d.Blocked {
		blocked[b.Node]++
		if b.Reason == "" {
			fail("node %s is blocked without a reason", b.Node)
		}
		if _, ok := removedBy[b.Node]; ok {
			fail("node %s is both removed and blocked", b.Node)
		}
	}
	for name := range nodes {
		if _, ok := removedBy[name]; !ok && blocked[name] != 1 {
			fail("node %s is not acted on and blocked %d times", name, blocked[name])
		}
	}

	// Summary.
	var want disruption.Summary
	before, after := 0.0, 0.0
	for _, n := range in.Nodes {
		if poolOf(n) == "" {
			continue
		}
		want.Nodes++
		before += n.Price
		if _, ok := removedBy[n.Node.Name]; !ok {
			want.NodesAfter++
			after += n.Price
		}
	}
	for _, c := range d.Commands {
		want.NodesAfter += len(c.Replacements)
		for _, r := range c.Replacements {
			after += r.Price
		}
	}
	got := d.Summary
	if got.Nodes != want.Nodes || got.NodesAfter != want.NodesAfter || math.Abs(got.HourlyCostBefore-before) > 1e-5 || math.Abs(got.HourlyCostAfter-after) > 1e-5 {
		fail("summary %+v, want nodes %d, after %d, cost $%v before and $%v after", got, want.Nodes, want.NodesAfter, before, after)
	}
	return errs
}

// spreadViolations replays the commands in order and checks the zone spread of every pod
// they move. It gives up (nil) when a pod the spread counts is on a node already being
// disrupted, which the decider simulates as pending.
func spreadViolations(in disruption.Input, d disruption.Decisions, nodes map[string]*disruption.Node) []string {
	type placed struct {
		node *corev1.Node
		pods []*corev1.Pod
	}
	live := map[string]*placed{}
	for _, n := range in.Nodes {
		pl := &placed{node: n.Node}
		for _, p := range n.Pods {
			if isFinished(p) || p.DeletionTimestamp != nil {
				continue
			}
			if n.Disrupting && len(p.Spec.TopologySpreadConstraints) > 0 {
				return nil
			}
			pl.pods = append(pl.pods, p)
		}
		live[n.Node.Name] = pl
	}
	podByKey := map[string]*corev1.Pod{}
	for _, n := range in.Nodes {
		for _, p := range n.Pods {
			podByKey[p.Namespace+"/"+p.Name] = p
		}
	}
	var errs []string
	for i, c := range d.Commands {
		for _, cand := range c.Candidates {
			delete(live, cand.Node)
		}
		for _, r := range c.Replacements {
			live[r.Name] = &placed{node: &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: r.Name, Labels: r.Labels}, Spec: corev1.NodeSpec{Taints: r.Taints}}}
		}
		var moved []*corev1.Pod
		var targets []string
		for _, m := range c.Moves {
			p := podByKey[m.Pod]
			if pl := live[m.To]; pl != nil {
				pl.pods = append(pl.pods, p)
				moved = append(moved, p)
				targets = append(targets, m.To)
			}
		}
		for j, p := range moved {
			for _, tsc := range p.Spec.TopologySpreadConstraints {
				if tsc.TopologyKey != "topology.kubernetes.io/zone" || tsc.WhenUnsatisfiable != corev1.DoNotSchedule {
					continue
				}
				sel, err := metav1.LabelSelectorAsSelector(tsc.LabelSelector)
				if err != nil {
					panic(err)
				}
				affinity := nodeaffinity.GetRequiredNodeAffinity(p)
				count := map[string]int{} // the domains: zones of nodes matching the pod's affinity
				for _, pl := range live {
					if ok, _ := affinity.Match(pl.node); !ok {
						continue
					}
					zone := pl.node.Labels["topology.kubernetes.io/zone"]
					count[zone] += 0
					for _, q := range pl.pods {
						if q.Namespace == p.Namespace && sel.Matches(labels.Set(q.Labels)) {
							count[zone]++
						}
					}
				}
				least := math.MaxInt
				for _, k := range count {
					least = min(least, k)
				}
				zone := live[targets[j]].node.Labels["topology.kubernetes.io/zone"]
				if count[zone]-least > int(tsc.MaxSkew) {
					errs = append(errs, fmt.Sprintf("command %d moves %s/%s to %s in %s: zones then count %v, skew %d > maxSkew %d",
						i, p.Namespace, p.Name, targets[j], zone, count, count[zone]-least, tsc.MaxSkew))
				}
			}
		}
	}
	return errs
}

// driftedFrom says how a node no longer matches its NodePool: an instance type the NodePool
// no longer offers, labels outside its requirements, a missing template label or taint.
func driftedFrom(n *disruption.Node, np *scheduling.NodePool) string {
	if n.Drifted != "" {
		return "NodeClaim " + n.Drifted
	}
	if a, b := n.ExpireAfter, np.ExpireAfter; n.ExpireAfterSet && !(a == nil && b == nil || a != nil && b != nil && *a == *b) {
		return "expireAfter"
	}
	offered := false
	for _, it := range np.InstanceTypes {
		offered = offered || it.Name == n.InstanceType
	}
	if !offered {
		return "instance type " + n.InstanceType
	}
	var reqs []corev1.NodeSelectorRequirement
	for _, r := range np.Requirements {
		reqs = append(reqs, r.NodeSelectorRequirement)
	}
	if len(reqs) > 0 {
		sel, err := nodeaffinity.NewNodeSelector(&corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: reqs}}})
		if err != nil {
			panic(err)
		}
		if !sel.Match(n.Node) {
			return "requirements"
		}
	}
	for k, v := range np.Labels {
		if n.Node.Labels[k] != v {
			return "label " + k
		}
	}
	for _, t := range np.Taints {
		found := false
		for _, x := range n.Node.Spec.Taints {
			found = found || (x.Key == t.Key && x.Value == t.Value && x.Effect == t.Effect)
		}
		if !found {
			return "taint " + t.Key
		}
	}
	return ""
}

// mustMove reports whether a pod has to be rescheduled when its node goes: not a DaemonSet
// or mirror pod, not finished, not already terminating.
func mustMove(p *corev1.Pod) bool {
	if isFinished(p) || p.DeletionTimestamp != nil {
		return false
	}
	if _, ok := p.Annotations["kubernetes.io/config.mirror"]; ok {
		return false
	}
	for _, o := range p.OwnerReferences {
		if o.Kind == "DaemonSet" || o.Kind == "Node" {
			return false
		}
	}
	return true
}

func isFinished(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

// doNotDisrupt says why Karpenter would not voluntarily disrupt the node: the node's
// annotation, or a running pod's (terminating and finished pods do not count).
func doNotDisrupt(n *disruption.Node) string {
	keys := []string{disruption.AnnotationDoNotDisrupt, disruption.AnnotationDoNotEvict, disruption.AnnotationDoNotConsolidate}
	for _, k := range keys {
		if n.Node.Annotations[k] == "true" {
			return "the node has " + k
		}
	}
	for _, p := range n.Pods {
		if isFinished(p) || p.DeletionTimestamp != nil {
			continue
		}
		for _, k := range keys {
			if p.Annotations[k] == "true" {
				return fmt.Sprintf("pod %s has %s", p.Name, k)
			}
		}
	}
	return ""
}

// invPDB is a PodDisruptionBudget evaluated over the random cluster, whose pods are all
// healthy: allowed = healthy - desired.
type invPDB struct {
	name     string
	selector labels.Selector
	allowed  int
}

func (b *invPDB) selects(p *corev1.Pod) bool {
	return p.Namespace == "default" && b.selector.Matches(labels.Set(p.Labels))
}

func evalPDBs(in disruption.Input) []*invPDB {
	var out []*invPDB
	for _, pdb := range in.PodDisruptionBudgets {
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil {
			panic(err)
		}
		b := &invPDB{name: pdb.Name, selector: sel}
		pods := 0
		for _, n := range in.Nodes {
			for _, p := range n.Pods {
				if !isFinished(p) && b.selects(p) {
					pods++
				}
			}
		}
		b.allowed = pods - desiredHealthy(pdb.Spec, pods)
		out = append(out, b)
	}
	return out
}

func desiredHealthy(spec policyv1.PodDisruptionBudgetSpec, pods int) int {
	scaled := func(v *intstr.IntOrString) int {
		if v.Type == intstr.Int {
			return v.IntValue()
		}
		pct, _ := strconv.Atoi(strings.TrimSuffix(v.StrVal, "%"))
		return (pct*pods + 99) / 100
	}
	if spec.MinAvailable != nil {
		return scaled(spec.MinAvailable)
	}
	return max(0, pods-scaled(spec.MaxUnavailable))
}

// allowedDisruptions is what a NodePool's budgets allow for a reason at Now, from
// Karpenter's documentation: the least of the active budgets listing the reason (or no
// reason), percentages of the NodePool's initialized nodes rounded up, minus its nodes that
// are being deleted or NotReady; 10% without budgets, no limit when none is active.
func allowedDisruptions(in disruption.Input, np *scheduling.NodePool, reason string) int {
	total, busy := 0, 0
	for _, n := range in.Nodes {
		pool := n.NodePool
		if pool == "" {
			pool = n.Node.Labels["karpenter.sh/nodepool"]
		}
		if pool != np.Name || !n.Initialized {
			continue
		}
		total++
		ready := true
		for _, c := range n.Node.Status.Conditions {
			if c.Type == corev1.NodeReady && c.Status != corev1.ConditionTrue {
				ready = false
			}
		}
		if n.Disrupting || !ready {
			busy++
		}
	}
	budgets := np.Disruption.Budgets
	if len(budgets) == 0 {
		budgets = []scheduling.Budget{{Nodes: "10%"}}
	}
	allowed := math.MaxInt
	for _, b := range budgets {
		if len(b.Reasons) > 0 && !containsString(b.Reasons, reason) {
			continue
		}
		if b.Schedule != "" && !dailyWindowOpen(b.Schedule, *b.Duration, in.Now) {
			continue
		}
		var k int
		if pct, ok := strings.CutSuffix(b.Nodes, "%"); ok {
			p, _ := strconv.Atoi(pct)
			k = (p*total + 99) / 100
		} else {
			k, _ = strconv.Atoi(b.Nodes)
		}
		allowed = min(allowed, k)
	}
	if allowed == math.MaxInt {
		return allowed
	}
	return max(0, allowed-busy)
}

// dailyWindowOpen reads the "0 H * * *" schedules of the random clusters: the window opened
// at the last H:00 UTC at or before now and lasts d.
func dailyWindowOpen(schedule string, d time.Duration, now time.Time) bool {
	var hour int
	if _, err := fmt.Sscanf(schedule, "0 %d * * *", &hour); err != nil {
		panic(schedule)
	}
	opened := time.Date(now.Year(), now.Month(), now.Day(), hour, 0, 0, 0, time.UTC)
	if opened.After(now) {
		opened = opened.AddDate(0, 0, -1)
	}
	return now.Sub(opened) < d
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func containsSubstring(list []string, s string) bool {
	for _, x := range list {
		if strings.Contains(x, s) {
			return true
		}
	}
	return false
}

func slicesEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
