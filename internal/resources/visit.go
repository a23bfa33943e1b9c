package resources

import corev1 "k8s.io/api/core/v1"

// VisitPodSpec calls visit with every resource list of a pod spec that names a resource:
// each init and regular container's requests and limits, the overhead and the pod-level
// requests. Collecting dimensions walks pods this way, so a pod's vector always has a
// dimension for each resource it asks for.
func VisitPodSpec(spec *corev1.PodSpec, visit func(corev1.ResourceList)) {
	for _, cs := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for i := range cs {
			visit(cs[i].Resources.Requests)
			visit(cs[i].Resources.Limits)
		}
	}
	visit(spec.Overhead)
	if spec.Resources != nil {
		visit(spec.Resources.Requests)
	}
}

// NamesAll reports whether NewDims over lists naming only the dimensions marked in named
// (indexed like d) would give d again: the fixed dimensions are always there and the others
// follow sorted, so it does exactly when every other dimension is marked.
func (d *Dims) NamesAll(named []bool) bool {
	for i := fixed; i < len(d.names); i++ {
		if !named[i] {
			return false
		}
	}
	return true
}
