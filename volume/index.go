package volume

import (
	"fmt"
	"maps"
	"slices"
	"sort"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/nodeplan/nodeplan/requirements"
)

// Annotations that mark a StorageClass as the cluster default; the beta one is still
// honoured by the API server's admission plugin.
const (
	AnnotationIsDefaultClass     = "storageclass.kubernetes.io/is-default-class"
	annotationBetaIsDefaultClass = "storageclass.beta.kubernetes.io/is-default-class"
)

// Index holds the cluster's volume objects, indexed once per solve. Every claim is resolved
// when the index is built, so ForPod only looks things up and combines them. An Index is
// never modified after NewIndex and is safe for concurrent use.
type Index struct {
	claims  map[string]*corev1.PersistentVolumeClaim // namespace/name
	pvs     map[string]*corev1.PersistentVolume
	classes map[string]*storagev1.StorageClass
	// defaultClass is the class unclassed claims get; nil when no class is marked default.
	defaultClass *storagev1.StorageClass
	// unboundPVs are the volumes a claim could still bind, by StorageClass, sorted by name.
	unboundPVs map[string][]*corev1.PersistentVolume
	// resolved holds, for every claim in the input, what it means for a node.
	resolved map[string]*resolvedClaim
	// users are the bound pods using each claim, sorted by node then pod.
	users map[string][]claimUser
	// attached are the unique claims each existing node's bound pods use, sorted by key.
	attached map[string][]Claim
}

// resolvedClaim is what one claim means for the node of a pod that uses it.
type resolvedClaim struct {
	claim Claim
	// name is the claim's name without namespace, for sentences.
	name string
	// alts are the node requirement sets the claim accepts, any one of which will do; nil
	// means anywhere.
	alts []requirements.Requirements
	// reason, when set, says why no node can use the claim now.
	reason string
}

// claimUser is a bound pod using a claim.
type claimUser struct {
	pod, node string
}

// NewIndex indexes the cluster's volume objects. boundPods are the pods that keep running
// (spec.nodeName set, not Succeeded or Failed); they tell which existing node already uses a
// claim and which claims count against each node's attach limits. Nil entries are skipped;
// an empty namespace means "default"; when two objects share a key the later one wins.
func NewIndex(claims []*corev1.PersistentVolumeClaim, pvs []*corev1.PersistentVolume, classes []*storagev1.StorageClass, boundPods []*corev1.Pod) *Index {
	ix := &Index{
		claims:     make(map[string]*corev1.PersistentVolumeClaim, len(claims)),
		pvs:        make(map[string]*corev1.PersistentVolume, len(pvs)),
		classes:    make(map[string]*storagev1.StorageClass, len(classes)),
		unboundPVs: map[string][]*corev1.PersistentVolume{},
		resolved:   make(map[string]*resolvedClaim, len(claims)),
		users:      map[string][]claimUser{},
		attached:   map[string][]Claim{},
	}
	for _, c := range claims {
		if c != nil {
			ix.claims[objectKey(c.Namespace, c.Name)] = c
		}
	}
	for _, pv := range pvs {
		if pv != nil {
			ix.pvs[pv.Name] = pv
		}
	}
	for _, sc := range classes {
		if sc != nil {
			ix.classes[sc.Name] = sc
		}
	}
	ix.defaultClass = defaultClass(ix.classes)
	for _, name := range sortedKeys(ix.pvs) {
		pv := ix.pvs[name]
		if ix.isUnbound(pv) {
			class := pvClass(pv)
			ix.unboundPVs[class] = append(ix.unboundPVs[class], pv)
		}
	}
	for key, c := range ix.claims {
		ix.resolved[key] = ix.resolveClaim(key, c)
	}
	ix.indexBoundPods(boundPods)
	return ix
}

