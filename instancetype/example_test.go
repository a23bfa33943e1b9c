package instancetype_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/requirements"
)

const exampleCatalog = `
apiVersion: nodeplan/v1
kind: InstanceTypeCatalog
instanceTypes:
- name: m5.large
  labels: {kubernetes.io/arch: amd64, kubernetes.io/os: linux}
  capacity: {cpu: "2", memory: 7577Mi, pods: "29"}
  overhead: {kubeReserved: {cpu: 70m, memory: 574Mi}, evictionThreshold: {memory: 100Mi}}
  offerings:
  - {zone: us-west-2a, capacityType: on-demand, price: 0.096}
  - {zone: us-west-2a, capacityType: spot, price: 0.035}
- name: m6g.large
  labels: {kubernetes.io/arch: arm64, kubernetes.io/os: linux}
  capacity: {cpu: "2", memory: 7577Mi, pods: "29"}
  overhead: {kubeReserved: {cpu: 70m, memory: 574Mi}, evictionThreshold: {memory: 100Mi}}
  offerings:
  - {zone: us-west-2a, capacityType: on-demand, price: 0.077}
  - {zone: us-west-2b, capacityType: on-demand, price: 0.077}
  - {zone: us-west-2b, capacityType: spot, price: 0.031}
`

// A pod asks for 1.5 CPU and 6Gi on an on-demand node: both types fit it, and the arm64 one
// is the cheaper choice.
func Example() {
	c, err := instancetype.ParseCatalog([]byte(exampleCatalog), "example.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	onDemand := requirements.NewRequirements(
		requirements.New(requirements.LabelCapacityType, corev1.NodeSelectorOpIn, requirements.CapacityTypeOnDemand),
	)
	requests := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("1500m"),
		corev1.ResourceMemory: resource.MustParse("6Gi"),
	}

	types := instancetype.Filter(c.InstanceTypes, onDemand)
	instancetype.SortByPrice(types, onDemand)
	for _, it := range types {
		alloc := it.Allocatable()
		_, fits := it.Fits(requests)
		o, _ := it.CheapestOffering(onDemand)
		fmt.Printf("%s: allocatable cpu %s memory %s, fits %t, $%.3f/h in %s\n",
			it.Name, alloc.Cpu(), alloc.Memory(), fits, o.Price, o.Zone)
	}
	// Output:
	// m6g.large: allocatable cpu 1930m memory 6903Mi, fits true, $0.077/h in us-west-2a
	// m5.large: allocatable cpu 1930m memory 6903Mi, fits true, $0.096/h in us-west-2a
}
