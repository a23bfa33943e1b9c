package requirements_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/requirements"
)

// AppendString renders a requirement as String does, fast path or not: instance-type classes
// and the solver's cache keys are built with it and must order and match as the renderings do.
func TestAppendStringIsString(t *testing.T) {
	two := 2
	for _, r := range []*requirements.Requirement{
		requirements.New("node.kubernetes.io/instance-type", corev1.NodeSelectorOpIn, "m5.large"),
		requirements.New("kubernetes.io/arch", corev1.NodeSelectorOpIn, "arm64", "amd64"),
		requirements.New("topology.kubernetes.io/zone", corev1.NodeSelectorOpIn, "zone-c", "zone-a", "zone-b", "zone-a"),
		requirements.New("karpenter.k8s.aws/instance-gpu-name", corev1.NodeSelectorOpDoesNotExist),
		requirements.New("example.com/odd", corev1.NodeSelectorOpIn, "a b", "", "c]"),
		requirements.New("example.com/empty", corev1.NodeSelectorOpIn),
		requirements.New("topology.kubernetes.io/zone", corev1.NodeSelectorOpNotIn, "zone-a", "zone-b"),
		requirements.New("karpenter.k8s.aws/instance-cpu", corev1.NodeSelectorOpGt, "4"),
		requirements.New("karpenter.k8s.aws/instance-cpu", corev1.NodeSelectorOpLt, "64"),
		requirements.New("example.com/any", corev1.NodeSelectorOpExists),
		requirements.NewWithMinValues("topology.kubernetes.io/zone", corev1.NodeSelectorOpIn, &two, "zone-a", "zone-b"),
		requirements.NewWithMinValues("node.kubernetes.io/instance-type", corev1.NodeSelectorOpIn, &two, "m5.large"),
	} {
		if got, want := string(r.AppendString([]byte("x|"))), "x|"+r.String(); got != want {
			t.Errorf("AppendString = %q, want %q", got, want)
		}
	}
}
