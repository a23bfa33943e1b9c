package manifest_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/nodeplan/nodeplan/manifest"
)

// A controller that holds informer caches passes what its listers return, typed built-ins
// (with the empty TypeMeta a cache leaves) and Karpenter's objects as Unstructured from a
// dynamic informer, without writing them to a file:
//
//	var objs []runtime.Object
//	pods, _ := podLister.List(labels.Everything())
//	for _, p := range pods {
//		objs = append(objs, p)
//	}
//	nodePools, _ := dynamicLister.List(labels.Everything()) // karpenter.sh/v1 nodepools
//	objs = append(objs, nodePools...)
//	b, err := manifest.FromObjects(objs)
//
// The objects in the caches are not changed.
func ExampleFromObjects() {
	pending := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web-0", Namespace: "shop"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name:      "app",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}},
		}}},
	}
	nodePool := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "karpenter.sh/v1",
		"kind":       "NodePool",
		"metadata":   map[string]any{"name": "general"},
		"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
			"nodeClassRef": map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
			"requirements": []any{map[string]any{"key": "karpenter.sh/capacity-type", "operator": "In", "values": []any{"spot"}}},
		}}},
	}}

	b, err := manifest.FromObjects([]runtime.Object{pending, nodePool})
	if err != nil {
		fmt.Println(err) // names the object: "object 2 (NodePool general): spec…"
		return
	}
	p := b.Pods[0]
	fmt.Println(p.Kind, p.Namespace+"/"+p.Name, p.Spec.Containers[0].Resources.Requests.Cpu())
	fmt.Println(b.NodePools[0].Name, b.NodePools[0].Disruption.ConsolidationPolicy)
	fmt.Println(pending.Kind == "")
	// Output:
	// Pod shop/web-0 2
	// general WhenEmptyOrUnderutilized
	// true
}
