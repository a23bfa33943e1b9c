package daemonset

import (
	"sort"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/hostport"
	"github.com/nodeplan/nodeplan/internal/resources"
	"github.com/nodeplan/nodeplan/internal/taints"
	"github.com/nodeplan/nodeplan/requirements"
)

// Template is a DaemonSet's pod template, prepared once: what its pod requests of a node,
// the node requirements it accepts and the host ports it binds.
type Template struct {
	// Name is namespace/name of the DaemonSet.
	Name string
	// Pod is the template as a pod of the DaemonSet's namespace.
	Pod          *corev1.Pod
	Requests     resources.Vector
	Alternatives []requirements.Requirements
	Ports        []hostport.Port
}

// Templates prepares DaemonSets, sorted by name. A DaemonSet that can run nowhere (its
// affinity is invalid) or asks for a negative amount is left out: it takes no room.
func Templates(dss []*appsv1.DaemonSet, dims *resources.Dims) []*Template {
	var out []*Template
	for _, ds := range dss {
		if ds == nil {
			continue
		}
		pod := &corev1.Pod{ObjectMeta: ds.Spec.Template.ObjectMeta, Spec: ds.Spec.Template.Spec}
		pod.Namespace = ds.Namespace
		alts, err := requirements.PodAlternatives(pod)
		if err != nil {
			continue
		}
		requests, err := resources.PodRequests(pod, dims)
		if err != nil {
			continue
		}
		out = append(out, &Template{Name: ds.Namespace + "/" + ds.Name, Pod: pod, Requests: requests, Alternatives: alts, Ports: hostport.OfPod(pod)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// RunsOn reports whether the daemon's pod would run on a node with these taints and
// requirements: it tolerates the taints and one of its alternatives is compatible.
// PreferNoSchedule taints do not keep a daemon away (the DaemonSet controller and
// kube-scheduler only filter on NoSchedule and NoExecute), so its pod counts there too.
func (d *Template) RunsOn(nodeTaints []corev1.Taint, reqs requirements.Requirements, allowUndefined func(string) bool) bool {
	if _, bad := taints.FirstUntolerated(d.Pod.Spec.Tolerations, nodeTaints, true); bad {
		return false
	}
	for _, alt := range d.Alternatives {
		if reqs.IsCompatible(alt, allowUndefined) {
			return true
		}
	}
	return false
}

// RunsOnNode reports whether the daemon's pod would run on an existing node with these
// taints and labels: it tolerates the NoSchedule and NoExecute taints and one of its
// alternatives matches the labels.
func (d *Template) RunsOnNode(nodeTaints []corev1.Taint, labels map[string]string) bool {
	if _, bad := taints.FirstUntolerated(d.Pod.Spec.Tolerations, nodeTaints, true); bad {
		return false
	}
	for _, alt := range d.Alternatives {
		if alt.Matches(labels) {
			return true
		}
	}
	return false
}

// Owns reports whether a DaemonSet owns the pod (an owner reference of kind DaemonSet): such a
// pod goes with its node and is never placed elsewhere.
func Owns(p *corev1.Pod) bool {
	for _, ref := range p.OwnerReferences {
		if ref.Kind == "DaemonSet" {
			return true
		}
	}
	return false
}
