package workloadcost

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/nodeplan/nodeplan/internal/resources"
)

// TestCostRequests expects costRequests to give the quantities resourcehelper.PodRequests
// gives with requests defaulted from limits, on plain pods (summed by hand) and on pods with
// init containers, overhead or pod-level resources (left to PodRequests).
func TestCostRequests(t *testing.T) {
	list := func(kv ...string) corev1.ResourceList {
		l := corev1.ResourceList{}
		for i := 0; i < len(kv); i += 2 {
			l[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
		}
		return l
	}
	ctr := func(requests, limits corev1.ResourceList) corev1.Container {
		return corev1.Container{Name: "c", Resources: corev1.ResourceRequirements{Requests: requests, Limits: limits}}
	}
	always := corev1.ContainerRestartPolicyAlways
	sidecar := ctr(list("cpu", "200m"), nil)
	sidecar.RestartPolicy = &always
	for name, spec := range map[string]corev1.PodSpec{
		"requests":                    {Containers: []corev1.Container{ctr(list("cpu", "500m", "memory", "1Gi"), nil), ctr(list("cpu", "1"), nil)}},
		"limits only":                 {Containers: []corev1.Container{ctr(nil, list("cpu", "2", "memory", "3Gi"))}},
		"a limit above a request":     {Containers: []corev1.Container{ctr(list("cpu", "1"), list("cpu", "2", "memory", "1Gi"))}},
		"sub-milli quantities":        {Containers: []corev1.Container{ctr(list("cpu", "0.5m", "memory", "1.5"), nil), ctr(list("cpu", "0.7m", "memory", "2.5"), nil)}},
		"mixed units":                 {Containers: []corev1.Container{ctr(list("cpu", "1500m", "memory", "1G"), nil), ctr(list("cpu", "0.25", "memory", "512Mi"), nil)}},
		"nothing requested":           {Containers: []corev1.Container{ctr(nil, nil)}},
		"no containers":               {},
		"init container":              {InitContainers: []corev1.Container{ctr(list("cpu", "3"), nil)}, Containers: []corev1.Container{ctr(list("cpu", "1"), nil)}},
		"sidecar":                     {InitContainers: []corev1.Container{sidecar}, Containers: []corev1.Container{ctr(list("cpu", "1"), nil)}},
		"overhead":                    {Overhead: list("cpu", "100m", "memory", "64Mi"), Containers: []corev1.Container{ctr(list("cpu", "1"), nil)}},
		"pod-level resources":         {Resources: &corev1.ResourceRequirements{Requests: list("cpu", "4")}, Containers: []corev1.Container{ctr(list("cpu", "1"), nil)}},
		"other resources alongside":   {Containers: []corev1.Container{ctr(list("cpu", "1", "nvidia.com/gpu", "1", "ephemeral-storage", "1Gi"), nil)}},
		"memory limit, cpu requested": {Containers: []corev1.Container{ctr(list("cpu", "250m"), list("memory", "700Mi"))}},
	} {
		t.Run(name, func(t *testing.T) {
			p := &corev1.Pod{Spec: spec}
			want := resourcehelper.PodRequests(resources.WithDefaultRequests(p), resourcehelper.PodResourcesOptions{})
			cpu, memory := costRequests(p)
			require.Equal(t, want.Cpu().MilliValue(), cpu.MilliValue(), "cpu")
			require.Equal(t, want.Memory().MilliValue(), memory.MilliValue(), "memory")
		})
	}
}
