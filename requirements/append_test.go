package requirements_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/requirements"
)

// TestAppendStringIsString checks that AppendString renders requirements as String does, fast
// path or not.
func TestAppendStringIsString(t *testing.T) {
	two := 2
	for _, r := range []*requirements.Requirement{
		requirements.New("node.kubernetes.io/instance-type", corev1.NodeSelectorOpIn, "m5.large"),
		requirements.New("kubernetes.io/arch", corev1.NodeSelectorOpIn, "arm64", "amd64"),
		requirements.New("karpenter.k8s.aws/instance-gpu-name", corev1.NodeSelectorOpDoesNotExist),
		requirements.New("topology.kubernetes.io/zone", corev1.NodeSelectorOpNotIn, "zone-a", "zone-b"),
		requirements.New("karpenter.k8s.aws/instance-cpu", corev1.NodeSelectorOpGt, "4"),
		requirements.New("example.com/any", corev1.NodeSelectorOpExists),
		requirements.NewWithMinValues("node.kubernetes.io/instance-type", corev1.NodeSelectorOpIn, &two, "m5.large", "m5.xlarge"),
	} {
		if got, want := string(r.AppendString([]byte("x|"))), "x|"+r.String(); got != want {
			t.Errorf("AppendString = %q, want %q", got, want)
		}
	}
}
