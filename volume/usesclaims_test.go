package volume_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/volume"
)

// TestUsesClaims: persistentVolumeClaim and generic ephemeral volumes are backed by claims;
// a configMap or projected service-account token is not, nor is a pod without volumes.
func TestUsesClaims(t *testing.T) {
	withVolumes := func(sources ...corev1.VolumeSource) *corev1.Pod {
		pod := &corev1.Pod{}
		for _, src := range sources {
			pod.Spec.Volumes = append(pod.Spec.Volumes, corev1.Volume{Name: "v", VolumeSource: src})
		}
		return pod
	}
	configMap := corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{}}
	token := corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{}}
	pvc := corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}
	ephemeral := corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{}}
	for _, tc := range []struct {
		name string
		pod  *corev1.Pod
		want bool
	}{
		{"no volume", withVolumes(), false},
		{"a configMap and a token", withVolumes(configMap, token), false},
		{"a persistentVolumeClaim after a configMap", withVolumes(configMap, pvc), true},
		{"a generic ephemeral volume", withVolumes(ephemeral), true},
	} {
		require.Equal(t, tc.want, volume.UsesClaims(tc.pod), tc.name)
	}
}
