package daemonset_test

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/daemonset"
	"github.com/nodeplan/nodeplan/internal/resources"
	"github.com/nodeplan/nodeplan/requirements"
)

// A log agent for arm64 nodes that tolerates the gpu taint: it runs on an arm64 node, gpu
// taint or not, and on no amd64 node.
func Example() {
	agent := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "logging", Name: "agent"},
		Spec: appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			NodeSelector: map[string]string{requirements.LabelArch: "arm64"},
			Tolerations:  []corev1.Toleration{{Key: "gpu", Operator: corev1.TolerationOpExists}},
			Containers: []corev1.Container{{Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse("100m"),
			}}}},
		}}},
	}
	dims := resources.NewDims()
	d := daemonset.Templates([]*appsv1.DaemonSet{agent}, dims)[0]
	gpu := []corev1.Taint{{Key: "gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule}}
	fmt.Println(d.Name, "requests", d.Requests[resources.CPU], "millicpu")
	fmt.Println("arm64 node with the gpu taint:", d.RunsOnNode(gpu, map[string]string{requirements.LabelArch: "arm64"}))
	fmt.Println("amd64 node:", d.RunsOnNode(nil, map[string]string{requirements.LabelArch: "amd64"}))
	// Output:
	// logging/agent requests 100 millicpu
	// arm64 node with the gpu taint: true
	// amd64 node: false
}
