package instancetype_test

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/instancetype/aws"
	"github.com/nodeplan/nodeplan/instancetype/synthetic"
	"github.com/nodeplan/nodeplan/internal/resources"
	"github.com/nodeplan/nodeplan/requirements"
)

// AllocatableRoom is a shortcut for dims.Vector(it.Allocatable()): it must give the same
// milli-units for every type of the real catalogs and for the corner cases of quantity
// arithmetic (overheads in several lists, fractions of a milli-unit, overheads larger than
// the capacity, resources outside the dimensions).
func TestAllocatableRoomIsAllocatable(t *testing.T) {
	awsCatalog, err := aws.Catalog("us-west-2")
	if err != nil {
		t.Fatal(err)
	}
	types := append(append([]*instancetype.InstanceType(nil), awsCatalog.InstanceTypes...), synthetic.Default().InstanceTypes...)
	q := resource.MustParse
	types = append(types,
		&instancetype.InstanceType{
			Name:     "three-overheads",
			Capacity: corev1.ResourceList{corev1.ResourceCPU: q("4"), corev1.ResourceMemory: q("16Gi"), corev1.ResourcePods: q("110")},
			Overhead: instancetype.Overhead{
				KubeReserved:      corev1.ResourceList{corev1.ResourceCPU: q("100m"), corev1.ResourceMemory: q("500Mi")},
				SystemReserved:    corev1.ResourceList{corev1.ResourceCPU: q("0.05"), corev1.ResourceMemory: q("1G")},
				EvictionThreshold: corev1.ResourceList{corev1.ResourceMemory: q("100Mi")},
			},
		},
		&instancetype.InstanceType{
			Name:     "fractions",
			Capacity: corev1.ResourceList{corev1.ResourceCPU: q("1.0005"), corev1.ResourceMemory: q("1000.5"), "example.com/gpu": q("2")},
			Overhead: instancetype.Overhead{
				KubeReserved:   corev1.ResourceList{corev1.ResourceCPU: q("0.0001"), corev1.ResourceMemory: q("0.0004")},
				SystemReserved: corev1.ResourceList{corev1.ResourceCPU: q("0.0003"), corev1.ResourceMemory: q("1e-9")},
			},
		},
		&instancetype.InstanceType{
			Name:     "overhead-above-capacity",
			Capacity: corev1.ResourceList{corev1.ResourceCPU: q("1"), corev1.ResourceMemory: q("1Gi"), corev1.ResourceEphemeralStorage: q("0")},
			Overhead: instancetype.Overhead{
				KubeReserved:      corev1.ResourceList{corev1.ResourceCPU: q("2"), corev1.ResourceEphemeralStorage: q("1Gi")},
				EvictionThreshold: corev1.ResourceList{corev1.ResourceMemory: q("1Gi")},
			},
		},
		&instancetype.InstanceType{
			Name:     "huge",
			Capacity: corev1.ResourceList{corev1.ResourceMemory: q("9E"), corev1.ResourcePods: q("8E")},
			Overhead: instancetype.Overhead{KubeReserved: corev1.ResourceList{corev1.ResourceMemory: q("1Ei"), corev1.ResourcePods: q("-1E")}},
		},
	)
	for _, dims := range []*resources.Dims{
		resources.NewDims(),
		resources.NewDims(corev1.ResourceList{"example.com/gpu": q("1"), "nvidia.com/gpu": q("1")}),
	} {
		for _, it := range types {
			got, want := make(resources.Vector, dims.Len()), dims.Vector(it.Allocatable())
			got[0] = 1 // overwritten
			it.AllocatableRoom(got, dims)
			if !slices.Equal(got, want) {
				t.Errorf("%s over %d dimensions: AllocatableRoom = %v, dims.Vector(Allocatable()) = %v", it.Name, dims.Len(), got, want)
			}
		}
	}
}

// LaunchOfferings is what a NodePool may launch a type into: available offerings its zones and
// capacity types allow, reserved ones only when it asks for reserved capacity, cheapest first
// with ties in the catalog's order.
func TestLaunchOfferings(t *testing.T) {
	it := &instancetype.InstanceType{Name: "m5.large", Offerings: []instancetype.Offering{
		{Zone: "us-west-2b", CapacityType: requirements.CapacityTypeOnDemand, Price: 0.096, Available: true},
		{Zone: "us-west-2a", CapacityType: requirements.CapacityTypeOnDemand, Price: 0.096, Available: true},
		{Zone: "us-west-2a", CapacityType: requirements.CapacityTypeSpot, Price: 0.04, Available: true},
		{Zone: "us-west-2c", CapacityType: requirements.CapacityTypeSpot, Price: 0.03, Available: false},
		{Zone: "us-west-2a", CapacityType: instancetype.CapacityTypeReserved, Price: 0.01, Available: true, ReservationID: "cr-2"},
		{Zone: "us-west-2a", CapacityType: instancetype.CapacityTypeReserved, Price: 0.01, Available: true, ReservationID: "cr-1"},
	}}
	in := func(key string, values ...string) requirements.Requirements {
		return requirements.NewRequirements(requirements.New(key, corev1.NodeSelectorOpIn, values...))
	}
	offering := func(zone, capacityType, reservation string) string {
		return zone + "/" + capacityType + "/" + reservation
	}
	tests := []struct {
		name string
		reqs requirements.Requirements
		want []string
	}{
		{"no requirements: no reservation, cheapest first, equal prices by zone", requirements.Requirements{}, []string{
			offering("us-west-2a", "spot", ""), offering("us-west-2a", "on-demand", ""), offering("us-west-2b", "on-demand", ""),
		}},
		{"asking for reserved capacity: reservations in the catalog's order", in(requirements.LabelCapacityType, "reserved", "spot"), []string{
			offering("us-west-2a", "reserved", "cr-2"), offering("us-west-2a", "reserved", "cr-1"), offering("us-west-2a", "spot", ""),
		}},
		{"one zone", in(requirements.LabelTopologyZone, "us-west-2b"), []string{offering("us-west-2b", "on-demand", "")}},
		{"only unavailable offerings allowed", in(requirements.LabelTopologyZone, "us-west-2c"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, o := range it.LaunchOfferings(tt.reqs) {
				got = append(got, offering(o.Zone, o.CapacityType, o.ReservationID))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("LaunchOfferings = %v, want %v", got, tt.want)
			}
		})
	}
}
