package karpentercmp

import (
	"fmt"
	"math/rand/v2"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/karpenter/pkg/test"
)

// The workloads of Karpenter's scheduling benchmark
// (pkg/controllers/provisioning/scheduling/scheduling_benchmark_test.go): makeDiversePods and
// makePreferencePods, built with Karpenter's own test.Pod, drawing from a seeded generator
// instead of a global one. Each pod gets a name (group-n) and a UID from the generator, and all
// share one creation time, so that Karpenter's queue order (cpu, memory, creation time, UID)
// is a function of the seed: Karpenter's run-to-run variation comes from its random UIDs.
type generator struct {
	r    *rand.Rand
	made int
}

var created = metav1.Date(2026, 1, 1, 0, 0, 0, 0, metav1.Now().Location())

func newGenerator(seed uint64) *generator {
	return &generator{r: rand.New(rand.NewPCG(seed, 0x6b617270))}
}

func (g *generator) meta(group string, labels map[string]string) metav1.ObjectMeta {
	g.made++
	return metav1.ObjectMeta{
		Name:      fmt.Sprintf("%s-%d", group, g.made),
		Namespace: corev1.NamespaceDefault,
		Labels:    labels,
		UID:       types.UID(fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", g.r.Uint32(), g.r.Uint32()&0xffff, g.r.Uint32()&0xffff, g.r.Uint32()&0xffff, g.r.Uint64()&0xffffffffffff)),
	}
}

func (g *generator) pod(opts test.PodOptions) *corev1.Pod {
	p := test.Pod(opts)
	p.CreationTimestamp = created
	return p
}

// diverse is makeDiversePods(count).
func (g *generator) diverse(count int) []*corev1.Pod {
	n := count / 5
	var pods []*corev1.Pod
	pods = append(pods, g.generic(n)...)
	pods = append(pods, g.spread(n, corev1.LabelTopologyZone)...)
	pods = append(pods, g.spread(n, corev1.LabelHostname)...)
	pods = append(pods, g.affinity(n, corev1.LabelTopologyZone)...)
	pods = append(pods, g.antiAffinity(n, corev1.LabelHostname)...)
	return append(pods, g.generic(count-len(pods))...)
}

func (g *generator) requests() corev1.ResourceRequirements {
	return corev1.ResourceRequirements{Requests: corev1.ResourceList{
		corev1.ResourceCPU:    g.cpu(),
		corev1.ResourceMemory: g.memory(),
	}}
}

func (g *generator) antiAffinity(count int, key string) []*corev1.Pod {
	var pods []*corev1.Pod
	labels := map[string]string{"app": "nginx"}
	for range count {
		pods = append(pods, g.pod(test.PodOptions{
			ObjectMeta: g.meta("anti", labels),
			PodAntiRequirements: []corev1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: labels},
				TopologyKey:   key,
			}},
			ResourceRequirements: g.requests(),
		}))
	}
	return pods
}

func (g *generator) affinity(count int, key string) []*corev1.Pod {
	var pods []*corev1.Pod
	for range count {
		labels := map[string]string{"my-affininity": g.value()}
		pods = append(pods, g.pod(test.PodOptions{
			ObjectMeta: g.meta("affinity", labels),
			PodRequirements: []corev1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: labels},
				TopologyKey:   key,
			}},
			ResourceRequirements: g.requests(),
		}))
	}
	return pods
}

func (g *generator) spread(count int, key string) []*corev1.Pod {
	var pods []*corev1.Pod
	for range count {
		meta := g.meta("spread", map[string]string{"my-label": g.value()})
		pods = append(pods, g.pod(test.PodOptions{
			ObjectMeta: meta,
			TopologySpreadConstraints: []corev1.TopologySpreadConstraint{{
				MaxSkew:           1,
				TopologyKey:       key,
				WhenUnsatisfiable: corev1.DoNotSchedule,
				LabelSelector:     &metav1.LabelSelector{MatchLabels: map[string]string{"my-label": g.value()}},
			}},
			ResourceRequirements: g.requests(),
		}))
	}
	return pods
}

func (g *generator) generic(count int) []*corev1.Pod {
	var pods []*corev1.Pod
	for range count {
		pods = append(pods, g.pod(test.PodOptions{
			ObjectMeta:           g.meta("generic", map[string]string{"my-label": g.value()}),
			ResourceRequirements: g.requests(),
		}))
	}
	return pods
}

// preferences is makePreferencePods(count): identical pods (one random size for all) that
// prefer test-zone-1, prefer (weight 10, unsatisfiable past three pods) zonal anti-affinity
// to each other and prefer (weight 1) hostname anti-affinity to each other.
func (g *generator) preferences(count int) []*corev1.Pod {
	labels := map[string]string{"app": "nginx"}
	opts := test.PodOptions{
		NodePreferences: []corev1.NodeSelectorRequirement{{
			Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"test-zone-1"},
		}},
		PodAntiPreferences: []corev1.WeightedPodAffinityTerm{
			{Weight: 10, PodAffinityTerm: corev1.PodAffinityTerm{
				LabelSelector: &metav1.LabelSelector{MatchLabels: labels}, TopologyKey: corev1.LabelTopologyZone,
			}},
			{Weight: 1, PodAffinityTerm: corev1.PodAffinityTerm{
				LabelSelector: &metav1.LabelSelector{MatchLabels: labels}, TopologyKey: corev1.LabelHostname,
			}},
		},
		ResourceRequirements: g.requests(),
	}
	var pods []*corev1.Pod
	for range count {
		o := opts
		o.ObjectMeta = g.meta("pref", labels)
		pods = append(pods, g.pod(o))
	}
	return pods
}

func (g *generator) value() string {
	values := []string{"a", "b", "c", "d", "e", "f", "g"}
	return values[g.r.IntN(len(values))]
}

func (g *generator) memory() resource.Quantity {
	mem := []int{100, 256, 512, 1024, 2048, 4096}
	return resource.MustParse(fmt.Sprintf("%dMi", mem[g.r.IntN(len(mem))]))
}

func (g *generator) cpu() resource.Quantity {
	cpu := []int{100, 250, 500, 1000, 1500}
	return resource.MustParse(fmt.Sprintf("%dm", cpu[g.r.IntN(len(cpu))]))
}
