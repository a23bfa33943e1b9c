package scheduling_test

import (
	"regexp"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

var longExponent = regexp.MustCompile(`[eE][+-]?[0-9]{4}`)

// FuzzSolve feeds pods with arbitrary selector keys and values, operators, topology keys,
// skews, tolerations, ports and quantities to Solve: it must never panic, and every pod must be
// accounted for exactly once.
func FuzzSolve(f *testing.F) {
	f.Add("kubernetes.io/arch", "amd64", "In", "topology.kubernetes.io/zone", int32(1), "500m", int32(8080), "team")
	f.Add("", "", "Gt", "", int32(0), "-1", int32(-1), "")
	f.Add("karpenter.sh/nodepool", "x y", "Lte", "kubernetes.io/hostname", int32(-3), "1e30", int32(70000), "::")
	f.Fuzz(func(t *testing.T, key, value, op, topoKey string, skew int32, cpu string, port int32, tolKey string) {
		pods := tb.Pod("a").Label("app", "a").Replicas(3)
		// The API machinery takes hours to parse an exponent of billions (manifests refuse
		// them before it does); such text is left out here.
		q := resource.MustParse("100m")
		if !longExponent.MatchString(cpu) {
			if parsed, err := resource.ParseQuantity(cpu); err == nil {
				q = parsed
			}
		}
		for i, p := range pods {
			p.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = q
			p.Spec.NodeSelector = map[string]string{key: value}
			p.Spec.Affinity = &corev1.Affinity{
				NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
					NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: key, Operator: corev1.NodeSelectorOperator(op), Values: []string{value}}}}},
				}},
				PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
					TopologyKey: topoKey, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": value}}}}},
			}
			if i == 1 {
				p.Spec.Affinity = nil
			}
			p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: skew, TopologyKey: topoKey, WhenUnsatisfiable: corev1.DoNotSchedule,
				LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOperator(op), Values: []string{value}}}}}}
			p.Spec.Tolerations = []corev1.Toleration{{Key: tolKey, Operator: corev1.TolerationOperator(op), Value: value}}
			p.Spec.Containers[0].Ports = []corev1.ContainerPort{{HostPort: port, HostIP: tolKey}}
		}
		plan, err := scheduling.Solve(scheduling.Input{Pods: pods, NodePools: threeZones()})
		if err != nil {
			t.Fatalf("pods' own problems must not fail the solve: %v", err)
		}
		seen := map[string]int{}
		for _, nc := range plan.NodeClaims {
			for _, p := range nc.Pods {
				seen[p]++
			}
		}
		for _, e := range plan.ExistingNodes {
			for _, p := range e.Pods {
				seen[p]++
			}
		}
		for _, u := range plan.Unschedulable {
			seen[u.Pod]++
		}
		if len(seen) != len(pods) {
			t.Fatalf("%d pods accounted for, want %d: %v", len(seen), len(pods), seen)
		}
		for p, n := range seen {
			if n != 1 {
				t.Fatalf("pod %s accounted for %d times", p, n)
			}
		}
	})
}
