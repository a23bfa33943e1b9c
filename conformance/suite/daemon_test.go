package suite

import (
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/conformance/workload"
	"github.com/nodeplan/nodeplan/scheduling"
)

// A DaemonSet in the workload's own namespace whose pods a zone spread selects: every new node
// runs one of its pods, which the spread counts. Six big pods pinned to the first zone bring six
// nodes, hence six agent pods, there; the three spread pods must go to the other zones and leave
// the skew within 1 counting the agents.
func TestDaemonSetCountedBySpread(t *testing.T) {
	in := scheduling.Input{
		NodePools: []*scheduling.NodePool{{Name: "default", InstanceTypes: workload.FakeCatalog(8)}},
		DaemonSets: []*appsv1.DaemonSet{{
			ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: corev1.NamespaceDefault, UID: "ds-agent"},
			Spec: appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"team": "a"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "agent", Resources: requests("100m")}}},
			}},
		}},
	}
	for i := range 6 {
		in.Pods = append(in.Pods, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("big-%d", i), Namespace: corev1.NamespaceDefault},
			Spec: corev1.PodSpec{
				NodeSelector: map[string]string{corev1.LabelTopologyZone: workload.Zones[0]},
				Containers:   []corev1.Container{{Name: "app", Resources: requests("7")}},
			},
		})
	}
	for i := range 3 {
		in.Pods = append(in.Pods, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("web-%d", i), Namespace: corev1.NamespaceDefault, Labels: map[string]string{"team": "a"}},
			Spec: corev1.PodSpec{
				Containers: []corev1.Container{{Name: "app", Resources: requests("100m")}},
				TopologySpreadConstraints: []corev1.TopologySpreadConstraint{{
					MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule,
					LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}},
				}},
			},
		})
	}
	plan := requireValid(t, in)
	require.Equal(t, len(in.Pods), plan.Summary.Placed+len(plan.Unschedulable))
}

func requests(cpu string) corev1.ResourceRequirements {
	return corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}
}
