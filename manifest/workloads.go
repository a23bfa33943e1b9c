package manifest

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
)

// Labels the controllers put on the pods they create.
const (
	labelPodTemplateHash = "pod-template-hash"
	labelStatefulSetPod  = "statefulset.kubernetes.io/pod-name"
	labelPodIndex        = "apps.kubernetes.io/pod-index"
	labelJobName         = "batch.kubernetes.io/job-name"
	labelLegacyJobName   = "job-name"
)

type ownerKey struct{ kind, namespace, name string }

type ownedPod struct {
	pod *corev1.Pod
	uid types.UID // the owner's UID as the pod's reference gives it, "" when not given
}

// ownerIndex is what the input's own pods say about their workloads.
type ownerIndex struct {
	// active are the input's pods that a controller counts (not finished, not being deleted),
	// by controller.
	active map[ownerKey][]ownedPod
	// present are the names ("namespace/name") of the input's unfinished pods.
	present map[string]bool
	// used are pod names taken, by input pods or by pods generated so far.
	used map[string]bool
	// replicaSets in the input, by namespace/name.
	replicaSets map[ownerKey]*appsv1.ReplicaSet
}

func isFinished(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

// controllerRef returns the pod's controller reference; with none marked controller, all of
// its owner references count.
func controllerRefs(refs []metav1.OwnerReference) []metav1.OwnerReference {
	for _, r := range refs {
		if r.Controller != nil && *r.Controller {
			return []metav1.OwnerReference{r}
		}
	}
	return refs
}

func refersTo(uid types.UID, meta *metav1.ObjectMeta) bool {
	return uid == "" || meta.UID == "" || uid == meta.UID
}

func newOwnerIndex(entries []entry) *ownerIndex {
	idx := &ownerIndex{
		active:      map[ownerKey][]ownedPod{},
		present:     map[string]bool{},
		used:        map[string]bool{},
		replicaSets: map[ownerKey]*appsv1.ReplicaSet{},
	}
	for _, e := range entries {
		switch o := e.obj.(type) {
		case *corev1.Pod:
			idx.used[o.Namespace+"/"+o.Name] = true
			if isFinished(o) {
				continue
			}
			idx.present[o.Namespace+"/"+o.Name] = true
			if o.DeletionTimestamp != nil {
				continue
			}
			for _, r := range controllerRefs(o.OwnerReferences) {
				k := ownerKey{r.Kind, o.Namespace, r.Name}
				idx.active[k] = append(idx.active[k], ownedPod{pod: o, uid: r.UID})
			}
		case *appsv1.ReplicaSet:
			idx.replicaSets[ownerKey{"ReplicaSet", o.Namespace, o.Name}] = o
		}
	}
	return idx
}

// count is the number of active input pods a workload controls directly.
func (idx *ownerIndex) count(kind string, meta *metav1.ObjectMeta) int {
	n := 0
	for _, p := range idx.active[ownerKey{kind, meta.Namespace, meta.Name}] {
		if refersTo(p.uid, meta) {
			n++
		}
	}
	return n
}

// deploymentOf returns the Deployment in the input that controls a ReplicaSet, or nil.
func deploymentOf(rs *appsv1.ReplicaSet, deployments map[ownerKey]*appsv1.Deployment) *appsv1.Deployment {
	for _, r := range controllerRefs(rs.OwnerReferences) {
		if r.Kind != "Deployment" {
			continue
		}
		if d := deployments[ownerKey{"Deployment", rs.Namespace, r.Name}]; d != nil && refersTo(r.UID, &d.ObjectMeta) {
			return d
		}
	}
	return nil
}

// countDeployment is the number of active input pods of a Deployment: its own, those of its
// ReplicaSets in the input, and those of ReplicaSets not in the input that are recognisably
// its own (named <deployment>-<pod-template-hash>, pod labels matching its selector).
func (idx *ownerIndex) countDeployment(d *appsv1.Deployment, deployments map[ownerKey]*appsv1.Deployment) int {
	n := idx.count("Deployment", &d.ObjectMeta)
	sel := selectorOf(d.Spec.Selector, d.Spec.Template.Labels)
	for k, pods := range idx.active {
		if k.kind != "ReplicaSet" || k.namespace != d.Namespace {
			continue
		}
		if rs := idx.replicaSets[k]; rs != nil {
			if deploymentOf(rs, deployments) == d {
				n += idx.count("ReplicaSet", &rs.ObjectMeta)
			}
			continue
		}
		for _, p := range pods {
			hash := p.pod.Labels[labelPodTemplateHash]
			if hash != "" && k.name == d.Name+"-"+hash && sel.Matches(labels.Set(p.pod.Labels)) {
				n++
			}
		}
	}
	return n
}

func selectorOf(s *metav1.LabelSelector, templateLabels map[string]string) labels.Selector {
	if s == nil {
		return labels.SelectorFromSet(templateLabels)
	}
	sel, err := metav1.LabelSelectorAsSelector(s)
	if err != nil {
		return labels.Nothing()
	}
	return sel
}

// nextName returns "<base>-<k>" for the smallest k from *k on that no pod of the namespace
// has, and marks it used.
func (idx *ownerIndex) nextName(namespace, base string, k *int) string {
	for {
		name := base + "-" + strconv.Itoa(*k)
		*k++
		if !idx.used[namespace+"/"+name] {
			idx.used[namespace+"/"+name] = true
			return name
		}
	}
}

// pods sorts the input's pods into pending and bound, and adds the pods workloads still need,
// in input order.
func (s *builder) pods(entries []entry) {
	idx := newOwnerIndex(entries)
	deployments := map[ownerKey]*appsv1.Deployment{}
	for _, e := range entries {
		if d, ok := e.obj.(*appsv1.Deployment); ok {
			deployments[ownerKey{"Deployment", d.Namespace, d.Name}] = d
		}
	}
	claims := map[string]bool{}
	for _, c := range s.b.PersistentVolumeClaims {
		claims[c.Namespace+"/"+c.Name] = true
	}
	var finished, daemon []string
	b := s.b
	for _, e := range entries {
		switch o := e.obj.(type) {
		case *corev1.Pod:
			switch {
			case isFinished(o):
				finished = append(finished, o.Namespace+"/"+o.Name)
			case o.Spec.NodeName != "":
				b.BoundPods = append(b.BoundPods, o)
			case ownedBy(o, "DaemonSet"):
				daemon = append(daemon, o.Namespace+"/"+o.Name)
			default:
				b.Pods = append(b.Pods, o)
			}
		case *appsv1.Deployment:
			missing := int(replicas(o.Spec.Replicas)) - idx.countDeployment(o, deployments)
			s.expand(idx, "apps/v1", "Deployment", &o.ObjectMeta, &o.Spec.Template, missing)
		case *appsv1.ReplicaSet:
			if deploymentOf(o, deployments) != nil {
				continue // its Deployment counts its pods and adds the missing ones
			}
			missing := int(replicas(o.Spec.Replicas)) - idx.count("ReplicaSet", &o.ObjectMeta)
			s.expand(idx, "apps/v1", "ReplicaSet", &o.ObjectMeta, &o.Spec.Template, missing)
		case *corev1.ReplicationController:
			missing := int(replicas(o.Spec.Replicas)) - idx.count("ReplicationController", &o.ObjectMeta)
			s.expand(idx, "v1", "ReplicationController", &o.ObjectMeta, o.Spec.Template, missing)
		case *batchv1.Job:
			missing := jobPods(o) - idx.count("Job", &o.ObjectMeta)
			s.expand(idx, "batch/v1", "Job", &o.ObjectMeta, &o.Spec.Template, missing)
		case *appsv1.StatefulSet:
			s.expandStatefulSet(idx, o, claims)
		}
	}
	if len(finished) > 0 {
		s.d.warnf("ignored %d finished pod(s) (phase Succeeded or Failed): %s", len(finished), abbreviate(finished))
	}
	if len(daemon) > 0 {
		s.d.warnf("ignored %d pending DaemonSet pod(s): a DaemonSet's pods are per-node overhead, not pods to provision for: %s", len(daemon), abbreviate(daemon))
	}
}

func abbreviate(names []string) string {
	const show = 10
	if len(names) <= show {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:show], ", "), len(names)-show)
}

