package instancetype_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/instancetype"
)

func overlayTypes() []*instancetype.InstanceType {
	mk := func(name, family string, od, spot float64) *instancetype.InstanceType {
		return &instancetype.InstanceType{
			Name:     name,
			Labels:   map[string]string{"karpenter.k8s.aws/instance-family": family, "kubernetes.io/arch": "amd64"},
			Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("8Gi"), corev1.ResourcePods: resource.MustParse("29")},
			Offerings: []instancetype.Offering{
				{Zone: "us-west-2a", CapacityType: "on-demand", Price: od, Available: true},
				{Zone: "us-west-2a", CapacityType: "spot", Price: spot, Available: true},
			},
		}
	}
	return []*instancetype.InstanceType{mk("m5.large", "m5", 0.096, 0.04), mk("c5.large", "c5", 0.085, 0.035)}
}

func price(it *instancetype.InstanceType, capacityType string) float64 {
	for _, o := range it.Offerings {
		if o.CapacityType == capacityType {
			return o.Price
		}
	}
	return -1
}

func familyIn(families ...string) []corev1.NodeSelectorRequirement {
	return []corev1.NodeSelectorRequirement{{Key: "karpenter.k8s.aws/instance-family", Operator: corev1.NodeSelectorOpIn, Values: families}}
}

func TestAdjustPrice(t *testing.T) {
	for _, tc := range []struct {
		change string
		want   float64
	}{{"", 0.1}, {"0.25", 0.25}, {"+10%", 0.11}, {"-50%", 0.05}, {"+0.5", 0.6}, {"-0.5", 0}, {"-100%", 0}} {
		assert.InDelta(t, tc.want, instancetype.AdjustPrice(0.1, tc.change), 1e-9, tc.change)
	}
}

func TestOverlayValidate(t *testing.T) {
	for _, tc := range []struct {
		o    instancetype.Overlay
		want string
	}{
		{instancetype.Overlay{Price: "1", PriceAdjustment: "+1"}, "cannot both be set"},
		{instancetype.Overlay{Price: "-1"}, "spec.price"},
		{instancetype.Overlay{PriceAdjustment: "10%"}, "spec.priceAdjustment"},
		{instancetype.Overlay{PriceAdjustment: "-150%"}, "spec.priceAdjustment"},
		{instancetype.Overlay{Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}, "spec.capacity.cpu"},
	} {
		err := tc.o.Validate()
		require.Error(t, err)
		assert.Contains(t, err.Error(), tc.want)
	}
	require.NoError(t, (&instancetype.Overlay{PriceAdjustment: "-12.5%", Capacity: corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("1")}}).Validate())
}

// The overlays of Karpenter's documentation: the heavier price adjustment wins, capacities of
// different overlays merge; requirements select types and offerings.
func TestApplyOverlays(t *testing.T) {
	types := overlayTypes()
	overlays := []*instancetype.Overlay{
		{Name: "overlay-a", Weight: 5, Requirements: familyIn("m5"), PriceAdjustment: "-10%", Capacity: corev1.ResourceList{"hugepages-2Mi": resource.MustParse("50Mi")}},
		{Name: "overlay-b", Weight: 10, Requirements: familyIn("m5"), PriceAdjustment: "-20%", Capacity: corev1.ResourceList{"custom-device/gpu": resource.MustParse("1")}},
		{Name: "spot-c5", Requirements: append(familyIn("c5"), corev1.NodeSelectorRequirement{Key: "karpenter.sh/capacity-type", Operator: corev1.NodeSelectorOpIn, Values: []string{"spot"}}), Price: "0.01"},
	}
	out, conflicts := instancetype.ApplyOverlays(overlays, []instancetype.OverlayTarget{{InstanceTypes: types}})
	require.Empty(t, conflicts)
	m5, c5 := out[0][0], out[0][1]
	assert.InDelta(t, 0.0768, price(m5, "on-demand"), 1e-9)
	assert.InDelta(t, 0.032, price(m5, "spot"), 1e-9)
	hugepages := m5.Capacity["hugepages-2Mi"]
	assert.Equal(t, "50Mi", hugepages.String())
	gpu := m5.Allocatable()["custom-device/gpu"]
	assert.Equal(t, "1", gpu.String())
	assert.InDelta(t, 0.085, price(c5, "on-demand"), 1e-9, "only c5's spot offerings are selected")
	assert.InDelta(t, 0.01, price(c5, "spot"), 1e-9)
	assert.InDelta(t, 0.096, price(types[0], "on-demand"), 1e-9, "the input is not modified")
	assert.NotContains(t, types[0].Capacity, corev1.ResourceName("hugepages-2Mi"))
}

// At equal weights, overlays that set the same price conflict: the first in Karpenter's order
// (reverse alphabetical) is kept, the other left out everywhere.
func TestOverlayConflict(t *testing.T) {
	overlays := []*instancetype.Overlay{
		{Name: "cheap-m5", Requirements: familyIn("m5"), PriceAdjustment: "-50%"},
		{Name: "savings-plan", PriceAdjustment: "-10%"},
	}
	out, conflicts := instancetype.ApplyOverlays(overlays, []instancetype.OverlayTarget{{InstanceTypes: overlayTypes()}})
	assert.Equal(t, []string{"cheap-m5"}, conflicts)
	assert.InDelta(t, 0.0864, price(out[0][0], "on-demand"), 1e-9)

	overlays[0].Weight = 10
	out, conflicts = instancetype.ApplyOverlays(overlays, []instancetype.OverlayTarget{{InstanceTypes: overlayTypes()}})
	assert.Empty(t, conflicts)
	assert.InDelta(t, 0.048, price(out[0][0], "on-demand"), 1e-9, "the heavier overlay wins m5")
	assert.InDelta(t, 0.0765, price(out[0][1], "on-demand"), 1e-9, "the other still applies to c5")
}

// Requirements on the NodePool's name or template labels select per NodePool.
func TestOverlayPerNodePool(t *testing.T) {
	overlays := []*instancetype.Overlay{{Name: "team-a", Requirements: []corev1.NodeSelectorRequirement{{Key: "karpenter.sh/nodepool", Operator: corev1.NodeSelectorOpIn, Values: []string{"a"}}}, Price: "0"}}
	targets := []instancetype.OverlayTarget{
		{Labels: map[string]string{"karpenter.sh/nodepool": "a"}, InstanceTypes: overlayTypes()},
		{Labels: map[string]string{"karpenter.sh/nodepool": "b"}, InstanceTypes: overlayTypes()},
	}
	out, _ := instancetype.ApplyOverlays(overlays, targets)
	assert.Zero(t, price(out[0][0], "on-demand"))
	assert.InDelta(t, 0.096, price(out[1][0], "on-demand"), 1e-9)
}
