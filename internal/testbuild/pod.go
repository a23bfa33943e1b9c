package testbuild

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PodBuilder builds a pod with one container.
type PodBuilder struct{ pod *corev1.Pod }

// Pod starts a pod in namespace default with one container and no requests.
func Pod(name string) *PodBuilder {
	return &PodBuilder{pod: &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name:      "main",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{}},
		}}},
	}}
}

// Obj returns the pod.
func (b *PodBuilder) Obj() *corev1.Pod { return b.pod }

// Namespace sets the namespace.
func (b *PodBuilder) Namespace(ns string) *PodBuilder { b.pod.Namespace = ns; return b }

// Label adds a label.
func (b *PodBuilder) Label(k, v string) *PodBuilder { b.pod.Labels[k] = v; return b }

// Annotation adds an annotation.
func (b *PodBuilder) Annotation(k, v string) *PodBuilder {
	if b.pod.Annotations == nil {
		b.pod.Annotations = map[string]string{}
	}
	b.pod.Annotations[k] = v
	return b
}

// Request sets a request of the main container.
func (b *PodBuilder) Request(name corev1.ResourceName, q string) *PodBuilder {
	b.pod.Spec.Containers[0].Resources.Requests[name] = resource.MustParse(q)
	return b
}

// CPU sets the cpu request.
func (b *PodBuilder) CPU(q string) *PodBuilder { return b.Request(corev1.ResourceCPU, q) }

// Memory sets the memory request.
func (b *PodBuilder) Memory(q string) *PodBuilder { return b.Request(corev1.ResourceMemory, q) }

// GPU sets an nvidia.com/gpu request.
func (b *PodBuilder) GPU(n string) *PodBuilder { return b.Request("nvidia.com/gpu", n) }

// NodeSelector adds a nodeSelector entry.
func (b *PodBuilder) NodeSelector(k, v string) *PodBuilder {
	if b.pod.Spec.NodeSelector == nil {
		b.pod.Spec.NodeSelector = map[string]string{}
	}
	b.pod.Spec.NodeSelector[k] = v
	return b
}

func (b *PodBuilder) nodeAffinity() *corev1.NodeAffinity {
	if b.pod.Spec.Affinity == nil {
		b.pod.Spec.Affinity = &corev1.Affinity{}
	}
	if b.pod.Spec.Affinity.NodeAffinity == nil {
		b.pod.Spec.Affinity.NodeAffinity = &corev1.NodeAffinity{}
	}
	return b.pod.Spec.Affinity.NodeAffinity
}

// RequiredTerm adds one OR'ed required node affinity term.
func (b *PodBuilder) RequiredTerm(exprs ...corev1.NodeSelectorRequirement) *PodBuilder {
	na := b.nodeAffinity()
	if na.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		na.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{}
	}
	ns := na.RequiredDuringSchedulingIgnoredDuringExecution
	ns.NodeSelectorTerms = append(ns.NodeSelectorTerms, corev1.NodeSelectorTerm{MatchExpressions: exprs})
	return b
}

// PreferredTerm adds a preferred node affinity term.
func (b *PodBuilder) PreferredTerm(weight int32, exprs ...corev1.NodeSelectorRequirement) *PodBuilder {
	na := b.nodeAffinity()
	na.PreferredDuringSchedulingIgnoredDuringExecution = append(na.PreferredDuringSchedulingIgnoredDuringExecution,
		corev1.PreferredSchedulingTerm{Weight: weight, Preference: corev1.NodeSelectorTerm{MatchExpressions: exprs}})
	return b
}

// Toleration adds a toleration; an empty value with operator Exists is built when value is "".
func (b *PodBuilder) Toleration(key, value string, effect corev1.TaintEffect) *PodBuilder {
	t := corev1.Toleration{Key: key, Value: value, Effect: effect, Operator: corev1.TolerationOpEqual}
	if value == "" {
		t.Operator = corev1.TolerationOpExists
	}
	b.pod.Spec.Tolerations = append(b.pod.Spec.Tolerations, t)
	return b
}

// HostPort adds a container port bound on the host.
func (b *PodBuilder) HostPort(port int32) *PodBuilder {
	c := &b.pod.Spec.Containers[0]
	c.Ports = append(c.Ports, corev1.ContainerPort{ContainerPort: port, HostPort: port, Protocol: corev1.ProtocolTCP})
	return b
}

// NodeName binds the pod to a node (a running pod).
func (b *PodBuilder) NodeName(n string) *PodBuilder { b.pod.Spec.NodeName = n; return b }

// PVC mounts a persistentVolumeClaim volume.
func (b *PodBuilder) PVC(volume, claim string) *PodBuilder {
	b.pod.Spec.Volumes = append(b.pod.Spec.Volumes, corev1.Volume{Name: volume, VolumeSource: corev1.VolumeSource{
		PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}})
	return b
}