// indexBoundPods records which existing nodes use which claims.
func (ix *Index) indexBoundPods(pods []*corev1.Pod) {
	perNode := map[string]map[string]Claim{}
	for _, pod := range pods {
		if pod == nil || len(pod.Spec.Volumes) == 0 || pod.Spec.NodeName == "" || pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
			continue
		}
		ns := namespaceOf(pod)
		podKey := objectKey(ns, pod.Name)
		for i := range pod.Spec.Volumes {
			v := &pod.Spec.Volumes[i]
			key, ok := claimKeyOf(pod, ns, v)
			if !ok {
				continue
			}
			ix.users[key] = append(ix.users[key], claimUser{pod: podKey, node: pod.Spec.NodeName})
			var claim Claim
			switch r := ix.resolved[key]; {
			case r != nil:
				claim = r.claim
			case v.Ephemeral != nil && v.Ephemeral.VolumeClaimTemplate != nil:
				claim = ix.resolveUnboundSpec(key, pod.Name+"-"+v.Name, v.Ephemeral.VolumeClaimTemplate.Annotations, &v.Ephemeral.VolumeClaimTemplate.Spec).claim
			default:
				continue // kube-scheduler does not count claims it cannot find on running pods
			}
			if perNode[pod.Spec.NodeName] == nil {
				perNode[pod.Spec.NodeName] = map[string]Claim{}
			}
			perNode[pod.Spec.NodeName][key] = claim
		}
	}
	for key, us := range ix.users {
		sort.Slice(us, func(i, j int) bool {
			if us[i].node != us[j].node {
				return us[i].node < us[j].node
			}
			return us[i].pod < us[j].pod
		})
		if r := ix.resolved[key]; r != nil {
			r.claim.InUseOn = us[0].node
		}
	}
	for node, byKey := range perNode {
		out := make([]Claim, 0, len(byKey))
		for _, k := range sortedKeys(byKey) {
			c := byKey[k]
			if r := ix.resolved[k]; r != nil {
				c.InUseOn = r.claim.InUseOn
			}
			out = append(out, c)
		}
		ix.attached[node] = out
	}
}

// resolveClaim works out what a PersistentVolumeClaim means for a node.
func (ix *Index) resolveClaim(key string, pvc *corev1.PersistentVolumeClaim) *resolvedClaim {
	switch {
	case pvc.DeletionTimestamp != nil:
		r := ix.newResolved(key, pvc.Name, pvc.Spec.AccessModes)
		r.reason = fmt.Sprintf("persistentvolumeclaim %s is being deleted", key)
		return r
	case pvc.Status.Phase == corev1.ClaimLost:
		r := ix.newResolved(key, pvc.Name, pvc.Spec.AccessModes)
		r.reason = fmt.Sprintf("persistentvolumeclaim %s is Lost: its persistentvolume %q no longer exists", key, pvc.Spec.VolumeName)
		return r
	case pvc.Spec.VolumeName != "":
		return ix.resolveBound(key, pvc)
	}
	return ix.resolveUnboundSpec(key, pvc.Name, pvc.Annotations, &pvc.Spec)
}

func (ix *Index) newResolved(key, name string, modes []corev1.PersistentVolumeAccessMode) *resolvedClaim {
	rwo, rwop := accessModes(modes)
	return &resolvedClaim{name: name, claim: Claim{Key: key, ReadWriteOnce: rwo, ReadWriteOncePod: rwop}}
}

// resolveBound reads the node constraints of the volume a claim is bound to.
func (ix *Index) resolveBound(key string, pvc *corev1.PersistentVolumeClaim) *resolvedClaim {
	r := ix.newResolved(key, pvc.Name, pvc.Spec.AccessModes)
	pv, ok := ix.pvs[pvc.Spec.VolumeName]
	if !ok {
		r.reason = fmt.Sprintf("persistentvolume %s (bound to persistentvolumeclaim %s) not found", pvc.Spec.VolumeName, key)
		return r
	}
	r.claim.Driver = driverOfPV(pv)
	if pv.DeletionTimestamp != nil {
		r.reason = fmt.Sprintf("persistentvolume %s (bound to persistentvolumeclaim %s) is being deleted", pv.Name, key)
		return r
	}
	r.alts, r.reason = pvAlternatives(pv)
	return r
}

