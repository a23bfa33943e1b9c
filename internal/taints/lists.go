package taints

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// ephemeral are the taints a starting node carries until it is ready; Karpenter expects them
// to go away and plans pods onto such nodes regardless (its KnownEphemeralTaints). Never
// modified.
var ephemeral = []corev1.Taint{
	{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule},
	{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoSchedule},
	{Key: "node.cloudprovider.kubernetes.io/uninitialized", Effect: corev1.TaintEffectNoSchedule},
	{Key: "karpenter.sh/unregistered", Effect: corev1.TaintEffectNoExecute},
}

// Starting returns a node's taints, without those a starting node carries until it is ready
// while it is not yet initialized.
func Starting(taints []corev1.Taint, initialized bool) []corev1.Taint {
	if initialized {
		return taints
	}
	return Without(taints, ephemeral)
}

// Without returns taints less those matching (key and effect) one of drop, in a new slice (nil
// when none is left).
func Without(taints, drop []corev1.Taint) []corev1.Taint {
	var out []corev1.Taint
	for i := range taints {
		matched := false
		for j := range drop {
			if drop[j].MatchTaint(&taints[i]) {
				matched = true
				break
			}
		}
		if !matched {
			out = append(out, taints[i])
		}
	}
	return out
}

// Copy returns a copy of taints, nil when there is none.
func Copy(taints []corev1.Taint) []corev1.Taint {
	if len(taints) == 0 {
		return nil
	}
	return append([]corev1.Taint(nil), taints...)
}

// String writes a taint as kubectl does: key=value:effect, or key:effect without a value.
func String(t corev1.Taint) string {
	if t.Value == "" {
		return fmt.Sprintf("%s:%s", t.Key, t.Effect)
	}
	return fmt.Sprintf("%s=%s:%s", t.Key, t.Value, t.Effect)
}
