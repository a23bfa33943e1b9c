package cluster

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/scheme"
)

func pod(namespace, name, node string) *corev1.Pod {
	return &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec:       corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "app"}}},
	}
}

// builtinMapper knows the built-in kinds only, as a cluster without Karpenter's CRDs.
func builtinMapper() meta.RESTMapper {
	var builtin []kind
	var versions []schema.GroupVersion
	for _, k := range kinds {
		if k.Group != "karpenter.sh" && k.Group != "karpenter.k8s.aws" {
			builtin = append(builtin, k)
			versions = append(versions, schema.GroupVersion{Group: k.Group, Version: "v1"})
		}
	}
	m := meta.NewDefaultRESTMapper(versions)
	for _, k := range builtin {
		scope := meta.RESTScopeNamespace
		switch k.Kind {
		case "Node", "Namespace", "PersistentVolume", "StorageClass", "CSINode":
			scope = meta.RESTScopeRoot
		}
		m.Add(schema.GroupVersionKind{Group: k.Group, Version: "v1", Kind: k.Kind}, scope)
	}
	return m
}

func TestReadNamespaceKeepsRunningPodsEverywhere(t *testing.T) {
	objs := []runtime.Object{
		pod("shop", "web-pending", ""),
		pod("shop", "web-running", "node-1"),
		pod("batch", "job-pending", ""),
		pod("batch", "job-running", "node-1"),
	}
	client := dynamicfake.NewSimpleDynamicClient(scheme.Scheme, objs...)
	var progress bytes.Buffer
	r := &Reader{Client: client, Mapper: builtinMapper(), Namespace: "shop", Progress: &progress}
	lists, err := r.Read(context.Background())
	require.NoError(t, err)
	var names []string
	for _, l := range lists {
		if l.Kind.Kind == "Pod" {
			for _, p := range l.Items {
				names = append(names, p.GetNamespace()+"/"+p.GetName())
			}
		}
	}
	require.ElementsMatch(t, []string{"shop/web-pending", "shop/web-running", "batch/job-running"}, names, progress.String())
	require.Contains(t, progress.String(), "kubectl nodeplan: skipped NodePool (karpenter.sh): not served by this cluster (its CRD is not installed)\n")
	require.Contains(t, progress.String(), "kubectl nodeplan: read 3 pods (v1, 1 page)\n")
}
