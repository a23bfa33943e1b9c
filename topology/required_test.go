package topology_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/topology"
)

// TestHasRequiredAffinity tells required pod affinity and anti-affinity apart, and from the
// preferred kinds, which do not count.
func TestHasRequiredAffinity(t *testing.T) {
	web := map[string]string{"app": "web"}
	for _, tc := range []struct {
		name                   string
		pod                    *corev1.Pod
		affinity, antiAffinity bool
	}{
		{"none", tb.Pod("p").Obj(), false, false},
		{"required affinity", tb.Pod("p").Affinity(corev1.LabelHostname, web).Obj(), true, false},
		{"required anti-affinity", tb.Pod("p").AntiAffinity(corev1.LabelHostname, web).Obj(), false, true},
		{"preferred both", tb.Pod("p").PreferredAffinity(1, corev1.LabelHostname, web).PreferredAntiAffinity(1, corev1.LabelHostname, web).Obj(), false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.affinity, topology.HasRequiredAffinity(tc.pod))
			require.Equal(t, tc.antiAffinity, topology.HasRequiredAntiAffinity(tc.pod))
		})
	}
}
