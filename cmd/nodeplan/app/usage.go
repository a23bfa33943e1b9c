package app

import (
	"fmt"

	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	resourcehelper "k8s.io/component-helpers/resource"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
)

// usage adds up the requests of the pods on one node, to show how full it is.
type usage struct {
	cpuMilli, memory int64
}

func (u *usage) add(pod *corev1.Pod) {
	if pod == nil {
		return
	}
	req := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})
	u.cpuMilli += req.Cpu().MilliValue()
	u.memory += req.Memory().Value()
}

// daemons adds the pods the DaemonSets would run on a node with these labels and taints.
func (u *usage) daemons(dss []*appsv1.DaemonSet, labels map[string]string, taints []corev1.Taint) {
	for _, pod := range daemonPods(dss, labels, taints) {
		u.add(pod)
	}
}

// daemonPods are the pods the DaemonSets would run on a node with these labels and taints:
// those whose required node affinity matches and that tolerate its NoSchedule and NoExecute
// taints, as the DaemonSet controller decides. They are named after their DaemonSet.
func daemonPods(dss []*appsv1.DaemonSet, labels map[string]string, taints []corev1.Taint) []*corev1.Pod {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.NodeSpec{Taints: taints}}
	var out []*corev1.Pod
	for _, ds := range dss {
		if ds == nil {
			continue
		}
		pod := &corev1.Pod{ObjectMeta: *ds.Spec.Template.ObjectMeta.DeepCopy(), Spec: ds.Spec.Template.Spec}
		if ok, err := nodeaffinity.GetRequiredNodeAffinity(pod).Match(node); err != nil || !ok {
			continue
		}
		if _, bad := corev1helpers.FindMatchingUntoleratedTaint(logr.Discard(), taints, pod.Spec.Tolerations, hardTaint, false); bad {
			continue
		}
		pod.Namespace, pod.Name = ds.Namespace, ds.Name
		yes := true
		pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: ds.Name, Controller: &yes}}
		out = append(out, pod)
	}
	return out
}

func hardTaint(t *corev1.Taint) bool {
	return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
}

// percents formats the usage as shares of allocatable CPU and memory, "-" when unknown.
func (u usage) percents(allocatable corev1.ResourceList) (cpu, memory string) {
	return percent(u.cpuMilli, allocatable.Cpu().MilliValue()), percent(u.memory, allocatable.Memory().Value())
}

func percent(used, total int64) string {
	if total <= 0 {
		return "-"
	}
	return fmt.Sprintf("%d%%", (used*100+total/2)/total)
}
