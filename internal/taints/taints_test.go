package taints

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestFirstUntolerated(t *testing.T) {
	soft := corev1.Taint{Key: "spot", Effect: corev1.TaintEffectPreferNoSchedule}
	hard := corev1.Taint{Key: "gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule}
	tolerateGPU := []corev1.Toleration{{Key: "gpu", Operator: corev1.TolerationOpEqual, Value: "true", Effect: corev1.TaintEffectNoSchedule}}
	tests := []struct {
		name        string
		tolerations []corev1.Toleration
		taints      []corev1.Taint
		soft        bool
		want        string // key of the taint reported, "" for none
	}{
		{"no taints", nil, nil, false, ""},
		{"a hard taint not tolerated", nil, []corev1.Taint{hard}, false, "gpu"},
		{"a hard taint tolerated", tolerateGPU, []corev1.Taint{hard}, false, ""},
		{"a soft taint counts unless passed over", tolerateGPU, []corev1.Taint{hard, soft}, false, "spot"},
		{"a soft taint passed over", tolerateGPU, []corev1.Taint{soft, hard}, true, ""},
		{"the first untolerated in the node's order", nil, []corev1.Taint{soft, hard}, false, "spot"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, bad := FirstUntolerated(tc.tolerations, tc.taints, tc.soft)
			if bad != (tc.want != "") || got.Key != tc.want {
				t.Errorf("got %q (%v), want %q", got.Key, bad, tc.want)
			}
		})
	}
}

func TestWithoutAndString(t *testing.T) {
	notReady := corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}
	gpu := corev1.Taint{Key: "gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule}
	gpuExec := corev1.Taint{Key: "gpu", Value: "false", Effect: corev1.TaintEffectNoExecute}
	cases := []struct {
		name      string
		got, want []corev1.Taint
	}{
		{"ephemeral dropped while starting", Starting([]corev1.Taint{notReady, gpu}, false), []corev1.Taint{gpu}},
		{"kept once initialized", Starting([]corev1.Taint{notReady, gpu}, true), []corev1.Taint{notReady, gpu}},
		{"key and effect match, value ignored", Without([]corev1.Taint{gpu, gpuExec}, []corev1.Taint{{Key: "gpu", Effect: corev1.TaintEffectNoSchedule}}), []corev1.Taint{gpuExec}},
		{"none left is nil", Without([]corev1.Taint{notReady}, []corev1.Taint{notReady}), nil},
		{"copy of none is nil", Copy([]corev1.Taint{}), nil},
	}
	for _, c := range cases {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
	if s := String(gpu); s != "gpu=true:NoSchedule" {
		t.Errorf("String(gpu) = %q", s)
	}
	if s := String(notReady); s != "node.kubernetes.io/not-ready:NoSchedule" {
		t.Errorf("String(notReady) = %q", s)
	}
}
