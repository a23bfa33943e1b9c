package volume_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/volume"
)

func TestReadWriteOncePodConflicts(t *testing.T) {
	rwopClaims := claims(
		claim("solo").class("gp3").modes(corev1.ReadWriteOncePod),
		claim("other").class("gp3").modes(corev1.ReadWriteOncePod),
		claim("shared").class("gp3"),
	)
	tests := []struct {
		name    string
		bound   []*corev1.Pod
		pending []*podBuilder
		want    []*volume.Error
	}{
		{
			name:    "the first pending pod keeps the claim",
			pending: []*podBuilder{pod("a").claim("d", "solo"), pod("b").claim("d", "solo"), pod("c").claim("d", "solo")},
			want: []*volume.Error{
				{Pod: "default/b", Claims: []string{"default/solo"}, Reason: "persistentvolumeclaim default/solo is ReadWriteOncePod and pod default/a, planned first, uses it"},
				{Pod: "default/c", Claims: []string{"default/solo"}, Reason: "persistentvolumeclaim default/solo is ReadWriteOncePod and pod default/a, planned first, uses it"},
			},
		},
		{
			name:    "a running pod holds the claim",
			bound:   []*corev1.Pod{pod("old").claim("d", "solo").node("node-1").obj()},
			pending: []*podBuilder{pod("a").claim("d", "solo")},
			want: []*volume.Error{
				{Pod: "default/a", Claims: []string{"default/solo"}, Reason: "persistentvolumeclaim default/solo is ReadWriteOncePod and already used by pod default/old on node node-1"},
			},
		},
		{
			name:    "a pod being rescheduled does not conflict with itself",
			bound:   []*corev1.Pod{pod("a").claim("d", "solo").node("node-1").obj()},
			pending: []*podBuilder{pod("a").claim("d", "solo")},
		},
		{
			name:    "a losing pod does not take its other claims",
			pending: []*podBuilder{pod("a").claim("d", "solo"), pod("b").claim("d", "solo").claim("e", "other"), pod("c").claim("e", "other")},
			want: []*volume.Error{
				{Pod: "default/b", Claims: []string{"default/solo"}, Reason: "persistentvolumeclaim default/solo is ReadWriteOncePod and pod default/a, planned first, uses it"},
			},
		},
		{
			name:    "ReadWriteOnce claims are shared, not conflicts",
			pending: []*podBuilder{pod("a").claim("d", "shared"), pod("b").claim("d", "shared")},
		},
		{
			name:    "unknown claims are left to ForPod",
			pending: []*podBuilder{pod("a").claim("d", "nope"), pod("b").claim("d", "nope")},
		},
		{
			name:    "a pod naming its claim twice",
			pending: []*podBuilder{pod("a").claim("d", "solo").claim("e", "solo")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix := world{claims: rwopClaims, classes: classes(class("gp3")), bound: tt.bound}.index()
			var pending []*corev1.Pod
			for _, p := range tt.pending {
				pending = append(pending, p.obj())
			}
			require.Equal(t, tt.want, ix.ReadWriteOncePodConflicts(pending))
		})
	}
}
