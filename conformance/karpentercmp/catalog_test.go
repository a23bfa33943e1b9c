package karpentercmp

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider/fake"

	"github.com/nodeplan/nodeplan/conformance/workload"
)

// TestCatalogIsKarpenters checks that workload.FakeCatalog(400), which nodeplan plans on,
// is Karpenter's fake.InstanceTypes(400), which Karpenter plans on: names, capacity,
// overhead and offerings (zone, capacity type, price, availability).
func TestCatalogIsKarpenters(t *testing.T) {
	theirs := fake.InstanceTypes(400)
	ours := workload.FakeCatalog(400)
	if len(ours) != len(theirs) {
		t.Fatalf("%d types, Karpenter's has %d", len(ours), len(theirs))
	}
	for i, k := range theirs {
		o := ours[i]
		if o.Name != k.Name {
			t.Fatalf("type %d is %s, Karpenter's %s", i, o.Name, k.Name)
		}
		for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourcePods} {
			if q, want := o.Capacity[r], k.Capacity[r]; q.Cmp(want) != 0 {
				t.Errorf("%s: %s capacity %s, Karpenter's %s", o.Name, r, q.String(), want.String())
			}
			if q, want := o.Overhead.KubeReserved[r], k.Overhead.Total()[r]; q.Cmp(want) != 0 {
				t.Errorf("%s: %s overhead %s, Karpenter's %s", o.Name, r, q.String(), want.String())
			}
		}
		if len(o.Offerings) != len(k.Offerings) {
			t.Fatalf("%s: %d offerings, Karpenter's %d", o.Name, len(o.Offerings), len(k.Offerings))
		}
		for j, ko := range k.Offerings {
			oo := o.Offerings[j]
			zone := ko.Requirements.Get(corev1.LabelTopologyZone).Any()
			capacityType := ko.Requirements.Get(v1.CapacityTypeLabelKey).Any()
			if oo.Zone != zone || oo.CapacityType != capacityType || oo.Price != ko.Price || oo.Available != ko.Available {
				t.Errorf("%s offering %d: %+v, Karpenter's %s %s %v %v", o.Name, j, oo, zone, capacityType, ko.Price, ko.Available)
			}
		}
	}
}
