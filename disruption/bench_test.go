package disruption_test

import (
	"fmt"
	"hash/fnv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/instancetype/aws"
	"github.com/nodeplan/nodeplan/instancetype/synthetic"
	"github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

// syntheticCluster builds a running cluster on the synthetic catalog: nodes of a dozen
// instance types in three zones, on-demand and spot, each running a logging DaemonSet pod
// and pods of 100 Deployments (every tenth spread over zones, every fifth under a PDB),
// filled to between a fifth and four fifths of their cpu.
func syntheticCluster(nodes, podsPerNode int) disruption.Input {
	return shape{nodes: nodes, podsPerNode: podsPerNode, fillLo: 20, fillHi: 80, spreadEvery: 10}.build()
}

// shape describes a synthetic cluster: nodes filled to between fillLo and fillHi percent of
// their cpu, and every spreadEvery-th Deployment spread over zones.
type shape struct {
	nodes, podsPerNode, fillLo, fillHi, spreadEvery int
}

func (s shape) build() disruption.Input {
	catalog := synthetic.Default()
	byName := map[string]*instancetype.InstanceType{}
	for _, it := range catalog.InstanceTypes {
		byName[it.Name] = it
	}
	shapes := []string{"m6-4x", "m6-8x", "m7g-8x", "c6-8x", "c7g-16x", "r6-4x", "m5-16x", "c6g-4x", "r7g-8x", "m8-12x", "c5-8x", "m6g-16x"}
	zones := []string{"test-zone-a", "test-zone-b", "test-zone-c"}
	np := testbuild.NodePool("default", catalog.InstanceTypes...).ConsolidateAfter(5 * time.Minute).Obj()
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "logging", Namespace: "kube-system"},
		Spec: appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "logging"}},
			Spec:       testbuild.Pod("logging").CPU("100m").Memory("128Mi").Obj().Spec,
		}},
	}
	in := disruption.Input{
		NodePools:  []*scheduling.NodePool{np},
		DaemonSets: []*appsv1.DaemonSet{ds},
		Now:        now,
	}
	for d := 0; d < 100; d += 5 {
		in.PodDisruptionBudgets = append(in.PodDisruptionBudgets,
			testbuild.PDB(fmt.Sprintf("dep-%02d", d), map[string]string{"app": fmt.Sprintf("dep-%02d", d)}).MaxUnavailable("10%").Obj())
	}
	for i := 0; i < s.nodes; i++ {
		name := fmt.Sprintf("node-%04d", i)
		it := byName[shapes[i%len(shapes)]]
		zone := zones[i%len(zones)]
		ct := "on-demand"
		if i%4 == 0 {
			ct = "spot"
		}
		alloc := it.Allocatable()
		cpuMilli := alloc.Cpu().MilliValue()
		fill := s.fillLo + int(hash(name)%uint64(s.fillHi-s.fillLo+1))
		budget := cpuMilli * int64(fill) / 100
		var pods []*corev1.Pod
		pods = append(pods, testbuild.Pod("logging-"+name).Namespace("kube-system").Label("app", "logging").
			CPU("100m").Memory("128Mi").OwnedByDaemonSet("logging").Obj())
		for j := 0; j < s.podsPerNode; j++ {
			dep := int(hash(fmt.Sprintf("%s/%d", name, j)) % 100)
			cpu := max(budget/int64(s.podsPerNode), 50)
			b := testbuild.Pod(fmt.Sprintf("dep-%02d-%s-%d", dep, name, j)).Label("app", fmt.Sprintf("dep-%02d", dep)).
				CPU(fmt.Sprintf("%dm", cpu)).Memory(fmt.Sprintf("%dMi", cpu*2))
			if dep%s.spreadEvery == 0 {
				b = b.Spread("topology.kubernetes.io/zone", 2, corev1.ScheduleAnyway)
			}
			pods = append(pods, b.Obj())
		}
		n := &disruption.Node{
			Node:         testbuild.KarpenterNode(name, "default", it, zone, ct),
			Pods:         pods,
			NodePool:     "default",
			InstanceType: it.Name,
			Zone:         zone,
			CapacityType: ct,
			Created:      now.Add(-time.Duration(1+hash(name)%200) * time.Hour),
			LastPodEvent: now.Add(-time.Hour),
			Initialized:  true,
		}
		for _, p := range pods {
			p.Spec.NodeName = name
		}
		in.Nodes = append(in.Nodes, n)
	}
	return in
}