func ownedBy(p *corev1.Pod, kind string) bool {
	for _, r := range controllerRefs(p.OwnerReferences) {
		if r.Kind == kind {
			return true
		}
	}
	return false
}

// replicas applies the default of 1.
func replicas(r *int32) int32 {
	if r == nil {
		return 1
	}
	return *r
}

// jobPods is how many pods a Job runs at once: min(parallelism, remaining completions), with
// the API server's defaults (both 1 when both unset; parallelism 1 when unset). A Job without
// completions (a work queue) runs parallelism pods until one succeeds. A suspended or finished
// Job runs none.
func jobPods(j *batchv1.Job) int {
	if j.Spec.Suspend != nil && *j.Spec.Suspend {
		return 0
	}
	for _, c := range j.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return 0
		}
	}
	parallelism := int(replicas(j.Spec.Parallelism))
	if j.Spec.Completions == nil {
		if j.Spec.Parallelism == nil {
			return max(0, 1-int(j.Status.Succeeded))
		}
		if j.Status.Succeeded > 0 {
			return 0
		}
		return parallelism
	}
	remaining := max(0, int(*j.Spec.Completions)-int(j.Status.Succeeded))
	return min(parallelism, remaining)
}

func ownerRef(apiVersion, kind string, meta *metav1.ObjectMeta) metav1.OwnerReference {
	return metav1.OwnerReference{
		APIVersion: apiVersion, Kind: kind, Name: meta.Name, UID: meta.UID,
		Controller: boolPtr(true), BlockOwnerDeletion: boolPtr(true),
	}
}