// Spread adds a topology spread constraint over key selecting pods with this pod's labels.
func (b *PodBuilder) Spread(key string, maxSkew int32, when corev1.UnsatisfiableConstraintAction) *PodBuilder {
	b.pod.Spec.TopologySpreadConstraints = append(b.pod.Spec.TopologySpreadConstraints, corev1.TopologySpreadConstraint{
		MaxSkew: maxSkew, TopologyKey: key, WhenUnsatisfiable: when,
		LabelSelector: &metav1.LabelSelector{MatchLabels: copyLabels(b.pod.Labels)},
	})
	return b
}

// SpreadSelecting adds a topology spread constraint over key selecting pods with these labels.
func (b *PodBuilder) SpreadSelecting(key string, maxSkew int32, when corev1.UnsatisfiableConstraintAction, selector map[string]string) *PodBuilder {
	b.pod.Spec.TopologySpreadConstraints = append(b.pod.Spec.TopologySpreadConstraints, corev1.TopologySpreadConstraint{
		MaxSkew: maxSkew, TopologyKey: key, WhenUnsatisfiable: when,
		LabelSelector: &metav1.LabelSelector{MatchLabels: copyLabels(selector)},
	})
	return b
}

// ZoneSpread adds a DoNotSchedule zone spread over pods with this pod's labels.
func (b *PodBuilder) ZoneSpread(maxSkew int32) *PodBuilder {
	return b.Spread("topology.kubernetes.io/zone", maxSkew, corev1.DoNotSchedule)
}

// HostnameSpread adds a DoNotSchedule hostname spread over pods with this pod's labels.
func (b *PodBuilder) HostnameSpread(maxSkew int32) *PodBuilder {
	return b.Spread("kubernetes.io/hostname", maxSkew, corev1.DoNotSchedule)
}

func (b *PodBuilder) podAffinity() *corev1.Affinity {
	if b.pod.Spec.Affinity == nil {
		b.pod.Spec.Affinity = &corev1.Affinity{}
	}
	return b.pod.Spec.Affinity
}

// Affinity adds a required pod affinity term over key selecting pods with the given labels.
func (b *PodBuilder) Affinity(key string, selector map[string]string) *PodBuilder {
	a := b.podAffinity()
	if a.PodAffinity == nil {
		a.PodAffinity = &corev1.PodAffinity{}
	}
	a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution,
		corev1.PodAffinityTerm{TopologyKey: key, LabelSelector: &metav1.LabelSelector{MatchLabels: selector}})
	return b
}

// AntiAffinity adds a required pod anti-affinity term over key selecting pods with the labels.
func (b *PodBuilder) AntiAffinity(key string, selector map[string]string) *PodBuilder {
	a := b.podAffinity()
	if a.PodAntiAffinity == nil {
		a.PodAntiAffinity = &corev1.PodAntiAffinity{}
	}
	a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution,
		corev1.PodAffinityTerm{TopologyKey: key, LabelSelector: &metav1.LabelSelector{MatchLabels: selector}})
	return b
}

// PreferredAffinity adds a preferred pod affinity term.
func (b *PodBuilder) PreferredAffinity(weight int32, key string, selector map[string]string) *PodBuilder {
	a := b.podAffinity()
	if a.PodAffinity == nil {
		a.PodAffinity = &corev1.PodAffinity{}
	}
	a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution,
		corev1.WeightedPodAffinityTerm{Weight: weight, PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: key, LabelSelector: &metav1.LabelSelector{MatchLabels: selector}}})
	return b
}

// PreferredAntiAffinity adds a preferred pod anti-affinity term.
func (b *PodBuilder) PreferredAntiAffinity(weight int32, key string, selector map[string]string) *PodBuilder {
	a := b.podAffinity()
	if a.PodAntiAffinity == nil {
		a.PodAntiAffinity = &corev1.PodAntiAffinity{}
	}
	a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution,
		corev1.WeightedPodAffinityTerm{Weight: weight, PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: key, LabelSelector: &metav1.LabelSelector{MatchLabels: selector}}})
	return b
}

// Replicas returns n copies named <name>-0 … <name>-(n-1).
func (b *PodBuilder) Replicas(n int) []*corev1.Pod {
	out := make([]*corev1.Pod, n)
	for i := range out {
		p := b.pod.DeepCopy()
		p.Name = b.pod.Name + "-" + itoa(i)
		out[i] = p
	}
	return out
}

// In is a NodeSelectorRequirement with operator In.
func In(key string, values ...string) corev1.NodeSelectorRequirement {
	return corev1.NodeSelectorRequirement{Key: key, Operator: corev1.NodeSelectorOpIn, Values: values}
}

// NotIn is a NodeSelectorRequirement with operator NotIn.
func NotIn(key string, values ...string) corev1.NodeSelectorRequirement {
	return corev1.NodeSelectorRequirement{Key: key, Operator: corev1.NodeSelectorOpNotIn, Values: values}
}

func copyLabels(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b [20]byte
	n := len(b)
	for i > 0 {
		n--
		b[n] = byte('0' + i%10)
		i /= 10
	}
	return string(b[n:])
}