func hash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// BenchmarkDecide1000Nodes decides on 1,000 nodes running 10,000 pods (plus a DaemonSet pod
// each); multi-node consolidation removes the 100 nodes the default 10% budget allows.
func BenchmarkDecide1000Nodes(b *testing.B) {
	benchmarkDecide(b, syntheticCluster(1000, 10))
}

// BenchmarkDecide1000NodesAllSpread has every pod spread over zones, so the solver must see
// every running pod in every simulation.
func BenchmarkDecide1000NodesAllSpread(b *testing.B) {
	benchmarkDecide(b, shape{nodes: 1000, podsPerNode: 10, fillLo: 20, fillHi: 80, spreadEvery: 1}.build())
}

// BenchmarkDecide1000NodesTight has nodes 85-97% full: consolidation needs new nodes.
func BenchmarkDecide1000NodesTight(b *testing.B) {
	benchmarkDecide(b, shape{nodes: 1000, podsPerNode: 10, fillLo: 85, fillHi: 97, spreadEvery: 10}.build())
}

func benchmarkDecide(b *testing.B, in disruption.Input) {
	b.ReportAllocs()
	b.ResetTimer()
	var d disruption.Decisions
	for i := 0; i < b.N; i++ {
		var err error
		if d, err = disruption.Decide(in); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	removed, pods := 0, 0
	for _, c := range d.Commands {
		removed += len(c.Candidates)
	}
	for _, n := range in.Nodes {
		pods += len(n.Pods)
	}
	b.ReportMetric(float64(len(in.Nodes)), "nodes")
	b.ReportMetric(float64(pods), "pods")
	b.ReportMetric(float64(removed), "removed")
	unevaluated := 0
	for _, bl := range d.Blocked {
		if strings.Contains(bl.Reason, "not evaluated in this decision:") {
			unevaluated++
		}
	}
	b.ReportMetric(float64(unevaluated), "unevaluated")
	b.ReportMetric(d.Summary.HourlyCostBefore-d.Summary.HourlyCostAfter, "$/h-saved")
}

// fleet describes a cluster of on-demand m5.xlarge nodes (AWS us-west-2) whose NodePool
// offers only the m5 family on demand, each running a logging DaemonSet pod and podsPerNode
// pods of 100 Deployments (every fifth under a PDB) taking between fillLo and fillHi percent
// of the node's cpu and memPct percent of its memory; spread gives every pod a zone spread
// (maxSkew 1, DoNotSchedule).
type fleet struct {
	nodes, podsPerNode, fillLo, fillHi, memPct int
	spread                                     bool
	// only, when set, is the one instance type the NodePool offers.
	only string
}

// packedFleet is about 84% of cpu and 93% of memory requested: no node's pods fit on the
// others, and no cheaper m5 node holds them, so consolidation is impossible and every node
// must be evaluated or ruled out.
func packedFleet(nodes int, spread bool) fleet {
	return fleet{nodes: nodes, podsPerNode: 10, fillLo: 84, fillHi: 84, memPct: 93, spread: spread}
}

// looseFleet is between 20% and 60% used: many nodes can go.
func looseFleet(nodes int, spread bool) fleet {
	return fleet{nodes: nodes, podsPerNode: 10, fillLo: 20, fillHi: 60, memPct: 0, spread: spread}
}

func (f fleet) build() disruption.Input {
	catalog, err := aws.Catalog("us-west-2")
	if err != nil {
		panic(err)
	}
	var xlarge *instancetype.InstanceType
	for _, it := range catalog.InstanceTypes {
		if it.Name == "m5.xlarge" {
			xlarge = it
		}
	}
	zones := []string{"us-west-2a", "us-west-2b", "us-west-2c"}
	np := testbuild.NodePool("default", catalog.InstanceTypes...).ConsolidateAfter(5*time.Minute).
		Requirement("karpenter.sh/capacity-type", corev1.NodeSelectorOpIn, "on-demand").
		Requirement("karpenter.k8s.aws/instance-family", corev1.NodeSelectorOpIn, "m5").
		Requirement("topology.kubernetes.io/zone", corev1.NodeSelectorOpIn, zones...).Obj()
	if f.only != "" {
		np.Requirements = append(np.Requirements, scheduling.NodeSelectorRequirementWithMinValues{NodeSelectorRequirement: corev1.NodeSelectorRequirement{
			Key: "node.kubernetes.io/instance-type", Operator: corev1.NodeSelectorOpIn, Values: []string{f.only}}})
	}
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "logging", Namespace: "kube-system"},
		Spec: appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "logging"}},
			Spec:       testbuild.Pod("logging").CPU("100m").Memory("128Mi").Obj().Spec,
		}},
	}
	in := disruption.Input{NodePools: []*scheduling.NodePool{np}, DaemonSets: []*appsv1.DaemonSet{ds}, Now: now}
	for d := 0; d < 100; d += 5 {
		in.PodDisruptionBudgets = append(in.PodDisruptionBudgets,
			testbuild.PDB(fmt.Sprintf("dep-%02d", d), map[string]string{"app": fmt.Sprintf("dep-%02d", d)}).MaxUnavailable("10%").Obj())
	}
	alloc := xlarge.Allocatable()
	cpuAlloc, memAlloc := alloc.Cpu().MilliValue(), alloc.Memory().Value()>>20
	for i := 0; i < f.nodes; i++ {
		name := fmt.Sprintf("node-%04d", i)
		zone := zones[i%len(zones)]
		fill := f.fillLo + int(hash(name)%uint64(f.fillHi-f.fillLo+1))
		cpu := cpuAlloc * int64(fill) / 100 / int64(f.podsPerNode)
		mem := cpu * 2
		if f.memPct > 0 {
			mem = (memAlloc*int64(f.memPct)/100 - 128) / int64(f.podsPerNode)
		}
		pods := []*corev1.Pod{testbuild.Pod("logging-"+name).Namespace("kube-system").Label("app", "logging").
			CPU("100m").Memory("128Mi").OwnedByDaemonSet("logging").NodeName(name).Obj()}
		for j := 0; j < f.podsPerNode; j++ {
			dep := int(hash(fmt.Sprintf("%s/%d", name, j)) % 100)
			b := testbuild.Pod(fmt.Sprintf("dep-%02d-%s-%d", dep, name, j)).Label("app", fmt.Sprintf("dep-%02d", dep)).
				CPU(fmt.Sprintf("%dm", cpu)).Memory(fmt.Sprintf("%dMi", mem)).NodeName(name)
			if f.spread {
				b = b.ZoneSpread(1)
			}
			pods = append(pods, b.Obj())
		}
		in.Nodes = append(in.Nodes, &disruption.Node{
			Node:         testbuild.KarpenterNode(name, "default", xlarge, zone, "on-demand"),
			Pods:         pods,
			NodePool:     "default",
			InstanceType: xlarge.Name,
			Zone:         zone,
			CapacityType: "on-demand",
			Created:      now.Add(-time.Duration(1+hash(name)%200) * time.Hour),
			LastPodEvent: now.Add(-time.Hour),
			Initialized:  true,
		})
	}
	return in
}

