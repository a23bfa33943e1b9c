package karpentercmp

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/internal/karpenterload"
)

// TestKarpenterloadIsThisGenerator checks that internal/karpenterload, which the root
// module's benchmarks plan on, builds the very pods this package hands to Karpenter (built
// with Karpenter's test.Pod): for each seed and workload the same names, UIDs, labels,
// creation time, requests, affinity and topology spread, in the same order.
func TestKarpenterloadIsThisGenerator(t *testing.T) {
	for _, seed := range []uint64{1, 2} {
		for _, c := range []struct {
			name         string
			theirs, ours []*corev1.Pod
		}{
			{"diverse-1003", newGenerator(seed).diverse(1003), karpenterload.New(seed).Diverse(1003)},
			{"preferences-50", newGenerator(seed).preferences(50), karpenterload.New(seed).Preferences(50)},
		} {
			if len(c.ours) != len(c.theirs) {
				t.Fatalf("seed %d %s: %d pods, karpentercmp %d", seed, c.name, len(c.ours), len(c.theirs))
			}
			for i := range c.theirs {
				if d := cmp.Diff(schedulingView(c.theirs[i]), schedulingView(c.ours[i])); d != "" {
					t.Fatalf("seed %d %s pod %d (-karpentercmp +karpenterload):\n%s", seed, c.name, i, d)
				}
			}
		}
	}
}

// podView is what a scheduler reads of a generated pod: the container names Karpenter's
// test.Pod draws at random are left out.
type podView struct {
	Name, Namespace, UID string
	Labels               map[string]string
	Created              string
	Requests             corev1.ResourceList
	Affinity             *corev1.Affinity
	Spread               []corev1.TopologySpreadConstraint
	Image                string
}

func schedulingView(p *corev1.Pod) podView {
	v := podView{
		Name: p.Name, Namespace: p.Namespace, UID: string(p.UID), Labels: p.Labels,
		Created: p.CreationTimestamp.UTC().String(), Affinity: p.Spec.Affinity, Spread: p.Spec.TopologySpreadConstraints,
		Requests: p.Spec.Containers[0].Resources.Requests, Image: p.Spec.Containers[0].Image,
	}
	if len(p.Spec.Containers) != 1 || len(p.Spec.InitContainers) != 0 || p.Spec.NodeSelector != nil || p.Spec.Tolerations != nil {
		v.Image = "unexpected spec"
	}
	if r := p.Spec.Resources; r != nil && (len(r.Requests) != 0 || len(r.Limits) != 0) {
		v.Image = "unexpected pod-level resources"
	}
	return v
}
