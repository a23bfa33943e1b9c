// Package workload generates the inputs the conformance tests check plans of: Karpenter's
// "diverse" scheduling benchmark workload, an instance-type catalog shaped like Karpenter's fake
// cloud provider, and randomized clusters with existing nodes, DaemonSets, taints, node
// selectors, volumes and host ports. Everything is deterministic from the *rand.Rand given.
//
//	r := rand.New(rand.NewPCG(1, 2))
//	in := workload.DiverseInput(r, 1000) // 1,000 pods, one NodePool over FakeCatalog(400)
//	plan, err := scheduling.Solve(in)
package workload

import (
	"fmt"
	"math/rand/v2"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/scheduling"
)

// Label is the label every diverse pod carries with a random value, and that every rule selects.
const Label = "my-label"

// labelValues are the values of Label, as in Karpenter's benchmark.
var labelValues = []string{"a", "b", "c", "d", "e", "f", "g"}

// Groups are the five equal groups of the diverse workload, in the order the pods are made.
var Groups = []string{"plain", "zone-spread", "host-spread", "zone-affinity", "host-anti"}

// Diverse returns count pods shaped like Karpenter's makeDiversePods: five equal groups (plain;
// zone topology spread, maxSkew 1, DoNotSchedule; the same over hostnames; required pod affinity
// over zones; required pod anti-affinity over hostnames), the remainder plain. Every pod has a
// random value of Label and every rule selects a random value of Label drawn independently of
// the pod's own, so rules select pods of other groups and pods with no rule, not only their own
// group (unlike Karpenter's benchmark, whose affinity group selects itself). Requests are
// Karpenter's: cpu one of 100m…1500m, memory one of 100Mi…4Gi. Pods are named
// <group>-<n> in namespace default.
func Diverse(r *rand.Rand, count int) []*corev1.Pod {
	per := count / len(Groups)
	var pods []*corev1.Pod
	for _, g := range Groups {
		for i := range per {
			pods = append(pods, DiversePod(r, g, fmt.Sprintf("%s-%d", g, i)))
		}
	}
	for i := per; len(pods) < count; i++ {
		pods = append(pods, DiversePod(r, Groups[0], fmt.Sprintf("%s-%d", Groups[0], i)))
	}
	return pods
}

// DiversePod returns one pod of a diverse group.
func DiversePod(r *rand.Rand, group, name string) *corev1.Pod {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:      name,
			Namespace: corev1.NamespaceDefault,
			Labels:    map[string]string{Label: randomValue(r), "group": group},
		},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name:  "app",
			Image: "registry.k8s.io/pause:3.10",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU:    RandomCPU(r),
				corev1.ResourceMemory: RandomMemory(r),
			}},
		}}},
	}
	selector := &metav1.LabelSelector{MatchLabels: map[string]string{Label: randomValue(r)}}
	switch group {
	case "plain":
	case "zone-spread", "host-spread":
		key := corev1.LabelTopologyZone
		if group == "host-spread" {
			key = corev1.LabelHostname
		}
		pod.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{
			MaxSkew: 1, TopologyKey: key, WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: selector,
		}}
	case "zone-affinity":
		pod.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				LabelSelector: selector, TopologyKey: corev1.LabelTopologyZone,
			}},
		}}
	case "host-anti":
		pod.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				LabelSelector: selector, TopologyKey: corev1.LabelHostname,
			}},
		}}
	default:
		panic("workload: unknown diverse group " + group)
	}
	return pod
}

// DiverseInput is the benchmark's setting: the diverse pods and one NodePool, with no
// requirements, over FakeCatalog(400).
func DiverseInput(r *rand.Rand, count int) scheduling.Input {
	return scheduling.Input{
		Pods:      Diverse(r, count),
		NodePools: []*scheduling.NodePool{{Name: "default", InstanceTypes: FakeCatalog(400)}},
	}
}

func randomValue(r *rand.Rand) string { return labelValues[r.IntN(len(labelValues))] }

// RandomCPU is one of Karpenter's benchmark cpu requests.
func RandomCPU(r *rand.Rand) resource.Quantity {
	cpu := []int{100, 250, 500, 1000, 1500}
	return resource.MustParse(fmt.Sprintf("%dm", cpu[r.IntN(len(cpu))]))
}

// RandomMemory is one of Karpenter's benchmark memory requests.
func RandomMemory(r *rand.Rand) resource.Quantity {
	mem := []int{100, 256, 512, 1024, 2048, 4096}
	return resource.MustParse(fmt.Sprintf("%dMi", mem[r.IntN(len(mem))]))
}
