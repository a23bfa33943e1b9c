package app

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func ownedPod(ns, name, kind, owner string, labels map[string]string) *corev1.Pod {
	yes := true
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels,
		OwnerReferences: []metav1.OwnerReference{{Kind: kind, Name: owner, Controller: &yes}}}}
}

// Snapshot pods name their ReplicaSet; deployment/NAME and replicaset/NAME both find them.
func TestResolveExplainTargetSnapshotPods(t *testing.T) {
	hash := map[string]string{"pod-template-hash": "5c7d9f8b6"}
	pending := []*corev1.Pod{
		ownedPod("shop", "web-5c7d9f8b6-k4m2x", "ReplicaSet", "web-5c7d9f8b6", hash),
		ownedPod("shop", "web-5c7d9f8b6-p9q8r", "ReplicaSet", "web-5c7d9f8b6", hash),
		ownedPod("shop", "solo", "", "", nil),
	}
	pending[2].OwnerReferences = nil
	bound := []*corev1.Pod{ownedPod("shop", "db-0", "StatefulSet", "db", nil)}

	for target, want := range map[string]string{
		"shop/deployment/web":            "shop/web-5c7d9f8b6-k4m2x",
		"shop/rs/web-5c7d9f8b6":          "shop/web-5c7d9f8b6-k4m2x",
		"shop/solo":                      "shop/solo",
		"shop/pod/solo":                  "shop/solo",
		"solo":                           "default/solo",
		"deployment/web-5c7d9f8b6-k4m2x": "", // no such Deployment in default
	} {
		key, _, err := resolveExplainTarget(pending, bound, target)
		if want == "" {
			require.Error(t, err, target)
			continue
		}
		require.NoError(t, err, target)
		require.Equal(t, want, key, target)
	}
	_, _, err := resolveExplainTarget(pending, bound, "shop/sts/db")
	require.EqualError(t, err, "--explain shop/sts/db: no pending pod of StatefulSet shop/db (its pod is already running; plan only places pending pods)")
	_, _, err = resolveExplainTarget(pending, bound, "deployment/web")
	require.EqualError(t, err, "--explain deployment/web: no pending pod of Deployment default/web (did you mean shop/deployment/web?)")
	_, _, err = resolveExplainTarget(pending, bound, "kube-system/ds/aws-node")
	require.ErrorContains(t, err, "a DaemonSet's pods are overhead on every node")
}
