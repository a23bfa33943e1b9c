package resources

import corev1 "k8s.io/api/core/v1"

// Covers reports whether every resource of the list is one of the dimensions ("nodes", a
// NodePool limit on the node count, is never one and needs none).
func (d *Dims) Covers(l corev1.ResourceList) bool {
	for name := range l {
		if _, ok := d.Index(name); !ok && name != "nodes" {
			return false
		}
	}
	return true
}

// CoversPods reports whether every resource the pods ask for (requests and limits of every
// container, overhead, pod-level requests) is one of the dimensions.
func (d *Dims) CoversPods(pods []*corev1.Pod) bool {
	for _, p := range pods {
		if p != nil && !d.CoversPod(p) {
			return false
		}
	}
	return true
}

// CoversPod is CoversPods for one pod.
func (d *Dims) CoversPod(p *corev1.Pod) bool {
	spec := &p.Spec
	if !d.Covers(spec.Overhead) || (spec.Resources != nil && !d.Covers(spec.Resources.Requests)) {
		return false
	}
	for _, cs := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for _, c := range cs {
			if !d.Covers(c.Resources.Requests) || !d.Covers(c.Resources.Limits) {
				return false
			}
		}
	}
	return true
}
