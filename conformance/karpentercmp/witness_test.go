package karpentercmp

import (
	"cmp"
	"fmt"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/conformance/check"
	"github.com/nodeplan/nodeplan/conformance/workload"
	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/scheduling"
)

// TestDiverseBoundIsClose packs Karpenter's diverse workload by hand (witnessPlan) and proves
// the packing valid with kube-scheduler's plugins. A valid plan costs at least the optimum, so
// it checks the lower bound on a real-sized input (bound ≤ witness, which the exhaustive
// TestLowerBoundIsTrue cannot reach) and shows how close the bound is (witness ≤ 1.10 × bound):
// what separates the solver's plan from the bound beyond that is the plan's, not the bound's,
// and the plan must stay within 1.15 × the bound.
func TestDiverseBoundIsClose(t *testing.T) {
	for _, n := range []int{1000, 5000} {
		if testing.Short() && n > 1000 {
			continue
		}
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			pods := newGenerator(1).diverse(n)
			_, plan, err := runNodeplan(pods, scheduling.Options{})
			if err != nil {
				t.Fatal(err)
			}
			in := scheduling.Input{Pods: pods, NodePools: []*scheduling.NodePool{{Name: "default", InstanceTypes: workload.FakeCatalog(400)}}}
			witness := witnessPlan(pods, workload.FakeCatalog(400))
			res, err := check.Plan(in, witness)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range res.Failures {
				t.Error(f)
			}
			bound, cost := plan.Summary.LowerBound, witness.Summary.HourlyCost
			t.Logf("plan $%.2f/h on %d nodes, witness $%.2f/h on %d nodes, bound $%.2f/h: plan/bound %.3f, witness/bound %.3f",
				plan.Summary.HourlyCost, plan.Summary.NewNodes, cost, witness.Summary.NewNodes, bound, plan.Summary.HourlyCost/bound, cost/bound)
			if bound > cost+1e-6 {
				t.Errorf("the bound $%.2f/h exceeds the cost of a valid plan, $%.2f/h", bound, cost)
			}
			if cost > 1.10*bound {
				t.Errorf("a valid plan costs $%.2f/h, %.3f × the bound $%.2f/h: the bound is loose here", cost, cost/bound, bound)
			}
			if got := plan.Summary.HourlyCost; got > 1.15*bound {
				t.Errorf("the plan costs $%.2f/h, %.3f × the bound $%.2f/h (a valid packing costs $%.2f/h)", got, got/bound, bound, cost)
			}
		})
	}
}

// witnessPod is a pod of the diverse workload with what the hand packing needs to know.
type witnessPod struct {
	name     string
	cpu, mem int64  // milli-cpu, bytes
	rule     string // "", "zonal", "hostname", "affinity" or "anti"
	label    string // its my-label value ("" for none)
	selects  string // the my-label value its hostname spread selects
	affinity string // its my-affininity value
}

// witnessNode is a node of the hand packing.
type witnessNode struct {
	zone     int
	cpu, mem int64 // requested
	room     int64 // milli-cpu the node is sized for, before its overhead
	pods     []*witnessPod
	labelled map[string]int  // my-label value → pods carrying it
	spread   map[string]bool // my-label values a hostname-spread pod here selects
}

// admits reports whether p can join within cpu and mem without breaking a hostname spread:
// kube-scheduler counts, for a spreading pod on a node, the other pods there matching its
// selector (plus itself if it matches) against a minimum of 0 (some node has none), so a node
// holding a pod that spreads over value v holds at most one v pod in all.
func (n *witnessNode) admits(p *witnessPod, cpu, mem int64) bool {
	if n.cpu+p.cpu > cpu || n.mem+p.mem > mem {
		return false
	}
	if p.label != "" && n.spread[p.label] && n.labelled[p.label] >= 1 {
		return false
	}
	if p.rule == "hostname" {
		c := n.labelled[p.selects]
		if p.label == p.selects {
			c++
		}
		return c <= 1
	}
	return true
}

func (n *witnessNode) add(p *witnessPod) {
	n.cpu += p.cpu
	n.mem += p.mem
	n.pods = append(n.pods, p)
	if p.label != "" {
		n.labelled[p.label]++
	}
	if p.rule == "hostname" {
		n.spread[p.selects] = true
	}
}

