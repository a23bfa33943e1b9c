package testbuild

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// InitContainer adds a regular init container with cpu and memory requests ("" leaves one out).
func (b *PodBuilder) InitContainer(cpu, memory string) *PodBuilder {
	b.pod.Spec.InitContainers = append(b.pod.Spec.InitContainers, container("init", cpu, memory))
	return b
}

// Sidecar adds a restartable init container (restartPolicy Always), which runs beside the
// main containers and so adds to their requests.
func (b *PodBuilder) Sidecar(cpu, memory string) *PodBuilder {
	c := container("sidecar", cpu, memory)
	always := corev1.ContainerRestartPolicyAlways
	c.RestartPolicy = &always
	b.pod.Spec.InitContainers = append(b.pod.Spec.InitContainers, c)
	return b
}

// Container adds another main container with cpu and memory requests.
func (b *PodBuilder) Container(cpu, memory string) *PodBuilder {
	b.pod.Spec.Containers = append(b.pod.Spec.Containers, container("extra", cpu, memory))
	return b
}

func container(name, cpu, memory string) corev1.Container {
	req := corev1.ResourceList{}
	if cpu != "" {
		req[corev1.ResourceCPU] = resource.MustParse(cpu)
	}
	if memory != "" {
		req[corev1.ResourceMemory] = resource.MustParse(memory)
	}
	return corev1.Container{Name: name, Resources: corev1.ResourceRequirements{Requests: req}}
}

// Overhead sets the pod overhead (spec.overhead, from its RuntimeClass) for a resource.
func (b *PodBuilder) Overhead(name corev1.ResourceName, q string) *PodBuilder {
	if b.pod.Spec.Overhead == nil {
		b.pod.Spec.Overhead = corev1.ResourceList{}
	}
	b.pod.Spec.Overhead[name] = resource.MustParse(q)
	return b
}

// PodLevelRequest sets a pod-level request (spec.resources.requests).
func (b *PodBuilder) PodLevelRequest(name corev1.ResourceName, q string) *PodBuilder {
	if b.pod.Spec.Resources == nil {
		b.pod.Spec.Resources = &corev1.ResourceRequirements{}
	}
	if b.pod.Spec.Resources.Requests == nil {
		b.pod.Spec.Resources.Requests = corev1.ResourceList{}
	}
	b.pod.Spec.Resources.Requests[name] = resource.MustParse(q)
	return b
}

// HostPortOn adds a host port bound on one IP ("" or 0.0.0.0 or :: for every address) with a
// protocol ("" for TCP).
func (b *PodBuilder) HostPortOn(ip string, port int32, protocol corev1.Protocol) *PodBuilder {
	c := &b.pod.Spec.Containers[0]
	c.Ports = append(c.Ports, corev1.ContainerPort{ContainerPort: port, HostPort: port, HostIP: ip, Protocol: protocol})
	return b
}

// MatchFieldsTerm adds a required node affinity term that uses matchFields.
func (b *PodBuilder) MatchFieldsTerm(fields ...corev1.NodeSelectorRequirement) *PodBuilder {
	na := b.nodeAffinity()
	if na.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		na.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{}
	}
	ns := na.RequiredDuringSchedulingIgnoredDuringExecution
	ns.NodeSelectorTerms = append(ns.NodeSelectorTerms, corev1.NodeSelectorTerm{MatchFields: fields})
	return b
}

// TolerateAll adds the toleration that tolerates every taint (operator Exists, no key).
func (b *PodBuilder) TolerateAll() *PodBuilder {
	b.pod.Spec.Tolerations = append(b.pod.Spec.Tolerations, corev1.Toleration{Operator: corev1.TolerationOpExists})
	return b
}

// Exists is a NodeSelectorRequirement with operator Exists.
func Exists(key string) corev1.NodeSelectorRequirement {
	return corev1.NodeSelectorRequirement{Key: key, Operator: corev1.NodeSelectorOpExists}
}

// DaemonSet wraps a pod as the template of a DaemonSet with the pod's name and namespace.
func DaemonSet(pod *corev1.Pod) *appsv1.DaemonSet {
	return &appsv1.DaemonSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: metav1.ObjectMeta{Name: pod.Name, Namespace: pod.Namespace},
		Spec: appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: pod.Labels, Annotations: pod.Annotations},
			Spec:       pod.Spec,
		}},
	}
}

// Cordoned marks the node unschedulable.
func (b *NodeBuilder) Cordoned() *NodeBuilder { b.en.Node.Spec.Unschedulable = true; return b }
