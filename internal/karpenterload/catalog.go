package karpenterload

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/instancetype"
)

// Zones of FakeCatalog, as in Karpenter's fake cloud provider.
var Zones = []string{"test-zone-1", "test-zone-2", "test-zone-3"}

// FakeCatalog returns total instance types shaped like Karpenter's fake.InstanceTypes(total)
// (kubernetes-sigs/karpenter pkg/cloudprovider/fake), built here as instancetype values rather
// than taken from instancetype/synthetic, whose EC2-like families, sizes and prices are a
// different shape. Type fake-it-i has i+1 vCPU, 2(i+1) GiB memory and 10(i+1) pods; 100m cpu
// and 10Mi memory are kube-reserved; it is linux/amd64, labelled size=small or, above 4 vCPU and
// 8 GiB, size=large, and integer=<vCPU>. Like Karpenter's, it is offered as spot in
// test-zone-1 and test-zone-2 and as on-demand in all three zones, every offering at 0.1 per
// vCPU plus 0.1 per GB of memory an hour. conformance/karpentercmp checks it against
// Karpenter's.
func FakeCatalog(total int) []*instancetype.InstanceType {
	out := make([]*instancetype.InstanceType, 0, total)
	for i := range total {
		cpu := resource.MustParse(fmt.Sprint(i + 1))
		mem := resource.MustParse(fmt.Sprintf("%dGi", (i+1)*2))
		size := "small"
		if i+1 > 4 && (i+1)*2 > 8 {
			size = "large"
		}
		price := 0.1*cpu.AsApproximateFloat64() + 0.1*mem.AsApproximateFloat64()/1e9
		it := &instancetype.InstanceType{
			Name: fmt.Sprintf("fake-it-%d", i),
			Labels: map[string]string{
				corev1.LabelArchStable: "amd64",
				corev1.LabelOSStable:   "linux",
				"size":                 size,
				"integer":              fmt.Sprint(i + 1),
			},
			Capacity: corev1.ResourceList{
				corev1.ResourceCPU:    cpu,
				corev1.ResourceMemory: mem,
				corev1.ResourcePods:   resource.MustParse(fmt.Sprint((i + 1) * 10)),
			},
			Overhead: instancetype.Overhead{KubeReserved: corev1.ResourceList{
				corev1.ResourceCPU:    resource.MustParse("100m"),
				corev1.ResourceMemory: resource.MustParse("10Mi"),
			}},
		}
		for _, o := range []struct{ zone, capacityType string }{
			{Zones[0], "spot"}, {Zones[1], "spot"},
			{Zones[0], "on-demand"}, {Zones[1], "on-demand"}, {Zones[2], "on-demand"},
		} {
			it.Offerings = append(it.Offerings, instancetype.Offering{
				Zone: o.zone, CapacityType: o.capacityType, Price: price, Available: true,
			})
		}
		out = append(out, it)
	}
	return out
}
