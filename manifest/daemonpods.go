package manifest

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Labels the DaemonSet controller puts on its pods, which name a revision, not the template.
var daemonPodLabels = []string{"controller-revision-hash", "pod-template-generation"}

// fieldNodeName is the field the DaemonSet controller pins each pod to its node with.
const fieldNodeName = "metadata.name"

// daemonSetsFromPods stands in for the DaemonSets a snapshot (`kubectl get pods,nodes…`) lacks
// but whose pods it has: each gets the template of its first pod in input order, without the
// node the controller bound that pod to (spec.nodeName and the metadata.name node-affinity
// field), so that new nodes are planned with its overhead. One warning names them.
func (s *builder) daemonSetsFromPods(entries []entry) {
	have := map[ownerKey]bool{}
	for _, ds := range s.b.DaemonSets {
		have[ownerKey{"DaemonSet", ds.Namespace, ds.Name}] = true
	}
	var made []string
	for _, e := range entries {
		p, ok := e.obj.(*corev1.Pod)
		if !ok || isFinished(p) {
			continue
		}
		for _, r := range controllerRefs(p.OwnerReferences) {
			key := ownerKey{r.Kind, p.Namespace, r.Name}
			if r.Kind != "DaemonSet" || have[key] {
				continue
			}
			have[key] = true
			s.b.DaemonSets = append(s.b.DaemonSets, daemonSetFromPod(p, r))
			made = append(made, fmt.Sprintf("%s/%s (from pod %s)", p.Namespace, r.Name, p.Name))
		}
	}
	if len(made) > 0 {
		s.d.warnf("%d DaemonSet(s) not in the input, each taken from one of its pods for the overhead on new nodes: %s", len(made), abbreviate(made))
	}
}

func daemonSetFromPod(p *corev1.Pod, ref metav1.OwnerReference) *appsv1.DaemonSet {
	labels := maps.Clone(p.Labels)
	for _, l := range daemonPodLabels {
		delete(labels, l)
	}
	spec := *p.Spec.DeepCopy()
	spec.NodeName = ""
	spec.Affinity = withoutNodeNameAffinity(spec.Affinity)
	return &appsv1.DaemonSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: metav1.ObjectMeta{Name: ref.Name, Namespace: p.Namespace, UID: ref.UID, Labels: maps.Clone(labels)},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: maps.Clone(labels)},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: maps.Clone(p.Annotations)},
				Spec:       spec,
			},
		},
	}
}

// withoutNodeNameAffinity removes the metadata.name fields the DaemonSet controller adds to
// the required node affinity, and whatever becomes empty by that.
func withoutNodeNameAffinity(a *corev1.Affinity) *corev1.Affinity {
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return a
	}
	req := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	var terms []corev1.NodeSelectorTerm
	for _, term := range req.NodeSelectorTerms {
		term.MatchFields = slices.DeleteFunc(term.MatchFields, func(r corev1.NodeSelectorRequirement) bool {
			return strings.EqualFold(r.Key, fieldNodeName)
		})
		if len(term.MatchFields) > 0 || len(term.MatchExpressions) > 0 {
			terms = append(terms, term)
		}
	}
	if len(terms) > 0 {
		req.NodeSelectorTerms = terms
		return a
	}
	a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = nil
	if len(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution) == 0 {
		a.NodeAffinity = nil
	}
	if a.NodeAffinity == nil && a.PodAffinity == nil && a.PodAntiAffinity == nil {
		return nil
	}
	return a
}
