package manifest

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/internal/resources"
)

// Annotations the API server and storage admission read.
const (
	AnnotationIsDefaultStorageClass = "storageclass.kubernetes.io/is-default-class"
	annotationBetaStorageClass      = "volume.beta.kubernetes.io/storage-class"
)

// defaultPodSpec applies the API server's defaults that matter for planning and validates the
// spec: at least one container; requests default to limits per container (init containers
// too) and at pod level; no negative quantity; no request above its limit. field is the
// spec's path in the document ("spec" or "spec.template.spec").
func defaultPodSpec(doc *document, field string, spec *corev1.PodSpec) error {
	if len(spec.Containers) == 0 {
		return doc.errorf(field+".containers", "a pod needs at least one container")
	}
	for i := range spec.InitContainers {
		if err := defaultResources(doc, resourcesField{field, "initContainers", i}, &spec.InitContainers[i].Resources); err != nil {
			return err
		}
	}
	for i := range spec.Containers {
		if err := defaultResources(doc, resourcesField{field, "containers", i}, &spec.Containers[i].Resources); err != nil {
			return err
		}
	}
	if spec.Resources != nil {
		if err := defaultResources(doc, resourcesField{spec: field}, spec.Resources); err != nil {
			return err
		}
	}
	if name, err := resources.CheckList(spec.Overhead); err != nil {
		return doc.errorf(joinKey(field+".overhead", string(name)), "%v", err)
	}
	// Each list passed CheckList: a sum of one list passes too.
	lists := min(1, len(spec.Overhead))
	for i := range spec.Containers {
		lists += min(1, len(spec.Containers[i].Resources.Requests))
	}
	if lists <= 1 {
		return nil
	}
	requests := make([]corev1.ResourceList, len(spec.Containers))
	for i := range spec.Containers {
		requests[i] = spec.Containers[i].Resources.Requests
	}
	if name, ok := resources.CheckSum(append(requests, spec.Overhead)...); !ok {
		return doc.errorf(field+".containers", "the containers' %s requests add up to more than 4e15", name)
	}
	return nil
}

// resourcesField is the path of a container's resources in a document, worked out only for a
// message: "spec.containers[2].resources", or "spec.resources" without list.
type resourcesField struct {
	spec, list string
	index      int
}

func (f resourcesField) String() string {
	if f.list == "" {
		return f.spec + ".resources"
	}
	return fmt.Sprintf("%s.%s[%d].resources", f.spec, f.list, f.index)
}

func defaultResources(doc *document, field resourcesField, r *corev1.ResourceRequirements) error {
	if name, err := resources.CheckList(r.Limits); err != nil {
		return doc.errorf(joinKey(field.String()+".limits", string(name)), "%v", err)
	}
	if name, err := resources.CheckList(r.Requests); err != nil {
		return doc.errorf(joinKey(field.String()+".requests", string(name)), "%v", err)
	}
	if resourcesValid(r) {
		// The common case: limits become the missing requests, in any order.
		for name, limit := range r.Limits {
			if _, ok := r.Requests[name]; !ok {
				if r.Requests == nil {
					r.Requests = corev1.ResourceList{}
				}
				r.Requests[name] = limit.DeepCopy()
			}
		}
		return nil
	}
	// Report the first problem in name order.
	for _, name := range slices.Sorted(maps.Keys(r.Limits)) {
		limit := r.Limits[name]
		if limit.Sign() < 0 {
			return doc.errorf(joinKey(field.String()+".limits", string(name)), "must not be negative, got %s", limit.String())
		}
		if _, ok := r.Requests[name]; !ok {
			if r.Requests == nil {
				r.Requests = corev1.ResourceList{}
			}
			r.Requests[name] = limit.DeepCopy()
		}
	}
	for _, name := range slices.Sorted(maps.Keys(r.Requests)) {
		request := r.Requests[name]
		if request.Sign() < 0 {
			return doc.errorf(joinKey(field.String()+".requests", string(name)), "must not be negative, got %s", request.String())
		}
		if limit, ok := r.Limits[name]; ok && request.Cmp(limit) > 0 {
			return doc.errorf(joinKey(field.String()+".requests", string(name)), "request %s is more than the limit %s", request.String(), limit.String())
		}
	}
	return nil
}

// resourcesValid reports whether no limit or request is negative and no request is above its
// limit (a request defaulted from its limit is neither).
func resourcesValid(r *corev1.ResourceRequirements) bool {
	for _, limit := range r.Limits {
		if limit.Sign() < 0 {
			return false
		}
	}
	for name, request := range r.Requests {
		if request.Sign() < 0 {
			return false
		}
		if limit, ok := r.Limits[name]; ok && request.Cmp(limit) > 0 {
			return false
		}
	}
	return true
}

// ephemeralClaims adds the claim each generic ephemeral volume of a pending pod creates
// ("<pod>-<volume>"), unless the input has it.
func (s *builder) ephemeralClaims() {
	b := s.b
	have := map[string]bool{}
	for _, c := range b.PersistentVolumeClaims {
		have[c.Namespace+"/"+c.Name] = true
	}
	for _, p := range b.Pods {
		for _, v := range p.Spec.Volumes {
			if v.Ephemeral == nil || v.Ephemeral.VolumeClaimTemplate == nil {
				continue
			}
			name := p.Name + "-" + v.Name
			if have[p.Namespace+"/"+name] {
				continue
			}
			have[p.Namespace+"/"+name] = true
			t := v.Ephemeral.VolumeClaimTemplate
			b.PersistentVolumeClaims = append(b.PersistentVolumeClaims, &corev1.PersistentVolumeClaim{
				TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"},
				ObjectMeta: metav1.ObjectMeta{
					Name:        name,
					Namespace:   p.Namespace,
					Labels:      maps.Clone(t.Labels),
					Annotations: maps.Clone(t.Annotations),
					OwnerReferences: []metav1.OwnerReference{{
						APIVersion: "v1", Kind: "Pod", Name: p.Name, UID: p.UID,
						Controller: boolPtr(true), BlockOwnerDeletion: boolPtr(true),
					}},
				},
				Spec:   *t.Spec.DeepCopy(),
				Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending},
			})
		}
	}
}

// defaultStorageClass gives claims without a class the default StorageClass, as the
// DefaultStorageClass admission plugin does: the class annotated is-default-class "true";
// with several, the newest (then the first by name).
func (s *builder) defaultStorageClass() {
	var def *storagev1.StorageClass
	for _, sc := range s.b.StorageClasses {
		if sc.Annotations[AnnotationIsDefaultStorageClass] != "true" && sc.Annotations["storageclass.beta.kubernetes.io/is-default-class"] != "true" {
			continue
		}
		if def == nil || sc.CreationTimestamp.After(def.CreationTimestamp.Time) ||
			(sc.CreationTimestamp.Equal(&def.CreationTimestamp) && strings.Compare(sc.Name, def.Name) < 0) {
			def = sc
		}
	}
	if def == nil {
		return
	}
	for _, c := range s.b.PersistentVolumeClaims {
		// A claim already bound to a volume passed admission long ago: it keeps no class.
		bound := c.Spec.VolumeName != "" || c.Status.Phase == corev1.ClaimBound
		if c.Spec.StorageClassName == nil && c.Annotations[annotationBetaStorageClass] == "" && !bound {
			name := def.Name
			c.Spec.StorageClassName = &name
		}
	}
}

func boolPtr(v bool) *bool { return &v }
