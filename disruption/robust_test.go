package disruption_test

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

// TestOddNodesDoNotPanic feeds Decide nodes a snapshot may well hold: no status at all, only
// capacity, zero pods allowed. Decide answers for each of them, never panics.
func TestOddNodesDoNotPanic(t *testing.T) {
	tests := []struct {
		name  string
		strip func(*corev1.Node)
	}{
		{"neither capacity nor allocatable", func(n *corev1.Node) { n.Status = corev1.NodeStatus{} }},
		{"capacity only", func(n *corev1.Node) { n.Status.Allocatable = nil }},
		{"allocatable without pods", func(n *corev1.Node) { delete(n.Status.Allocatable, corev1.ResourcePods) }},
		{"empty allocatable and capacity maps", func(n *corev1.Node) {
			n.Status.Allocatable, n.Status.Capacity = corev1.ResourceList{}, corev1.ResourceList{}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			odd := running("odd", "default", medium, "on-demand", pod("web-0", "500m"))
			tt.strip(odd.Node)
			decide(t, disruption.Input{
				NodePools: []*scheduling.NodePool{onDemand("default").Obj()},
				Nodes: []*disruption.Node{
					odd,
					running("other", "default", medium, "on-demand", pod("api-0", "1")),
				},
			})
		})
	}
}

// FuzzDecide decides a random cluster (randomCluster's seed) made odd by a list of
// mutations, two bytes each (node, what): nodes without status, unknown instance types,
// capacity types and zones, pods bigger than any node, pending pods nothing can run. Decide
// must not panic and must answer for every node and every pod of its candidates, the same
// way twice. `go test` runs the seeds; `go test -fuzz FuzzDecide ./disruption` explores.
func FuzzDecide(f *testing.F) {
	f.Add(int64(1), []byte{})
	f.Add(int64(2), []byte{0, 0})
	f.Add(int64(3), []byte{0, 0, 1, 1, 2, 2, 3, 3})
	f.Add(int64(4), []byte{0, 4, 1, 5, 2, 6, 3, 7, 4, 8})
	f.Add(int64(5), []byte{0, 9, 1, 10, 2, 11, 3, 12, 0, 13})
	f.Add(int64(6), []byte{0, 2, 1, 2, 2, 2, 3, 2, 4, 2, 5, 2})
	f.Fuzz(func(t *testing.T, seed int64, mutations []byte) {
		build := func() disruption.Input {
			in := randomCluster(rand.New(rand.NewSource(seed)))
			for i := 0; i+1 < len(mutations) && i < 64; i += 2 {
				mutate(&in, i/2, int(mutations[i]), mutations[i+1])
			}
			return in
		}
		in := build()
		d, err := disruption.Decide(in)
		if err != nil {
			t.Fatalf("the input is valid, yet Decide refused it: %v", err)
		}
		if errs := accountingViolations(in, d); len(errs) > 0 {
			t.Fatalf("%s", strings.Join(errs, "\n"))
		}
		again, err := disruption.Decide(build())
		require.NoError(t, err)
		first, _ := json.Marshal(d)
		second, _ := json.Marshal(again)
		if string(first) != string(second) {
			t.Fatalf("the same input decides differently:\n%s\n%s", first, second)
		}
	})
}

