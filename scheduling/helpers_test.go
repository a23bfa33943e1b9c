package scheduling_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/nodeplan/nodeplan/instancetype"
	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

// The unit-test catalog: amd64 types whose price doubles with size, each sold on-demand and
// spot in us-west-2a and (a cent dearer) us-west-2b, plus an arm64 and a GPU type. Spot in
// us-west-2a is always the cheapest offering, so a plain pod lands there.
func c2() *instancetype.InstanceType {
	return offered(tb.Type("c2", "2", "4Gi", 10), 0.10, 0.04)
}

func c4() *instancetype.InstanceType {
	return offered(tb.Type("c4", "4", "8Gi", 20), 0.20, 0.08)
}

func c8() *instancetype.InstanceType {
	return offered(tb.Type("c8", "8", "16Gi", 40), 0.40, 0.16)
}

// a4 is arm64 and cheaper than c4.
func a4() *instancetype.InstanceType {
	return offered(tb.Type("a4", "4", "8Gi", 20).Arch("arm64"), 0.16, 0.06)
}

// g4 has one nvidia.com/gpu.
func g4() *instancetype.InstanceType {
	return offered(tb.Type("g4", "4", "16Gi", 20).Capacity("nvidia.com/gpu", "1"), 0.50, 0.20)
}

func offered(b *tb.TypeBuilder, onDemand, spot float64) *instancetype.InstanceType {
	return b.Offer("us-west-2a", "spot", spot).Offer("us-west-2a", "on-demand", onDemand).
		Offer("us-west-2b", "spot", spot+0.01).Offer("us-west-2b", "on-demand", onDemand+0.01).Obj()
}

// defaultPool is the NodePool a scenario gets when it names none.
func defaultPool() *scheduling.NodePool { return tb.NodePool("default", c2(), c4(), c8()).Obj() }

// pods flattens pods and replica lists into one list.
func pods(items ...any) []*corev1.Pod {
	var out []*corev1.Pod
	for _, it := range items {
		switch v := it.(type) {
		case *corev1.Pod:
			out = append(out, v)
		case []*corev1.Pod:
			out = append(out, v...)
		case *tb.PodBuilder:
			out = append(out, v.Obj())
		default:
			panic(fmt.Sprintf("pods: unexpected %T", it))
		}
	}
	return out
}

// pools lists NodePools; pools() is an empty list, not the default.
func pools(nps ...*scheduling.NodePool) []*scheduling.NodePool {
	return append([]*scheduling.NodePool{}, nps...)
}

func nodes(ens ...*scheduling.ExistingNode) []*scheduling.ExistingNode { return ens }

// webPod is a replica of app web asking for cpu.
func webPod(name, cpu string) *corev1.Pod { return tb.Pod(name).Label("app", "web").CPU(cpu).Obj() }

func daemons(pods ...*corev1.Pod) []*appsv1.DaemonSet {
	out := make([]*appsv1.DaemonSet, len(pods))
	for i, p := range pods {
		out[i] = tb.DaemonSet(p)
	}
	return out
}

// render writes a plan as one line per node and per unschedulable pod, the way a person would
// summarise it; pods of namespace default are written without it:
//
//	default-1 c2 us-west-2a spot: web-0 web-1
//	existing n1: web-2
//	unschedulable big: Resources
func render(p scheduling.Plan) []string {
	var out []string
	for _, nc := range p.NodeClaims {
		out = append(out, fmt.Sprintf("%s %s %s %s: %s", nc.Name, nc.InstanceType, nc.Zone, nc.CapacityType, short(nc.Pods...)))
	}
	for _, e := range p.ExistingNodes {
		out = append(out, fmt.Sprintf("existing %s: %s", e.Name, short(e.Pods...)))
	}
	for _, u := range p.Unschedulable {
		out = append(out, fmt.Sprintf("unschedulable %s: %s", short(u.Pod), u.Constraint))
	}
	return out
}

func short(keys ...string) string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = strings.TrimPrefix(k, "default/")
	}
	return strings.Join(out, " ")
}

// scenario is one row of a table test: an input and the plan it must give.
type scenario struct {
	name     string
	pods     []*corev1.Pod
	pools    []*scheduling.NodePool // defaultPool() when nil
	existing []*scheduling.ExistingNode
	daemons  []*appsv1.DaemonSet
	claims   []*corev1.PersistentVolumeClaim
	classes  []*storagev1.StorageClass
	opts     scheduling.Options
	// want is the rendered plan (see render).
	want []string
	// reasons holds, per pod (as rendered), text its unschedulable reason must contain.
	reasons map[string]string
	// check looks at anything else.
	check func(t *testing.T, p scheduling.Plan)
}

func (sc scenario) input() scheduling.Input {
	in := scheduling.Input{Pods: sc.pods, NodePools: sc.pools, ExistingNodes: sc.existing, DaemonSets: sc.daemons, Options: sc.opts,
		PersistentVolumeClaims: sc.claims, StorageClasses: sc.classes}
	if in.NodePools == nil {
		in.NodePools = pools(defaultPool())
	}
	return in
}

func run(t *testing.T, rows []scenario) {
	t.Helper()
	for _, sc := range rows {
		t.Run(sc.name, func(t *testing.T) {
			in := sc.input()
			plan, err := scheduling.Solve(in)
			require.NoError(t, err)
			require.Equal(t, sc.want, render(plan), "plan:\n%s", strings.Join(render(plan), "\n"))
			for pod, want := range sc.reasons {
				u, found := unschedulable(plan, pod)
				require.True(t, found, "pod %s is not unschedulable", pod)
				require.Contains(t, u.Reason, want)
			}
			require.Empty(t, violations(in, plan), "invariants")
			if sc.check != nil {
				sc.check(t, plan)
			}
		})
	}
}

func unschedulable(p scheduling.Plan, pod string) (scheduling.Unschedulable, bool) {
	for _, u := range p.Unschedulable {
		if short(u.Pod) == pod {
			return u, true
		}
	}
	return scheduling.Unschedulable{}, false
}

func nodeClaim(t *testing.T, p scheduling.Plan, name string) scheduling.NodeClaim {
	t.Helper()
	for _, nc := range p.NodeClaims {
		if nc.Name == name {
			return nc
		}
	}
	require.Failf(t, "no such node claim", "%s in %v", name, render(p))
	return scheduling.NodeClaim{}
}
