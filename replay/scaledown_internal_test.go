package replay

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Among running pods of one workload, a scale-down takes the lowest
// controller.kubernetes.io/pod-deletion-cost first, as the ReplicaSet controller does (none,
// or one that is not a number, is 0; among equals here, the name that sorts last goes first);
// pods not on a node go before all of them.
func TestScaleDownOrderReadsPodDeletionCost(t *testing.T) {
	t0 := time.Date(2026, 1, 12, 9, 0, 0, 0, time.UTC)
	rec := func(name, cost, node string) *podRec {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}}
		if cost != "" {
			p.Annotations = map[string]string{"controller.kubernetes.io/pod-deletion-cost": cost}
		}
		r := &podRec{pod: p, key: "default/" + name, node: node, created: t0, since: t0, phase: podRunning}
		if node == "" {
			r.phase = podPending
		}
		return r
	}
	pods := []*podRec{
		rec("high", "100", "n1"),
		rec("none", "", "n1"),
		rec("bad", "not-a-number", "n1"),
		rec("low", "-5", "n1"),
		rec("pending", "1000", ""),
		rec("mid", "7", "n1"),
	}
	(&sim{}).scaleDownOrder(pods)
	var order []string
	for _, r := range pods {
		order = append(order, r.pod.Name)
	}
	require.Equal(t, []string{"pending", "low", "none", "bad", "mid", "high"}, order)
}