// mutate makes node i%len(nodes) (or the input around it) odd in one of the ways a snapshot
// can be; seq numbers the mutation, so the pods it adds have names of their own.
func mutate(in *disruption.Input, seq, i int, what byte) {
	if len(in.Nodes) == 0 {
		return
	}
	n := in.Nodes[i%len(in.Nodes)]
	name := fmt.Sprintf("%s-%d", n.Node.Name, seq) // of the pods added
	node := n.Node.Name
	switch what % 17 {
	case 0: // neither capacity nor allocatable
		n.Node.Status.Capacity, n.Node.Status.Allocatable = nil, nil
	case 1: // capacity only
		n.Node.Status.Allocatable = nil
	case 2: // an instance type no catalog knows, not priced
		n.InstanceType, n.Price = "x9.huge", 0
		n.Node.Labels["node.kubernetes.io/instance-type"] = "x9.huge"
	case 3: // a capacity type no offering has
		n.CapacityType, n.Price = "weird", 0
		n.Node.Labels["karpenter.sh/capacity-type"] = "weird"
	case 4: // no zone
		n.Zone = ""
		delete(n.Node.Labels, "topology.kubernetes.io/zone")
	case 5: // price to look up
		n.Price = 0
	case 6: // a pod no node has room for
		n.Pods = append(n.Pods, testbuild.Pod("huge-"+name).CPU("1000").Memory("4Ti").NodeName(node).Obj())
	case 7: // a pod without requests or containers
		p := testbuild.Pod("bare-" + name).NodeName(node).Obj()
		p.Spec.Containers = nil
		n.Pods = append(n.Pods, p)
	case 8: // no creation time, no pod event
		n.Created, n.LastPodEvent = time.Time{}, time.Time{}
		n.Node.CreationTimestamp = metav1.Time{}
	case 9: // negative allocatable
		n.Node.Status.Allocatable = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("-1"), corev1.ResourcePods: resource.MustParse("-3")}
	case 10: // a pending pod nothing can run
		in.PendingPods = append(in.PendingPods, testbuild.Pod("stuck-"+name).NodeSelector("no-such-label", "x").Obj())
	case 11: // a pending pod that fits only on this node
		in.PendingPods = append(in.PendingPods, testbuild.Pod("pinned-"+name).CPU("100m").
			NodeSelector("kubernetes.io/hostname", node).TolerateAll().Obj())
	case 12: // a pod listed on the node whose spec names another node
		n.Pods = append(n.Pods, testbuild.Pod("astray-"+name).CPU("100m").NodeName("elsewhere").Obj())
	case 13: // uninitialized and disrupting toggled
		n.Initialized, n.Disrupting = !n.Initialized, !n.Disrupting
	case 14: // the NodeClaim says Drifted
		n.Drifted = "NodeClassDrift"
	case 15: // the NodeClaim's expireAfter is Never
		n.ExpireAfter, n.ExpireAfterSet = nil, true
	case 16: // the NodeClaim's expireAfter is short
		hour := time.Hour
		n.ExpireAfter, n.ExpireAfterSet = &hour, true
	}
}

// accountingViolations checks what holds for any input: every node is a candidate of one
// command or blocked with a reason; each command evicts exactly the reschedulable pods of its
// candidates (and those earlier commands moved there), each moved once or, under Expiration,
// noted as left pending.
func accountingViolations(in disruption.Input, d disruption.Decisions) []string {
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	nodes := map[string]*disruption.Node{}
	for _, n := range in.Nodes {
		nodes[n.Node.Name] = n
	}
	seen := map[string]int{}
	movedOnto := map[string][]string{}
	for i, c := range d.Commands {
		want := map[string]bool{}
		for _, cand := range c.Candidates {
			seen[cand.Node]++
			n := nodes[cand.Node]
			if n == nil {
				fail("command %d removes %s, which is not an input node", i, cand.Node)
				continue
			}
			for _, p := range n.Pods {
				if mustMove(p) {
					want[p.Namespace+"/"+p.Name] = true
				}
			}
			for _, k := range movedOnto[cand.Node] {
				want[k] = true
			}
		}
		moved := map[string]int{}
		for _, m := range c.Moves {
			moved[m.Pod]++
			movedOnto[m.To] = append(movedOnto[m.To], m.Pod)
		}
		for _, k := range c.Evictions {
			if !want[k] {
				fail("command %d evicts %s, which is not a reschedulable pod of its candidates", i, k)
			}
			delete(want, k)
			switch {
			case moved[k] > 1:
				fail("command %d moves %s %d times", i, k, moved[k])
			case moved[k] == 0 && !(c.Method == disruption.MethodExpiration && containsSubstring(c.Notes, "pod "+k+" is left pending")):
				fail("command %d evicts %s without a move or a note", i, k)
			}
		}
		for k := range want {
			fail("command %d does not account for pod %s of its candidates", i, k)
		}
	}
	for _, b := range d.Blocked {
		seen[b.Node]++
		if b.Reason == "" {
			fail("node %s is blocked without a reason", b.Node)
		}
	}
	for name := range nodes {
		if seen[name] != 1 {
			fail("node %s appears %d times among candidates and blocked nodes", name, seen[name])
		}
	}
	return errs
}
