package resources

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	resourcehelper "k8s.io/component-helpers/resource"
)

// CheckPod refuses requests, limits and overhead too large for milli-unit vectors,
// alone or summed over the containers.
func CheckPod(spec *corev1.PodSpec) error {
	lists := []corev1.ResourceList{spec.Overhead}
	if spec.Resources != nil {
		lists = append(lists, spec.Resources.Requests, spec.Resources.Limits)
	}
	var sums []corev1.ResourceList
	for _, cs := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for i := range cs {
			lists = append(lists, cs[i].Resources.Requests, cs[i].Resources.Limits)
		}
	}
	for i := range spec.Containers {
		sums = append(sums, spec.Containers[i].Resources.Requests)
	}
	for _, l := range lists {
		if name, err := CheckList(l); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	if len(sums) < 2 && len(spec.Overhead) == 0 {
		return nil // one list alone is bounded above
	}
	if name, ok := CheckSum(append(sums, spec.Overhead)...); !ok {
		return fmt.Errorf("the containers' %s requests add up to more than 4e15", name)
	}
	return nil
}

// PodRequests returns what a pod uses of a node, kube-scheduler's way, plus one pod. Pods
// with only regular containers and no overhead or pod-level resources (nearly all) are summed
// directly; the rest go through component-helpers' PodRequests for init containers,
// sidecars, overhead and pod-level resources. A container's limit stands for its missing
// request, as the API server defaults it on every pod it admits (a DaemonSet's template is
// not defaulted, its pods are).
func PodRequests(pod *corev1.Pod, dims *Dims) (Vector, error) {
	v := make(Vector, dims.Len())
	simple := len(pod.Spec.InitContainers) == 0 && pod.Spec.Overhead == nil && pod.Spec.Resources == nil
	if simple {
		for i := range pod.Spec.Containers {
			r := &pod.Spec.Containers[i].Resources
			for name, q := range r.Requests {
				if idx, ok := dims.Index(name); ok {
					v[idx] += q.MilliValue()
				}
			}
			for name, q := range r.Limits {
				if _, requested := r.Requests[name]; requested {
					continue
				}
				if idx, ok := dims.Index(name); ok {
					v[idx] += q.MilliValue()
				}
			}
		}
	} else {
		dims.Fill(v, resourcehelper.PodRequests(WithDefaultRequests(pod), resourcehelper.PodResourcesOptions{}))
	}
	for i, x := range v {
		if x < 0 {
			q := Quantity(dims.Name(i), x)
			return nil, fmt.Errorf("request %s is negative (%s)", dims.Name(i), q.String())
		}
	}
	v[Pods] += 1000
	return v, nil
}

// WithDefaultRequests returns pod, or a copy whose containers request what they only limit.
func WithDefaultRequests(pod *corev1.Pod) *corev1.Pod {
	needs := func(cs []corev1.Container) bool {
		for i := range cs {
			for name := range cs[i].Resources.Limits {
				if _, ok := cs[i].Resources.Requests[name]; !ok {
					return true
				}
			}
		}
		return false
	}
	if !needs(pod.Spec.InitContainers) && !needs(pod.Spec.Containers) {
		return pod
	}
	out := pod.DeepCopy()
	for _, cs := range [][]corev1.Container{out.Spec.InitContainers, out.Spec.Containers} {
		for i := range cs {
			r := &cs[i].Resources
			for name, q := range r.Limits {
				if _, ok := r.Requests[name]; !ok {
					if r.Requests == nil {
						r.Requests = corev1.ResourceList{}
					}
					r.Requests[name] = q
				}
			}
		}
	}
	return out
}
