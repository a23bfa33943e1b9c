// Package replaytrace generates the replay traces that replay's benchmarks and the
// conformance checks share: a day of a cluster on a diurnal curve, and the cluster it starts
// from.
package replaytrace

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/cmd/nodeplan/app"
	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/manifest"
	"github.com/nodeplan/nodeplan/replay"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduling"
)

// Deployments and Jobs of a Day.
const (
	Deployments = 50
	Jobs        = 200
)

// Day is a generated day of a cluster: Deployments on a diurnal curve (quiet 3 hours after
// the start, busiest 15 hours after it), scaled every 20 minutes, and Jobs through the day.
type Day struct {
	Events []replay.Event
	// Peak are the pods of every Deployment at its largest replica count.
	Peak []*corev1.Pod
}

// NewDay generates the day from start, with the replicas multiplied by times: at 1 there
// are about 3,500 events and 5,000 pods at the peak. The same arguments give the same day.
func NewDay(start time.Time, times int) Day {
	rng := rand.New(rand.NewPCG(19, 2026))
	// About half a cpu a pod on average: 5,000 pods fill about 150 nodes of 16 cpus.
	sizes := []struct{ cpu, memory string }{{"100m", "256Mi"}, {"250m", "512Mi"}, {"500m", "1Gi"}, {"500m", "2Gi"}, {"1", "2Gi"}, {"1", "4Gi"}}
	var day Day
	for i := range Deployments {
		size := sizes[rng.IntN(len(sizes))]
		peak := (40 + rng.IntN(120)) * times
		d := Deployment(fmt.Sprintf("svc-%02d", i), 0, size.cpu)
		d.Spec.Template.Spec.Containers[0].Resources.Requests[corev1.ResourceMemory] = resource.MustParse(size.memory)
		replicasAt := func(t time.Duration) int32 {
			phase := 2 * math.Pi * (t.Hours() - 15) / 24 // highest 15 h in, lowest 3 h in
			level := 0.55 + 0.45*math.Cos(phase)
			return int32(math.Round(float64(peak) * level))
		}
		first := replicasAt(0)
		d.Spec.Replicas = &first
		offset := time.Duration(rng.IntN(1200)) * time.Second
		day.Events = append(day.Events, event(start.Add(offset/20), replay.Create, replay.KindDeployment, d.Name, func(ev *replay.Event) { ev.Deployment = d }))
		last := first
		for t := offset; t < 24*time.Hour; t += 20 * time.Minute {
			if r := replicasAt(t); r != last {
				day.Events = append(day.Events, event(start.Add(t), replay.Scale, replay.KindDeployment, d.Name, func(ev *replay.Event) { ev.Replicas = r }))
				last = r
			}
		}
		for k := range peak {
			day.Peak = append(day.Peak, &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", d.Name, k), Namespace: d.Namespace, Labels: d.Spec.Template.Labels},
				Spec:       d.Spec.Template.Spec,
			})
		}
	}
	for i := range Jobs {
		size := sizes[rng.IntN(len(sizes))]
		j := Job(fmt.Sprintf("job-%03d", i), int32(1+rng.IntN(5)*times), size.cpu)
		at := start.Add(time.Duration(rng.IntN(23*3600)) * time.Second)
		runs := time.Duration(5+rng.IntN(55)) * time.Minute
		day.Events = append(day.Events, event(at, replay.Create, replay.KindJob, j.Name, func(ev *replay.Event) { ev.Job, ev.Duration = j, runs }))
	}
	slices.SortStableFunc(day.Events, func(a, b replay.Event) int { return a.Time.Compare(b.Time) })
	return day
}

// Until keeps the events before end.
func (d Day) Until(end time.Time) []replay.Event {
	var out []replay.Event
	for _, ev := range d.Events {
		if ev.Time.Before(end) {
			out = append(out, ev)
		}
	}
	return out
}

// Cluster is an empty cluster at start with one on-demand NodePool of c, m and r types from
// the embedded AWS catalog (us-west-2), consolidating underutilized nodes after 5 minutes.
func Cluster(start time.Time) (disruption.Input, error) {
	cat, err := app.LoadCatalog("aws", "us-west-2")
	if err != nil {
		return disruption.Input{}, fmt.Errorf("replaytrace: %w", err)
	}
	np := manifest.DefaultNodePool()
	np.InstanceTypes = cat.InstanceTypes
	five := 5 * time.Minute
	np.Disruption.ConsolidateAfter = &five
	np.Requirements = []scheduling.NodeSelectorRequirementWithMinValues{
		{NodeSelectorRequirement: corev1.NodeSelectorRequirement{Key: requirements.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: []string{"on-demand"}}},
		{NodeSelectorRequirement: corev1.NodeSelectorRequirement{Key: "karpenter.k8s.aws/instance-category", Operator: corev1.NodeSelectorOpIn, Values: []string{"c", "m", "r"}}},
	}
	return disruption.Input{NodePools: []*scheduling.NodePool{np}, Now: start}, nil
}

func event(at time.Time, typ replay.EventType, kind, name string, set func(*replay.Event)) replay.Event {
	ev := replay.Event{Time: at, Type: typ, Kind: kind, Key: "default/" + name, Source: "replaytrace"}
	set(&ev)
	return ev
}

// Template is a pod template of one nginx container asking for cpu, labelled app=<app>.
func Template(app, cpu string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": app}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: app, Image: "nginx",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}}}},
	}
}

// Deployment is a Deployment of Template(name, cpu) pods in namespace default.
func Deployment(name string, replicas int32, cpu string) *appsv1.Deployment {
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: appsv1.DeploymentSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: Template(name, cpu)},
	}
}

// Job is a Job of parallelism Template(name, cpu) pods at a time, as many completions.
func Job(name string, parallelism int32, cpu string) *batchv1.Job {
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec:       batchv1.JobSpec{Parallelism: &parallelism, Completions: &parallelism, Template: Template(name, cpu)},
	}
}
