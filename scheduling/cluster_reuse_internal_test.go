package scheduling

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/instancetype"
)

// TestPrepareReusingTakesTheConversions checks that PrepareReusing takes the earlier cluster's
// conversion of a node given as the same value, converts a new value, and converts everything
// when the dimensions differ (no Pools).
func TestPrepareReusingTakesTheConversions(t *testing.T) {
	it := &instancetype.InstanceType{Name: "m", Labels: map[string]string{}, Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourcePods: resource.MustParse("20")},
		Offerings: []instancetype.Offering{{Zone: "z", CapacityType: "spot", Price: 0.1, Available: true}}}
	node := func(name string) *ExistingNode {
		alloc := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourcePods: resource.MustParse("20")}
		return &ExistingNode{Node: &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.NodeStatus{Allocatable: alloc}}, Initialized: true}
	}
	kept, old := node("a"), node("b")
	in := Input{NodePools: []*NodePool{{Name: "np", InstanceTypes: []*instancetype.InstanceType{it}}}, ExistingNodes: []*ExistingNode{kept, old}}
	pools, err := PreparePools(in)
	require.NoError(t, err)
	in.Pools = pools
	prev, err := Prepare(in)
	require.NoError(t, err)
	replaced := *old
	next := in
	next.ExistingNodes = []*ExistingNode{kept, &replaced}
	c, err := PrepareReusing(next, prev)
	require.NoError(t, err)
	require.Same(t, prev.prep.existing[kept], c.prep.existing[kept], "the same value keeps its conversion")
	require.NotSame(t, prev.prep.existing[old], c.prep.existing[&replaced], "a new value is converted")
	require.Equal(t, prev.prep.existing[old].allocatable, c.prep.existing[&replaced].allocatable)
	require.Same(t, &prev.prep.existing[old].allocatable[0], &c.prep.existing[&replaced].allocatable[0],
		"with its node object's labels and quantities as converted before")

	next.Pools = nil
	c, err = PrepareReusing(next, prev)
	require.NoError(t, err)
	require.NotSame(t, prev.prep.existing[kept], c.prep.existing[kept], "other dimensions: converted again")
	require.NotSame(t, &prev.prep.existing[kept].allocatable[0], &c.prep.existing[kept].allocatable[0], "under them")
}

// TestNodeStaticsDropWhatIsGone prepares a cluster again and again from the last, each time
// with node objects it never had: the memo of what node objects convert to keeps a few
// preparations' worth, not every node it saw.
func TestNodeStaticsDropWhatIsGone(t *testing.T) {
	it := &instancetype.InstanceType{Name: "m", Labels: map[string]string{}, Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourcePods: resource.MustParse("20")},
		Offerings: []instancetype.Offering{{Zone: "z", CapacityType: "spot", Price: 0.1, Available: true}}}
	in := Input{NodePools: []*NodePool{{Name: "np", InstanceTypes: []*instancetype.InstanceType{it}}}}
	pools, err := PreparePools(in)
	require.NoError(t, err)
	in.Pools = pools
	var prev *Cluster
	for round := range 100 {
		in.ExistingNodes = nil
		for _, name := range []string{"a", "b", "c"} {
			alloc := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourcePods: resource.MustParse("20")}
			in.ExistingNodes = append(in.ExistingNodes, &ExistingNode{Node: &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.NodeStatus{Allocatable: alloc}}, Initialized: true})
		}
		c, err := PrepareReusing(in, prev)
		require.NoError(t, err)
		for _, en := range in.ExistingNodes {
			require.Contains(t, c.prep.nodes.statics, en.Node, "round %d", round)
		}
		require.LessOrEqual(t, len(c.prep.nodes.statics), 2*3+64+3, "round %d", round)
		prev = c
	}
}