// BenchmarkDecide1000NodesPacked is packedFleet on 1,000 nodes (11,000 pods).
func BenchmarkDecide1000NodesPacked(b *testing.B) {
	benchmarkDecide(b, packedFleet(1000, false).build())
}

// BenchmarkDecide5000NodesPacked is packedFleet on 5,000 nodes (55,000 pods).
func BenchmarkDecide5000NodesPacked(b *testing.B) {
	benchmarkDecide(b, packedFleet(5000, false).build())
}

// BenchmarkDecide5000NodesPackedSpread is packedFleet with every pod spread over zones.
func BenchmarkDecide5000NodesPackedSpread(b *testing.B) {
	benchmarkDecide(b, packedFleet(5000, true).build())
}

// BenchmarkDecide5000NodesLoose is looseFleet on 5,000 nodes.
func BenchmarkDecide5000NodesLoose(b *testing.B) { benchmarkDecide(b, looseFleet(5000, false).build()) }

// BenchmarkDecide5000NodesLooseSpread is looseFleet with every pod spread over zones.
func BenchmarkDecide5000NodesLooseSpread(b *testing.B) {
	benchmarkDecide(b, looseFleet(5000, true).build())
}

// BenchmarkDecide5000NodesStuck is packedFleet whose NodePool offers only m5.xlarge: no
// consolidation exists, so multi-node consolidation searches in vain and every single-node
// candidate is simulated or ruled out by a bound.
func BenchmarkDecide5000NodesStuck(b *testing.B) {
	f := packedFleet(5000, false)
	f.only = "m5.xlarge"
	benchmarkDecide(b, f.build())
}