// resolveUnboundSpec works out where a claim that is not bound yet could be provisioned or
// bound. It serves both real claims and the template of a generic ephemeral volume whose claim
// does not exist yet.
func (ix *Index) resolveUnboundSpec(key, name string, annotations map[string]string, spec *corev1.PersistentVolumeClaimSpec) *resolvedClaim {
	r := ix.newResolved(key, name, spec.AccessModes)
	className, set := claimClass(annotations, spec)
	if !set {
		if ix.defaultClass == nil {
			r.reason = fmt.Sprintf("persistentvolumeclaim %s is not bound yet, names no StorageClass and no StorageClass is marked default (%s: \"true\"), so it waits for a volume", key, AnnotationIsDefaultClass)
			return r
		}
		className = ix.defaultClass.Name
	}
	if className == "" {
		r.reason = fmt.Sprintf("persistentvolumeclaim %s is not bound yet and has no StorageClass (storageClassName \"\"), so it waits for an administrator to bind a volume", key)
		return r
	}
	class, ok := ix.classes[className]
	if !ok {
		r.reason = fmt.Sprintf("storageclass %s (of persistentvolumeclaim %s) not found", className, key)
		return r
	}
	r.claim.Driver = driverOfProvisioner(class.Provisioner)
	if class.VolumeBindingMode == nil || *class.VolumeBindingMode != storagev1.VolumeBindingWaitForFirstConsumer {
		r.reason = fmt.Sprintf("persistentvolumeclaim %s is not bound yet and storageclass %s binds immediately (volumeBindingMode Immediate), so the pod waits until its volume is provisioned", key, className)
		return r
	}
	if class.Provisioner == noProvisioner {
		ix.resolveStatic(r, className, spec)
		return r
	}
	r.alts = classAlternatives(class)
	return r
}

// resolveStatic handles a claim whose class provisions nothing (local volumes): it can only
// bind one of the existing unbound volumes that match it, so a node must suit one of those.
func (ix *Index) resolveStatic(r *resolvedClaim, className string, spec *corev1.PersistentVolumeClaimSpec) {
	var alts []requirements.Requirements
	for _, pv := range ix.unboundPVs[className] {
		if !staticMatch(r.claim.Key, spec, pv) {
			continue
		}
		pvAlts, reason := pvAlternatives(pv)
		if reason != "" {
			continue
		}
		if r.claim.Driver == "" {
			r.claim.Driver = driverOfPV(pv)
		}
		if len(pvAlts) == 0 {
			r.alts = nil // a matching volume usable anywhere
			return
		}
		alts = append(alts, pvAlts...)
	}
	if len(alts) == 0 {
		r.reason = fmt.Sprintf("persistentvolumeclaim %s is not bound yet and no available persistentvolume of storageclass %s matches it (the class has no provisioner, so only an existing volume can be bound)", r.claim.Key, className)
		return
	}
	r.alts = mergeAlternatives(alts)
}

// staticMatch reports whether an unbound volume could be bound to the claim: not reserved for
// another claim, large enough, offering the claim's access modes and volume mode, and matching
// its selector.
func staticMatch(claimKey string, spec *corev1.PersistentVolumeClaimSpec, pv *corev1.PersistentVolume) bool {
	if ref := pv.Spec.ClaimRef; ref != nil && objectKey(ref.Namespace, ref.Name) != claimKey {
		return false
	}
	if want, ok := spec.Resources.Requests[corev1.ResourceStorage]; ok {
		have := pv.Spec.Capacity[corev1.ResourceStorage]
		if have.Cmp(want) < 0 {
			return false
		}
	}
	for _, m := range spec.AccessModes {
		found := false
		for _, p := range pv.Spec.AccessModes {
			found = found || p == m
		}
		if !found {
			return false
		}
	}
	if volumeModeOf(spec.VolumeMode) != volumeModeOf(pv.Spec.VolumeMode) {
		return false
	}
	if spec.Selector != nil {
		sel, err := metav1.LabelSelectorAsSelector(spec.Selector)
		if err != nil || !sel.Matches(labels.Set(pv.Labels)) {
			return false
		}
	}
	return true
}

