package testbuild

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/scheduling"
)

// NodePoolBuilder builds a scheduling.NodePool.
type NodePoolBuilder struct{ np *scheduling.NodePool }

// NodePool starts a NodePool with the given instance types.
func NodePool(name string, types ...*instancetype.InstanceType) *NodePoolBuilder {
	return &NodePoolBuilder{np: &scheduling.NodePool{Name: name, InstanceTypes: types}}
}

// Obj returns the NodePool.
func (b *NodePoolBuilder) Obj() *scheduling.NodePool { return b.np }

// Types sets the instance types.
func (b *NodePoolBuilder) Types(types ...*instancetype.InstanceType) *NodePoolBuilder {
	b.np.InstanceTypes = types
	return b
}

// Weight sets the weight.
func (b *NodePoolBuilder) Weight(w int32) *NodePoolBuilder { b.np.Weight = w; return b }

// Requirement adds a requirement.
func (b *NodePoolBuilder) Requirement(key string, op corev1.NodeSelectorOperator, values ...string) *NodePoolBuilder {
	b.np.Requirements = append(b.np.Requirements, scheduling.NodeSelectorRequirementWithMinValues{
		NodeSelectorRequirement: corev1.NodeSelectorRequirement{Key: key, Operator: op, Values: values}})
	return b
}

// MinValues adds a requirement with minValues.
func (b *NodePoolBuilder) MinValues(key string, min int, op corev1.NodeSelectorOperator, values ...string) *NodePoolBuilder {
	b.np.Requirements = append(b.np.Requirements, scheduling.NodeSelectorRequirementWithMinValues{
		NodeSelectorRequirement: corev1.NodeSelectorRequirement{Key: key, Operator: op, Values: values}, MinValues: &min})
	return b
}

// Label adds a template label.
func (b *NodePoolBuilder) Label(k, v string) *NodePoolBuilder {
	if b.np.Labels == nil {
		b.np.Labels = map[string]string{}
	}
	b.np.Labels[k] = v
	return b
}

// Taint adds a taint.
func (b *NodePoolBuilder) Taint(key, value string, effect corev1.TaintEffect) *NodePoolBuilder {
	b.np.Taints = append(b.np.Taints, corev1.Taint{Key: key, Value: value, Effect: effect})
	return b
}

// StartupTaint adds a startup taint.
func (b *NodePoolBuilder) StartupTaint(key, value string, effect corev1.TaintEffect) *NodePoolBuilder {
	b.np.StartupTaints = append(b.np.StartupTaints, corev1.Taint{Key: key, Value: value, Effect: effect})
	return b
}

// Limit sets a limit ("cpu", "memory", "nodes", …).
func (b *NodePoolBuilder) Limit(name corev1.ResourceName, q string) *NodePoolBuilder {
	if b.np.Limits == nil {
		b.np.Limits = corev1.ResourceList{}
	}
	b.np.Limits[name] = resource.MustParse(q)
	return b
}

// TypeBuilder builds an instance type.
type TypeBuilder struct{ it *instancetype.InstanceType }

// Type starts an amd64 linux instance type with the given cpu, memory and max pods, and no
// overhead.
func Type(name, cpu, memory string, pods int64) *TypeBuilder {
	return &TypeBuilder{it: &instancetype.InstanceType{
		Name:   name,
		Labels: map[string]string{"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux"},
		Capacity: corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse(cpu),
			corev1.ResourceMemory: resource.MustParse(memory),
			corev1.ResourcePods:   *resource.NewQuantity(pods, resource.DecimalSI),
		},
	}}
}

// Obj returns the instance type.
func (b *TypeBuilder) Obj() *instancetype.InstanceType { return b.it }

// Label sets a label of the type.
func (b *TypeBuilder) Label(k, v string) *TypeBuilder { b.it.Labels[k] = v; return b }

// Arch sets kubernetes.io/arch.
func (b *TypeBuilder) Arch(a string) *TypeBuilder { return b.Label("kubernetes.io/arch", a) }

// Capacity sets a capacity entry (e.g. nvidia.com/gpu).
func (b *TypeBuilder) Capacity(name corev1.ResourceName, q string) *TypeBuilder {
	b.it.Capacity[name] = resource.MustParse(q)
	return b
}

// KubeReserved sets kube-reserved cpu and memory.
func (b *TypeBuilder) KubeReserved(cpu, memory string) *TypeBuilder {
	b.it.Overhead.KubeReserved = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)}
	return b
}

// Offer adds an available offering.
func (b *TypeBuilder) Offer(zone, capacityType string, price float64) *TypeBuilder {
	b.it.Offerings = append(b.it.Offerings, instancetype.Offering{Zone: zone, CapacityType: capacityType, Price: price, Available: true})
	return b
}

// Unavailable adds an offering that cannot be bought now.
func (b *TypeBuilder) Unavailable(zone, capacityType string, price float64) *TypeBuilder {
	b.it.Offerings = append(b.it.Offerings, instancetype.Offering{Zone: zone, CapacityType: capacityType, Price: price})
	return b
}

// AttachLimit sets a CSI driver's attach limit.
func (b *TypeBuilder) AttachLimit(driver string, n int) *TypeBuilder {
	if b.it.VolumeAttachLimits == nil {
		b.it.VolumeAttachLimits = map[string]int{}
	}
	b.it.VolumeAttachLimits[driver] = n
	return b
}

// NodeBuilder builds an existing node.
type NodeBuilder struct{ en *scheduling.ExistingNode }

// Node starts an initialized node with allocatable cpu, memory and pods.
func Node(name, cpu, memory string, pods int64) *NodeBuilder {
	alloc := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse(cpu),
		corev1.ResourceMemory: resource.MustParse(memory),
		corev1.ResourcePods:   *resource.NewQuantity(pods, resource.DecimalSI),
	}
	return &NodeBuilder{en: &scheduling.ExistingNode{
		Node: &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}},
			Status:     corev1.NodeStatus{Allocatable: alloc, Capacity: alloc.DeepCopy()},
		},
		Initialized: true,
	}}
}

// Obj returns the existing node.
func (b *NodeBuilder) Obj() *scheduling.ExistingNode { return b.en }

// Label sets a node label.
func (b *NodeBuilder) Label(k, v string) *NodeBuilder { b.en.Node.Labels[k] = v; return b }

// Zone sets the zone label.
func (b *NodeBuilder) Zone(z string) *NodeBuilder { return b.Label("topology.kubernetes.io/zone", z) }

// NodePool marks the node as launched by a NodePool.
func (b *NodeBuilder) NodePool(np string) *NodeBuilder {
	b.en.NodePool = np
	return b.Label("karpenter.sh/nodepool", np)
}

// Taint adds a taint.
func (b *NodeBuilder) Taint(key, value string, effect corev1.TaintEffect) *NodeBuilder {
	b.en.Node.Spec.Taints = append(b.en.Node.Spec.Taints, corev1.Taint{Key: key, Value: value, Effect: effect})
	return b
}

// Uninitialized marks the node as still starting.
func (b *NodeBuilder) Uninitialized() *NodeBuilder { b.en.Initialized = false; return b }

// Pods binds running pods to the node.
func (b *NodeBuilder) Pods(pods ...*corev1.Pod) *NodeBuilder {
	for _, p := range pods {
		p.Spec.NodeName = b.en.Node.Name
		b.en.Pods = append(b.en.Pods, p)
	}
	return b
}
