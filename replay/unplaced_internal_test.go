package replay

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/disruption"
	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

// The replay applies its changes to the cluster only when something reads it, and counts the
// pods provisioning has not placed to know, in between, whether freed room reopens a batch.
// At every step of a replay with scale-ups and scale-downs, jobs, consolidation, a spot
// interruption and a node failure, the count is the cluster's pending pods.
func TestUnplacedCountIsTheClusters(t *testing.T) {
	t0 := time.Date(2026, 1, 12, 9, 0, 0, 0, time.UTC)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	podSpec := func(app, cpu string) corev1.PodTemplateSpec {
		return corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": app}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: app, Image: "nginx",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}}}},
		}
	}
	var events []Event
	for i, cpu := range []string{"500m", "1", "1500m"} {
		name := fmt.Sprintf("svc-%d", i)
		replicas := int32(4 + 2*i)
		d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
			Spec: appsv1.DeploymentSpec{Replicas: &replicas, Template: podSpec(name, cpu)}}
		events = append(events, Event{Time: at(time.Duration(i) * time.Minute), Type: Create, Kind: KindDeployment, Key: "default/" + name, Deployment: d, Source: "test"})
		for k := 1; k <= 8; k++ {
			events = append(events, Event{Time: at(time.Duration(k*5+i) * time.Minute), Type: Scale, Kind: KindDeployment,
				Key: "default/" + name, Replicas: int32(1 + (k*(i+3))%9), Source: "test"})
		}
	}
	for k := range 4 {
		n := int32(1 + k%3)
		j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("job-%d", k), Namespace: "default"},
			Spec: batchv1.JobSpec{Parallelism: &n, Completions: &n, Template: podSpec(fmt.Sprintf("job-%d", k), "1")}}
		events = append(events, Event{Time: at(time.Duration(3+k*7) * time.Minute), Type: Create, Kind: KindJob, Key: "default/" + j.Name, Job: j,
			Duration: time.Duration(3+k) * time.Minute, Source: "test"})
	}
	events = append(events,
		Event{Time: at(18*time.Minute + 30*time.Second), Type: Interrupt, Kind: KindNode, Key: "default-10", Source: "test"},
		Event{Time: at(26 * time.Minute), Type: Fail, Kind: KindNode, Key: "default-2", Source: "test"})
	slices.SortStableFunc(events, func(a, b Event) int { return a.Time.Compare(b.Time) })
	small := tb.Type("small", "2", "4Gi", 20).Offer("us-west-2a", "on-demand", 0.10).Obj()
	large := tb.Type("large", "8", "16Gi", 50).Offer("us-west-2a", "on-demand", 0.28).Obj()
	np := tb.NodePool("default", small, large).ConsolidateAfter(2 * time.Minute).Obj()
	np.Disruption.ConsolidationPolicy = scheduling.ConsolidationWhenEmptyOrUnderutilized
	start := disruption.Input{NodePools: []*scheduling.NodePool{np}, Now: t0}

	res, err := Run(start, events, Options{Until: at(90 * time.Minute), checkSteps: true})
	require.NoError(t, err)
	require.Empty(t, res.Warnings)
	kinds := map[string]int{}
	for _, d := range res.Decisions {
		kinds[d.Kind]++
	}
	require.Positive(t, kinds[DecisionDisrupt], "consolidation moved pods")
	require.Equal(t, 1, kinds[DecisionInterrupt])
	require.Equal(t, 1, kinds[DecisionFail])
	require.Positive(t, res.Summary.PodsEvicted)
}