func volumeModeOf(m *corev1.PersistentVolumeMode) corev1.PersistentVolumeMode {
	if m == nil {
		return corev1.PersistentVolumeFilesystem
	}
	return *m
}

// isUnbound reports whether a volume could still be bound to a claim.
func (ix *Index) isUnbound(pv *corev1.PersistentVolume) bool {
	if pv.DeletionTimestamp != nil {
		return false
	}
	switch pv.Status.Phase {
	case corev1.VolumeBound, corev1.VolumeReleased, corev1.VolumeFailed:
		return false
	case corev1.VolumeAvailable:
		return true
	}
	// No status (a manifest): unbound unless the claim it names is bound to it.
	ref := pv.Spec.ClaimRef
	if ref == nil {
		return true
	}
	c, ok := ix.claims[objectKey(ref.Namespace, ref.Name)]
	return !ok || c.Spec.VolumeName != pv.Name
}

// claimClass returns the StorageClass a claim asks for and whether it asks at all: the beta
// annotation wins over spec.storageClassName, as in Kubernetes. "" set means "no class".
func claimClass(annotations map[string]string, spec *corev1.PersistentVolumeClaimSpec) (string, bool) {
	if c, ok := annotations[corev1.BetaStorageClassAnnotation]; ok {
		return c, true
	}
	if spec.StorageClassName != nil {
		return *spec.StorageClassName, true
	}
	return "", false
}

func pvClass(pv *corev1.PersistentVolume) string {
	if c, ok := pv.Annotations[corev1.BetaStorageClassAnnotation]; ok {
		return c
	}
	return pv.Spec.StorageClassName
}

// defaultClass picks the default StorageClass as the API server does: among classes annotated
// default, the newest by creation time, ties broken by name.
func defaultClass(classes map[string]*storagev1.StorageClass) *storagev1.StorageClass {
	var best *storagev1.StorageClass
	for _, name := range sortedKeys(classes) {
		sc := classes[name]
		if sc.Annotations[AnnotationIsDefaultClass] != "true" && sc.Annotations[annotationBetaIsDefaultClass] != "true" {
			continue
		}
		if best == nil || best.CreationTimestamp.Before(&sc.CreationTimestamp) {
			best = sc
		}
	}
	return best
}

// accessModes reports whether a claim is ReadWriteOnce (writable from one node only: it asks
// for ReadWriteOnce and for no mode that lets several nodes use it) and ReadWriteOncePod.
func accessModes(modes []corev1.PersistentVolumeAccessMode) (rwo, rwop bool) {
	many := false
	for _, m := range modes {
		switch m {
		case corev1.ReadWriteOnce:
			rwo = true
		case corev1.ReadWriteOncePod:
			rwop = true
		case corev1.ReadWriteMany, corev1.ReadOnlyMany:
			many = true
		}
	}
	return rwo && !many, rwop
}

// UsesClaims reports whether the pod has a volume backed by a claim (persistentVolumeClaim or
// generic ephemeral): the only volumes an Index reads, so a pod without one places alike
// whatever the claims, volumes and storage classes.
func UsesClaims(pod *corev1.Pod) bool {
	for i := range pod.Spec.Volumes {
		if _, ok := claimKeyOf(pod, "", &pod.Spec.Volumes[i]); ok {
			return true
		}
	}
	return false
}

// claimKeyOf returns the key of the claim behind a pod volume, if it uses one.
func claimKeyOf(pod *corev1.Pod, ns string, v *corev1.Volume) (string, bool) {
	switch {
	case v.PersistentVolumeClaim != nil:
		return objectKey(ns, v.PersistentVolumeClaim.ClaimName), true
	case v.Ephemeral != nil:
		return objectKey(ns, pod.Name+"-"+v.Name), true
	}
	return "", false
}

func namespaceOf(pod *corev1.Pod) string {
	if pod.Namespace == "" {
		return metav1.NamespaceDefault
	}
	return pod.Namespace
}

func objectKey(namespace, name string) string {
	if namespace == "" {
		namespace = metav1.NamespaceDefault
	}
	return namespace + "/" + name
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
