package karpenterload

import (
	"fmt"
	"math/rand/v2"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// DiscoveryLabel is the label Karpenter's test.Pod puts on every pod, with value "unspecified".
const DiscoveryLabel = "testing/cluster"

// Image is the image Karpenter's test.Pod gives a pod without one.
const Image = "public.ecr.aws/eks-distro/kubernetes/pause:3.2"

// Created is the creation time every generated pod shares, so that Karpenter's queue order
// (cpu, memory, creation time, UID) is a function of the seed.
var Created = metav1.Date(2026, 1, 1, 0, 0, 0, 0, metav1.Now().Location())

// Generator draws the pods of one seed. Each pod is named <kind>-<n>, n counting every pod the
// generator made, and gets a UID drawn from the seed.
type Generator struct {
	r    *rand.Rand
	made int
}

// New returns the generator of seed, the one conformance/karpentercmp uses for that seed.
func New(seed uint64) *Generator {
	return &Generator{r: rand.New(rand.NewPCG(seed, 0x6b617270))}
}

// Diverse is makeDiversePods(count): five equal groups (plain; zonal topology spread and
// hostname topology spread, maxSkew 1, DoNotSchedule, selecting a random my-label value; required
// zonal pod affinity to the pod's own random my-affininity value; required hostname pod
// anti-affinity among all pods of the group), the remainder plain.
func (g *Generator) Diverse(count int) []*corev1.Pod {
	n := count / 5
	pods := make([]*corev1.Pod, 0, count)
	pods = append(pods, g.generic(n)...)
	pods = append(pods, g.spread(n, corev1.LabelTopologyZone)...)
	pods = append(pods, g.spread(n, corev1.LabelHostname)...)
	pods = append(pods, g.affinity(n, corev1.LabelTopologyZone)...)
	pods = append(pods, g.antiAffinity(n, corev1.LabelHostname)...)
	return append(pods, g.generic(count-len(pods))...)
}

// Preferences is makePreferencePods(count): identical pods (one random size for all) that
// prefer test-zone-1, prefer (weight 10) zonal anti-affinity to each other and prefer
// (weight 1) hostname anti-affinity to each other.
func (g *Generator) Preferences(count int) []*corev1.Pod {
	labels := map[string]string{"app": "nginx"}
	requests := g.requests()
	pods := make([]*corev1.Pod, 0, count)
	for range count {
		p := g.pod(g.meta("pref", labels), requests)
		p.Spec.Affinity = &corev1.Affinity{
			NodeAffinity: &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{
				Weight: 1,
				Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{
					Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"test-zone-1"},
				}}},
			}}},
			PodAntiAffinity: &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{
				{Weight: 10, PodAffinityTerm: corev1.PodAffinityTerm{
					LabelSelector: &metav1.LabelSelector{MatchLabels: labels}, TopologyKey: corev1.LabelTopologyZone,
				}},
				{Weight: 1, PodAffinityTerm: corev1.PodAffinityTerm{
					LabelSelector: &metav1.LabelSelector{MatchLabels: labels}, TopologyKey: corev1.LabelHostname,
				}},
			}},
		}
		pods = append(pods, p)
	}
	return pods
}

func (g *Generator) generic(count int) []*corev1.Pod {
	pods := make([]*corev1.Pod, 0, count)
	for range count {
		meta := g.meta("generic", map[string]string{"my-label": g.value()})
		pods = append(pods, g.pod(meta, g.requests()))
	}
	return pods
}

func (g *Generator) spread(count int, key string) []*corev1.Pod {
	pods := make([]*corev1.Pod, 0, count)
	for range count {
		meta := g.meta("spread", map[string]string{"my-label": g.value()})
		selector := &metav1.LabelSelector{MatchLabels: map[string]string{"my-label": g.value()}}
		p := g.pod(meta, g.requests())
		p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{
			MaxSkew: 1, TopologyKey: key, WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: selector,
		}}
		pods = append(pods, p)
	}
	return pods
}

func (g *Generator) affinity(count int, key string) []*corev1.Pod {
	pods := make([]*corev1.Pod, 0, count)
	for range count {
		labels := map[string]string{"my-affininity": g.value()}
		p := g.pod(g.meta("affinity", labels), g.requests())
		p.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: labels}, TopologyKey: key,
			}},
		}}
		pods = append(pods, p)
	}
	return pods
}

func (g *Generator) antiAffinity(count int, key string) []*corev1.Pod {
	labels := map[string]string{"app": "nginx"}
	pods := make([]*corev1.Pod, 0, count)
	for range count {
		p := g.pod(g.meta("anti", labels), g.requests())
		p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: labels}, TopologyKey: key,
			}},
		}}
		pods = append(pods, p)
	}
	return pods
}

// meta names the next pod and draws its UID; labels get DiscoveryLabel as test.Pod's do.
func (g *Generator) meta(kind string, labels map[string]string) metav1.ObjectMeta {
	g.made++
	all := map[string]string{DiscoveryLabel: "unspecified"}
	for k, v := range labels {
		all[k] = v
	}
	return metav1.ObjectMeta{
		Name:              fmt.Sprintf("%s-%d", kind, g.made),
		Namespace:         corev1.NamespaceDefault,
		Labels:            all,
		UID:               types.UID(fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", g.r.Uint32(), g.r.Uint32()&0xffff, g.r.Uint32()&0xffff, g.r.Uint32()&0xffff, g.r.Uint64()&0xffffffffffff)),
		CreationTimestamp: Created,
		Generation:        1,
	}
}

func (g *Generator) pod(meta metav1.ObjectMeta, requests corev1.ResourceRequirements) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: meta,
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "app", Image: Image, Resources: requests,
		}}},
	}
}

func (g *Generator) requests() corev1.ResourceRequirements {
	return corev1.ResourceRequirements{Requests: corev1.ResourceList{
		corev1.ResourceCPU:    g.cpu(),
		corev1.ResourceMemory: g.memory(),
	}}
}

func (g *Generator) value() string {
	values := []string{"a", "b", "c", "d", "e", "f", "g"}
	return values[g.r.IntN(len(values))]
}

func (g *Generator) cpu() resource.Quantity {
	cpu := []int{100, 250, 500, 1000, 1500}
	return resource.MustParse(fmt.Sprintf("%dm", cpu[g.r.IntN(len(cpu))]))
}

func (g *Generator) memory() resource.Quantity {
	mem := []int{100, 256, 512, 1024, 2048, 4096}
	return resource.MustParse(fmt.Sprintf("%dMi", mem[g.r.IntN(len(mem))]))
}
