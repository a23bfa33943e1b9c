package scheduling

import (
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/instancetype"
)

// TestFitsWithoutCollecting expects Pools to fit an input without collecting its resources
// exactly when they fit the resources collected: same resources, one more (on a pod, a pod's
// overhead, init container, limits or pod-level requests, a node, a DaemonSet), one fewer,
// "nodes" (which is no dimension), other NodePool or DaemonSet objects. Running pods' resources
// are not collected. Nodes an earlier preparation converted are not read again.
func TestFitsWithoutCollecting(t *testing.T) {
	list := func(names ...corev1.ResourceName) corev1.ResourceList {
		l := corev1.ResourceList{}
		for _, n := range names {
			l[n] = resource.MustParse("1")
		}
		return l
	}
	pod := func(name string, requests ...corev1.ResourceName) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: list(requests...)}}}}}
	}
	node := func(name string, allocatable ...corev1.ResourceName) *ExistingNode {
		return &ExistingNode{Node: &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.NodeStatus{Allocatable: list(allocatable...)}}, Initialized: true}
	}
	it := &instancetype.InstanceType{Name: "m", Labels: map[string]string{}, Capacity: list(corev1.ResourceCPU, corev1.ResourcePods, "example.com/fpga"),
		Offerings: []instancetype.Offering{{Zone: "z", CapacityType: "spot", Price: 0.1, Available: true}}}
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "logs", Namespace: "default"}}
	ds.Spec.Template.Spec = pod("logs", corev1.ResourceCPU).Spec
	base := Input{
		NodePools:     []*NodePool{{Name: "np", InstanceTypes: []*instancetype.InstanceType{it}, Limits: list(corev1.ResourceCPU)}},
		DaemonSets:    []*appsv1.DaemonSet{ds},
		Pods:          []*corev1.Pod{pod("web", corev1.ResourceCPU, "example.com/license")},
		ExistingNodes: []*ExistingNode{node("a", corev1.ResourceCPU, "example.com/license")},
	}
	pools, err := PreparePools(base)
	require.NoError(t, err)
	with := func(change func(in *Input)) Input {
		in := base
		in.Pods = append([]*corev1.Pod(nil), base.Pods...)
		in.ExistingNodes = append([]*ExistingNode(nil), base.ExistingNodes...)
		in.Pools = pools
		change(&in)
		return in
	}
	overhead := pod("overhead", corev1.ResourceCPU)
	overhead.Spec.Overhead = list("example.com/sandbox")
	initContainer := pod("init", corev1.ResourceCPU)
	initContainer.Spec.InitContainers = []corev1.Container{{Name: "i", Resources: corev1.ResourceRequirements{Requests: list("example.com/init")}}}
	limits := pod("limits", corev1.ResourceCPU)
	limits.Spec.Containers[0].Resources.Limits = list("example.com/limit")
	podLevel := pod("pod-level", corev1.ResourceCPU)
	podLevel.Spec.Resources = &corev1.ResourceRequirements{Requests: list("example.com/pod-level")}
	nodes := pod("nodes", corev1.ResourceCPU, "example.com/license", "nodes")
	otherDS := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "metrics", Namespace: "default"}}
	otherDS.Spec.Template.Spec = pod("metrics", "example.com/daemon").Spec
	cases := map[string]struct {
		in   Input
		fits bool
	}{
		"the same resources":             {with(func(*Input) {}), true},
		"other pods, the same resources": {with(func(in *Input) { in.Pods = []*corev1.Pod{pod("api", "example.com/license")} }), true},
		"a pod asks for nodes":           {with(func(in *Input) { in.Pods = append(in.Pods, nodes) }), true},
		"a resource only a running pod asks for": {with(func(in *Input) {
			running := node("b", corev1.ResourceCPU)
			running.Pods = []*corev1.Pod{pod("licensed", "example.com/license")}
			in.Pods, in.ExistingNodes = nil, []*ExistingNode{running}
		}), false},
		"a resource fewer":              {with(func(in *Input) { in.Pods, in.ExistingNodes = nil, nil }), false},
		"a new resource on a pod":       {with(func(in *Input) { in.Pods = append(in.Pods, pod("gpu", "nvidia.com/gpu")) }), false},
		"a new overhead":                {with(func(in *Input) { in.Pods = append(in.Pods, overhead) }), false},
		"a new init container resource": {with(func(in *Input) { in.Pods = append(in.Pods, initContainer) }), false},
		"a new limit":                   {with(func(in *Input) { in.Pods = append(in.Pods, limits) }), false},
		"a new pod-level request":       {with(func(in *Input) { in.Pods = append(in.Pods, podLevel) }), false},
		"a new resource on a node":      {with(func(in *Input) { in.ExistingNodes = append(in.ExistingNodes, node("b", "example.com/node")) }), false},
		"other DaemonSets":              {with(func(in *Input) { in.DaemonSets = []*appsv1.DaemonSet{ds, otherDS} }), false},
		"no Pools":                      {with(func(in *Input) { in.Pools = nil }), false},
	}
	// A preparation of the base input, whose node conversion later ones reuse.
	prev, err := prepareReusing(with(func(*Input) {}), nil)
	require.NoError(t, err)
	require.Same(t, pools.set.Dims, prev.dims)
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, c.fits, c.in.Pools.fits(c.in, collectDims(c.in)), "what collecting says")
			require.Equal(t, c.fits, c.in.Pools.fitsWithoutCollecting(c.in, nil))
			require.Equal(t, c.fits, c.in.Pools.fitsWithoutCollecting(c.in, prev), "reusing the base's node")
		})
	}
	// Only the reused node names example.com/license: unread, it leaves the dimension unnamed,
	// and preparing collects the dimensions, which are the Pools' all the same.
	nodeOnly := with(func(in *Input) { in.Pods = nil })
	require.True(t, nodeOnly.Pools.fitsWithoutCollecting(nodeOnly, nil))
	require.False(t, nodeOnly.Pools.fitsWithoutCollecting(nodeOnly, prev))
	again, err := prepareReusing(nodeOnly, prev)
	require.NoError(t, err)
	require.Same(t, pools.set.Dims, again.dims)
	require.Same(t, prev.existing[base.ExistingNodes[0]], again.existing[base.ExistingNodes[0]], "the node's conversion is reused")
}