// BenchmarkDecide1000NodesDrifted has every node drifted (the NodePool now offers only
// arm64 types): Drift replaces the 100 nodes the 10% budget allows, one command each, every
// command simulated on the cluster the earlier ones left.
func BenchmarkDecide1000NodesDrifted(b *testing.B) {
	in := syntheticCluster(1000, 10)
	np := *in.NodePools[0]
	np.Requirements = append(np.Requirements, scheduling.NodeSelectorRequirementWithMinValues{NodeSelectorRequirement: corev1.NodeSelectorRequirement{
		Key: "kubernetes.io/arch", Operator: corev1.NodeSelectorOpIn, Values: []string{"arm64"}}})
	in.NodePools = []*scheduling.NodePool{&np}
	benchmarkDecide(b, in)
}

// BenchmarkDecideSlowlyChanging decides ten times on a packed fleet of 100 nodes (nothing
// consolidates, so every candidate is simulated or ruled out), as a replay does every 10 s:
// every other decision the cluster is unchanged and only the time moves on, and in between
// one pod leaves a node. "memo" gives every decision the same Pools and Memo, "pools" the
// Pools alone, "fresh" neither.
func BenchmarkDecideSlowlyChanging(b *testing.B) {
	first := packedFleet(100, false).build()
	inputs := []disruption.Input{first}
	for k := 1; k < 10; k++ {
		in := inputs[k-1]
		in.Now = in.Now.Add(10 * time.Second)
		if k%2 == 0 {
			in.Nodes = append([]*disruption.Node(nil), in.Nodes...)
			i := (k * 37) % len(in.Nodes)
			n := *in.Nodes[i]
			n.Pods = append(append([]*corev1.Pod(nil), n.Pods[:1]...), n.Pods[2:]...)
			in.Nodes[i] = &n
		}
		inputs = append(inputs, in)
	}
	pools, err := disruption.PreparePools(first)
	if err != nil {
		b.Fatal(err)
	}
	for _, mode := range []string{"memo", "pools", "fresh"} {
		b.Run(mode, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				memo := &disruption.Memo{}
				for _, in := range inputs {
					switch mode {
					case "memo":
						in.Pools, in.Memo = pools, memo
					case "pools":
						in.Pools = pools
					}
					if _, err := disruption.Decide(in); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(len(inputs)), "decisions")
		})
	}
}
