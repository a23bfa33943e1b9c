package taints

import (
	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
)

var discard = logr.Discard()

// FirstUntolerated returns the first of taints the tolerations do not tolerate. With soft
// set, PreferNoSchedule taints are passed over: the pod may take a node despite them (a
// DaemonSet's pod, or a pod whose preferences are relaxed).
func FirstUntolerated(tolerations []corev1.Toleration, taints []corev1.Taint, soft bool) (corev1.Taint, bool) {
	for i := range taints {
		t := &taints[i]
		if t.Effect == corev1.TaintEffectPreferNoSchedule && soft {
			continue
		}
		if !corev1helpers.TolerationsTolerateTaint(discard, tolerations, t, false) {
			return *t, true
		}
	}
	return corev1.Taint{}, false
}
