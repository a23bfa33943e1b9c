package manifest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// FromObjects converts Kubernetes objects into a Bundle, as Load does with the same objects
// written to a file: API defaults, workload expansion, generated claims, the default
// StorageClass, sorting, and the same warnings and errors, which name an object by its
// position in objs ("object 3 (Pod default/web)"). It is the entry point of a program that
// holds objects rather than files: a controller with informer caches, or a client that
// listed them.
//
// Built-in kinds may be typed (*corev1.Pod, *appsv1.Deployment…, with or without TypeMeta,
// as a cache returns them) or *unstructured.Unstructured. Karpenter's kinds (NodePools,
// NodeClaims, EC2NodeClasses…) are read from their JSON, so any Go type that marshals to
// the object, Karpenter's own or Unstructured, will do, as long as it says its apiVersion
// and kind. Lists (*corev1.PodList, *unstructured.UnstructuredList…) give their items. The
// objects are not changed: those the Bundle keeps are copies.
func FromObjects(objs []runtime.Object) (*Bundle, error) {
	var w warnings
	var errs problems
	var docs []*document
	for i, obj := range objs {
		ds, err := objectDocuments(obj, i+1, 0, &w)
		docs = append(docs, ds...)
		errs.add(err)
	}
	return build(docs, &w, &errs)
}

// objectDocuments turns one object (or the item of a list) into the documents build reads:
// a typed built-in is decoded already; anything else is read from its JSON, as from a file.
func objectDocuments(obj runtime.Object, index, item int, w *warnings) ([]*document, error) {
	at := func() string { // worded only for an error
		if item > 0 {
			return fmt.Sprintf("object %d, item %d", index, item)
		}
		return fmt.Sprintf("object %d", index)
	}
	if v := reflect.ValueOf(obj); obj == nil || (v.Kind() == reflect.Pointer && v.IsNil()) {
		return nil, fmt.Errorf("%s: nil", at())
	}
	if gk, typed := typedCopy(obj); typed != nil {
		return []*document{typedDocument(gk, typed, index, item)}, nil
	}
	var raw []byte
	switch o := obj.(type) {
	case *runtime.Unknown: // an item of a typed List (v1.List) is its JSON
		raw = o.Raw
	case runtime.Unstructured: // read from its JSON, as a file's, lists included
	default:
		if item == 0 && meta.IsListType(obj) {
			items, err := meta.ExtractList(obj)
			if err != nil {
				return nil, fmt.Errorf("%s: %T: %w", at(), obj, err)
			}
			var docs []*document
			for i, it := range items {
				ds, err := objectDocuments(it, index, i+1, w)
				if err != nil {
					return nil, err
				}
				docs = append(docs, ds...)
			}
			return docs, nil
		}
	}
	if raw == nil {
		if obj.GetObjectKind().GroupVersionKind().Kind == "" {
			return nil, fmt.Errorf("%s: %T has no apiVersion and kind: set them (objects from a typed cache often have an empty TypeMeta)", at(), obj)
		}
		var err error
		if raw, err = json.Marshal(obj); err != nil {
			return nil, fmt.Errorf("%s: %T: %w", at(), obj, err)
		}
	}
	return expandDocument(&document{index: index, item: item, raw: raw}, w)
}

// typedDocument is the document of an object already decoded, named as a file's would be.
func typedDocument(gk groupKind, obj runtime.Object, index, item int) *document {
	m, _ := meta.Accessor(obj) // every typed built-in has ObjectMeta
	return &document{index: index, item: item, apiVersion: obj.GetObjectKind().GroupVersionKind().GroupVersion().String(), kind: gk.kind, namespace: m.GetNamespace(), name: m.GetName(), decoded: obj}
}

// typedCopy returns a copy of a typed built-in object with its TypeMeta set, and its kind;
// nil for any other object.
func typedCopy(obj runtime.Object) (groupKind, runtime.Object) {
	switch o := obj.(type) {
	case *corev1.Pod:
		return withKind(o.DeepCopy(), corev1.SchemeGroupVersion, "Pod")
	case *corev1.Node:
		return withKind(o.DeepCopy(), corev1.SchemeGroupVersion, "Node")
	case *corev1.Namespace:
		return withKind(o.DeepCopy(), corev1.SchemeGroupVersion, "Namespace")
	case *corev1.PersistentVolumeClaim:
		return withKind(o.DeepCopy(), corev1.SchemeGroupVersion, "PersistentVolumeClaim")
	case *corev1.PersistentVolume:
		return withKind(o.DeepCopy(), corev1.SchemeGroupVersion, "PersistentVolume")
	case *corev1.ReplicationController:
		return withKind(o.DeepCopy(), corev1.SchemeGroupVersion, "ReplicationController")
	case *appsv1.Deployment:
		return withKind(o.DeepCopy(), appsv1.SchemeGroupVersion, "Deployment")
	case *appsv1.ReplicaSet:
		return withKind(o.DeepCopy(), appsv1.SchemeGroupVersion, "ReplicaSet")
	case *appsv1.StatefulSet:
		return withKind(o.DeepCopy(), appsv1.SchemeGroupVersion, "StatefulSet")
	case *appsv1.DaemonSet:
		return withKind(o.DeepCopy(), appsv1.SchemeGroupVersion, "DaemonSet")
	case *batchv1.Job:
		return withKind(o.DeepCopy(), batchv1.SchemeGroupVersion, "Job")
	case *policyv1.PodDisruptionBudget:
		return withKind(o.DeepCopy(), policyv1.SchemeGroupVersion, "PodDisruptionBudget")
	case *storagev1.StorageClass:
		return withKind(o.DeepCopy(), storagev1.SchemeGroupVersion, "StorageClass")
	case *storagev1.CSINode:
		return withKind(o.DeepCopy(), storagev1.SchemeGroupVersion, "CSINode")
	}
	return groupKind{}, nil
}

// withKind sets an object's TypeMeta, which a typed cache leaves empty, as a file has it.
func withKind(obj runtime.Object, gv schema.GroupVersion, kind string) (groupKind, runtime.Object) {
	obj.GetObjectKind().SetGroupVersionKind(gv.WithKind(kind))
	return groupKind{gv.Group, kind}, obj
}

// Kinds returns the kinds nodeplan reads (group and kind, in any version it supports),
// sorted by group then kind: what a program listing a cluster's objects for FromObjects
// needs to list. Older groups of built-in kinds (extensions) are included.
func Kinds() []schema.GroupKind {
	out := make([]schema.GroupKind, 0, len(kinds))
	for gk := range kinds {
		out = append(out, schema.GroupKind{Group: gk.group, Kind: gk.kind})
	}
	slices.SortFunc(out, func(a, b schema.GroupKind) int {
		return cmp.Or(strings.Compare(a.Group, b.Group), strings.Compare(a.Kind, b.Kind))
	})
	return out
}