// newPod is the pod a controller creates from a template. The pods of one workload share
// the template's labels, annotations and spec parts (containers, volumes, affinity…): only
// their own fields are theirs. Whoever changes a shared part copies it first.
func newPod(pod *corev1.Pod, name string, meta *metav1.ObjectMeta, tmpl *corev1.PodTemplateSpec, refs []metav1.OwnerReference) *corev1.Pod {
	*pod = corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Name:            name,
			Namespace:       meta.Namespace,
			Labels:          tmpl.Labels,
			Annotations:     tmpl.Annotations,
			OwnerReferences: refs,
		},
		Spec:   tmpl.Spec,
		Status: corev1.PodStatus{Phase: corev1.PodPending},
	}
	return pod
}

// expand adds n pending pods of a workload, named <workload>-<k> with the smallest free k.
func (s *builder) expand(idx *ownerIndex, apiVersion, kind string, meta *metav1.ObjectMeta, tmpl *corev1.PodTemplateSpec, n int) {
	if n <= 0 {
		return
	}
	refs := []metav1.OwnerReference{ownerRef(apiVersion, kind, meta)}
	labels := tmpl.Labels
	if kind == "Job" {
		labels = maps.Clone(labels)
		if labels == nil {
			labels = map[string]string{}
		}
		for _, l := range []string{labelJobName, labelLegacyJobName} {
			if _, ok := labels[l]; !ok {
				labels[l] = meta.Name
			}
		}
	}
	pods := make([]corev1.Pod, n) // one allocation for the workload's pods
	k := 0
	for i := range pods {
		p := newPod(&pods[i], idx.nextName(meta.Namespace, meta.Name, &k), meta, tmpl, refs)
		p.Labels = labels
		s.b.Pods = append(s.b.Pods, p)
	}
}

// expandStatefulSet adds the pods of the ordinals the input has no pod for, each with its
// claims from volumeClaimTemplates (<template>-<statefulset>-<ordinal>), created unless given.
func (s *builder) expandStatefulSet(idx *ownerIndex, o *appsv1.StatefulSet, claims map[string]bool) {
	refs := []metav1.OwnerReference{ownerRef("apps/v1", "StatefulSet", &o.ObjectMeta)}
	start := 0
	if o.Spec.Ordinals != nil {
		start = int(o.Spec.Ordinals.Start)
	}
	for i := range int(replicas(o.Spec.Replicas)) {
		ordinal := strconv.Itoa(start + i)
		name := o.Name + "-" + ordinal
		if idx.present[o.Namespace+"/"+name] {
			continue
		}
		idx.used[o.Namespace+"/"+name] = true
		p := newPod(&corev1.Pod{}, name, &o.ObjectMeta, &o.Spec.Template, refs)
		p.Labels = maps.Clone(p.Labels)
		if p.Labels == nil {
			p.Labels = map[string]string{}
		}
		p.Labels[labelStatefulSetPod] = name
		p.Labels[labelPodIndex] = ordinal
		p.Spec.Hostname = name
		if o.Spec.ServiceName != "" {
			p.Spec.Subdomain = o.Spec.ServiceName
		}
		if len(o.Spec.VolumeClaimTemplates) > 0 {
			p.Spec.Volumes = slices.Clone(p.Spec.Volumes) // setClaimVolume changes them
		}
		for _, t := range o.Spec.VolumeClaimTemplates {
			claim := t.Name + "-" + name
			setClaimVolume(&p.Spec, t.Name, claim)
			if claims[o.Namespace+"/"+claim] {
				continue
			}
			claims[o.Namespace+"/"+claim] = true
			pvcLabels := maps.Clone(t.Labels)
			if o.Spec.Selector != nil && len(o.Spec.Selector.MatchLabels) > 0 {
				if pvcLabels == nil {
					pvcLabels = map[string]string{}
				}
				maps.Copy(pvcLabels, o.Spec.Selector.MatchLabels)
			}
			s.b.PersistentVolumeClaims = append(s.b.PersistentVolumeClaims, &corev1.PersistentVolumeClaim{
				TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"},
				ObjectMeta: metav1.ObjectMeta{
					Name:        claim,
					Namespace:   o.Namespace,
					Labels:      pvcLabels,
					Annotations: maps.Clone(t.Annotations),
				},
				Spec:   *t.Spec.DeepCopy(),
				Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending},
			})
		}
		s.b.Pods = append(s.b.Pods, p)
	}
}

// setClaimVolume makes the pod's volume named name refer to the claim, adding it when the
// template does not have it (the StatefulSet controller replaces a same-named volume).
func setClaimVolume(spec *corev1.PodSpec, name, claim string) {
	v := corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{
		PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim},
	}}
	for i := range spec.Volumes {
		if spec.Volumes[i].Name == name {
			spec.Volumes[i] = v
			return
		}
	}
	spec.Volumes = append(spec.Volumes, v)
}
