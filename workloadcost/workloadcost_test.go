package workloadcost_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/workloadcost"
)

func TestOf(t *testing.T) {
	tests := []struct {
		name string
		pod  *corev1.Pod
		want workloadcost.Workload
	}{
		{"no owner: the pod itself", tb.Pod("solo").Namespace("ops").Obj(), workloadcost.Workload{Namespace: "ops", Kind: "Pod", Name: "solo"}},
		{"a generated pod names its workload", tb.Pod("web-0").OwnedBy("Deployment", "web", true).Obj(), workloadcost.Workload{Namespace: "default", Kind: "Deployment", Name: "web"}},
		{"a Deployment's ReplicaSet counts as the Deployment", tb.Pod("web-7d9f8-abcde").Label("pod-template-hash", "7d9f8").OwnedBy("ReplicaSet", "web-7d9f8", true).Obj(),
			workloadcost.Workload{Namespace: "default", Kind: "Deployment", Name: "web"}},
		{"a ReplicaSet not named after the hash stays one", tb.Pod("rs-abcde").Label("pod-template-hash", "7d9f8").OwnedBy("ReplicaSet", "rs", true).Obj(),
			workloadcost.Workload{Namespace: "default", Kind: "ReplicaSet", Name: "rs"}},
		{"a ReplicaSet without the hash label stays one", tb.Pod("web-7d9f8-abcde").OwnedBy("ReplicaSet", "web-7d9f8", true).Obj(),
			workloadcost.Workload{Namespace: "default", Kind: "ReplicaSet", Name: "web-7d9f8"}},
		{"the controller reference wins", tb.Pod("db-0").Label("x", "y").OwnedBy("StatefulSet", "db", true).Obj(), workloadcost.Workload{Namespace: "default", Kind: "StatefulSet", Name: "db"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, workloadcost.Of(tt.pod))
		})
	}
	// With an owner that is not the controller first, the controller still counts.
	yes := true
	p := tb.Pod("x").OwnedBy("ConfigMap", "cfg", false).Obj()
	p.OwnerReferences = append(p.OwnerReferences, metav1.OwnerReference{Kind: "Job", Name: "batch", Controller: &yes})
	require.Equal(t, workloadcost.Workload{Namespace: "default", Kind: "Job", Name: "batch"}, workloadcost.Of(p))
}

// A node's price is split by cpu share + memory share of its allocatable; the shares add up
// to the plan's hourly cost.