// witnessPlan packs Karpenter's diverse workload (makeDiversePods) on its fake catalog:
//   - zones first: each zone-affinity group whole into the least loaded zone; pods with a
//     my-label value into the zone with fewest of that value (zonal spreads then see counts
//     within one of each other); anti-affinity pods round robin;
//   - a node per anti-affinity pod (they all repel each other), the zone's nodes sized
//     together to hold the zone's requests (whole cpus of the catalog, 100m overhead each);
//   - the other pods of the zone, largest first, onto the node with the least cpu left that
//     admits them; a new node when none does;
//   - each node then on the cheapest type that holds it.
func witnessPlan(pods []*corev1.Pod, types []*instancetype.InstanceType) scheduling.Plan {
	zones := workload.Zones
	var all []*witnessPod
	for _, p := range pods {
		req := p.Spec.Containers[0].Resources.Requests
		w := &witnessPod{name: p.Namespace + "/" + p.Name, cpu: req.Cpu().MilliValue(), mem: req.Memory().Value(), label: p.Labels["my-label"]}
		switch {
		case len(p.Spec.TopologySpreadConstraints) > 0 && p.Spec.TopologySpreadConstraints[0].TopologyKey == corev1.LabelHostname:
			w.rule, w.selects = "hostname", p.Spec.TopologySpreadConstraints[0].LabelSelector.MatchLabels["my-label"]
		case len(p.Spec.TopologySpreadConstraints) > 0:
			w.rule = "zonal"
		case p.Spec.Affinity != nil && p.Spec.Affinity.PodAffinity != nil:
			w.rule, w.affinity = "affinity", p.Labels["my-affininity"]
		case p.Spec.Affinity != nil && p.Spec.Affinity.PodAntiAffinity != nil:
			w.rule = "anti"
		}
		all = append(all, w)
	}
	zoneOf := map[*witnessPod]int{}
	load := make([]int64, len(zones))
	least := func() int { return slices.Index(load, slices.Min(load)) }
	place := func(p *witnessPod, z int) { zoneOf[p], load[z] = z, load[z]+p.cpu }

	groups := map[string][]*witnessPod{}
	for _, p := range all {
		if p.rule == "affinity" {
			groups[p.affinity] = append(groups[p.affinity], p)
		}
	}
	for _, v := range slices.Sorted(func(yield func(string) bool) {
		for v := range groups {
			if !yield(v) {
				return
			}
		}
	}) {
		z := least()
		for _, p := range groups[v] {
			place(p, z)
		}
	}
	counts := map[string][]int{}
	for _, p := range all {
		if p.label == "" || p.rule == "affinity" || p.rule == "anti" {
			continue
		}
		c := counts[p.label]
		if c == nil {
			c = make([]int, len(zones))
			counts[p.label] = c
		}
		z := 0
		for i := range zones {
			if c[i] < c[z] || (c[i] == c[z] && load[i] < load[z]) {
				z = i
			}
		}
		c[z]++
		place(p, z)
	}
	newNode := func(z int) *witnessNode {
		return &witnessNode{zone: z, labelled: map[string]int{}, spread: map[string]bool{}}
	}
	nodes := make([][]*witnessNode, len(zones))
	for i, p := range slices.DeleteFunc(slices.Clone(all), func(p *witnessPod) bool { return p.rule != "anti" }) {
		z := i % len(zones)
		place(p, z)
		n := newNode(z)
		n.add(p)
		nodes[z] = append(nodes[z], n)
	}

	for z := range zones {
		// Whole cpus per node so that the zone's nodes hold its requests plus their overhead.
		count := int64(len(nodes[z]))
		total := load[z] + 100*count
		base := total / count / 1000
		bigger := (total - 1000*base*count + 999) / 1000
		for i, n := range nodes[z] {
			n.room = 1000 * base
			if int64(i) < bigger {
				n.room += 1000
			}
		}
		var rest []*witnessPod
		for _, p := range all {
			if p.rule != "anti" && zoneOf[p] == z {
				rest = append(rest, p)
			}
		}
		slices.SortStableFunc(rest, func(a, b *witnessPod) int { return cmp.Or(cmp.Compare(b.cpu, a.cpu), cmp.Compare(b.mem, a.mem)) })
		for _, p := range rest {
			var best *witnessNode
			for _, n := range nodes[z] {
				if n.admits(p, n.room-100, 2*(n.room/1000)<<30-10<<20) && (best == nil || n.room-n.cpu < best.room-best.cpu) {
					best = n
				}
			}
			if best == nil {
				best = newNode(z) // the overflow: as large as the catalog goes, sized down below
				best.room = 1000 * int64(len(types))
				nodes[z] = append(nodes[z], best)
			}
			best.add(p)
		}
	}

	plan := scheduling.Plan{TopologyDomains: map[string][]string{corev1.LabelTopologyZone: zones}}
	for z, zoneNodes := range nodes {
		for _, n := range zoneNodes {
			i := slices.IndexFunc(types, func(t *instancetype.InstanceType) bool {
				a := t.Allocatable()
				return a.Cpu().MilliValue() >= n.cpu && a.Memory().Value() >= n.mem && a.Pods().Value() >= int64(len(n.pods))
			})
			t := types[i] // the largest type holds any node
			nc := scheduling.NodeClaim{
				Name: fmt.Sprintf("default-%d", len(plan.NodeClaims)+1), NodePool: "default", InstanceType: t.Name,
				Zone: zones[z], CapacityType: "on-demand", Price: t.Offerings[0].Price,
				Capacity: t.Capacity, Allocatable: t.Allocatable(), Labels: map[string]string{},
			}
			for k, v := range t.Labels {
				nc.Labels[k] = v
			}
			nc.Labels[corev1.LabelHostname] = nc.Name
			nc.Labels[corev1.LabelTopologyZone] = nc.Zone
			nc.Labels[corev1.LabelInstanceTypeStable] = nc.InstanceType
			nc.Labels["karpenter.sh/capacity-type"] = nc.CapacityType
			nc.Labels["karpenter.sh/nodepool"] = nc.NodePool
			for _, p := range n.pods {
				nc.Pods = append(nc.Pods, p.name)
			}
			plan.NodeClaims = append(plan.NodeClaims, nc)
			plan.Summary.HourlyCost += nc.Price
			plan.Summary.Placed += len(nc.Pods)
		}
	}
	plan.Summary.Pods = len(pods)
	plan.Summary.NewNodes = len(plan.NodeClaims)
	return plan
}
