package scheduling

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/instancetype/aws"
	"github.com/nodeplan/nodeplan/instancetype/synthetic"
	"github.com/nodeplan/nodeplan/internal/resources"
)

// allocatableRoom is a shortcut for dims.Vector(it.Allocatable()): it must give the same
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
			allocatableRoom(got, it, dims)
			if !slices.Equal(got, want) {
				t.Errorf("%s over %d dimensions: allocatableRoom = %v, dims.Vector(Allocatable()) = %v", it.Name, dims.Len(), got, want)
			}
		}
	}
}
