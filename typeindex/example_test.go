package typeindex_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/typeindex"
)

// Two types, one per architecture, each offered on-demand and as spot in two zones. A node
// that must be arm64 in zone b takes the second type's cheapest offering there.
func Example() {
	offerings := func(onDemand float64) []instancetype.Offering {
		return []instancetype.Offering{
			{Zone: "zone-a", CapacityType: "spot", Price: onDemand / 3, Available: true},
			{Zone: "zone-b", CapacityType: "spot", Price: onDemand / 2, Available: true},
			{Zone: "zone-a", CapacityType: "on-demand", Price: onDemand, Available: true},
			{Zone: "zone-b", CapacityType: "on-demand", Price: onDemand, Available: true},
		}
	}
	types := []*typeindex.Type{
		{Reqs: requirements.FromLabels(map[string]string{requirements.LabelArch: "amd64"}), Offerings: offerings(0.096)},
		{Reqs: requirements.FromLabels(map[string]string{requirements.LabelArch: "arm64"}), Offerings: offerings(0.077)},
	}
	ix := typeindex.New(len(types), func(i int) *typeindex.Type { return types[i] })

	node := requirements.FromNodeSelectorRequirements(
		corev1.NodeSelectorRequirement{Key: requirements.LabelArch, Operator: corev1.NodeSelectorOpIn, Values: []string{"arm64"}},
		corev1.NodeSelectorRequirement{Key: requirements.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"zone-b"}},
	)
	var scratch typeindex.Scratch
	f := ix.Compile(node, &scratch)
	for _, t := range types {
		if !f.Allows(t) {
			fmt.Println(t.Reqs, "no")
			continue
		}
		o := t.Offerings[f.CheapestOffering(t)]
		fmt.Printf("%v %s %s $%.4f\n", t.Reqs, o.Zone, o.CapacityType, o.Price)
	}
	// Output:
	// kubernetes.io/arch In [amd64] no
	// kubernetes.io/arch In [arm64] zone-b spot $0.0385
}
