package scheduling

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/instancetype"
)

// Concurrent solves rarely race visibly on a memo (each is filled once, and the race
// detector sees the goroutines synchronise elsewhere), so this checks directly that a clone
// owns every memo solves write and shares what they only read.
func TestCloneOwnsTheMemos(t *testing.T) {
	it := &instancetype.InstanceType{Name: "m", Labels: map[string]string{}, Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourcePods: resource.MustParse("20")},
		Offerings: []instancetype.Offering{{Zone: "z", CapacityType: "spot", Price: 0.1, Available: true}}}
	c, err := Prepare(Input{NodePools: []*NodePool{{Name: "a", InstanceTypes: []*instancetype.InstanceType{it}}, {Name: "b", InstanceTypes: []*instancetype.InstanceType{it}}}})
	require.NoError(t, err)
	_, _, err = c.narrow([]corev1.NodeSelectorRequirement{{Key: "karpenter.sh/capacity-type", Operator: corev1.NodeSelectorOpIn, Values: []string{"spot"}}})
	require.NoError(t, err)
	clone := c.Clone()
	same := func(a, b any) bool { return reflect.ValueOf(a).Pointer() == reflect.ValueOf(b).Pointer() }
	check := func(orig, cp *prepared) {
		require.NotSame(t, orig, cp)
		require.Same(t, orig.pods, cp.pods, "the pod memo (conversions and running pods' requests, locked) is shared")
		require.True(t, same(orig.existing, cp.existing), "the existing nodes' conversions are shared")
		require.Same(t, orig.dims, cp.dims)
		require.Len(t, cp.pools, len(orig.pools))
		for i := range orig.pools {
			require.NotSame(t, orig.pools[i], cp.pools[i])
			require.False(t, same(orig.pools[i].compatible, cp.pools[i].compatible), "pool %s's compatible types", orig.pools[i].NodePool.Name)
			require.Equal(t, orig.pools[i].Types, cp.pools[i].Types, "the instance-type options are shared")
		}
	}
	check(c.prep, clone.prep)
	require.Len(t, clone.narrowed, 1)
	for key, prep := range c.narrowed {
		check(prep, clone.narrowed[key])
	}
	// The clone's memo of narrowed NodePools is its own map too.
	clone.narrowed["other"] = clone.prep
	require.Len(t, c.narrowed, 1)
}
