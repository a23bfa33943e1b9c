package manifest

import (
	"cmp"
	"fmt"
	"maps"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/instancetype/aws"
	"github.com/nodeplan/nodeplan/internal/parallel"
	"github.com/nodeplan/nodeplan/scheduling"
)

// entry is one decoded object with the document it came from.
type entry struct {
	doc *document
	obj any
}

// build decodes documents and turns them into a Bundle: API defaults, workload expansion,
// generated claims, default StorageClass, sorting.
func build(docs []*document, w *warnings, errs *problems) (*Bundle, error) {
	d := &decoder{warnings: w}
	b := &Bundle{}
	s := &builder{b: b, d: d, defined: map[string]*document{}}
	// Decoding is most of the work and each document's is its own: all CPUs decode, then the
	// objects are added in input order.
	type result struct {
		obj      any
		err      error
		warnings warnings
	}
	results := make([]result, len(docs))
	fast := newFastPods(docs)
	// Each worker checks Pods with a validator of its own (each remembers what it found
	// valid, which never changes a verdict).
	validators := make(chan *validator, runtime.GOMAXPROCS(0))
	for range cap(validators) {
		validators <- &validator{}
	}
	parallel.Each(len(docs), func(i int) {
		r := &results[i]
		r.obj, r.err = (&decoder{warnings: &r.warnings, fastPods: fast}).decode(docs[i])
		if pod, ok := r.obj.(*corev1.Pod); ok && r.err == nil {
			v := <-validators
			r.err = checkPod(v, docs[i], pod)
			validators <- v
		}
	})
	var entries []entry
	for i, doc := range docs {
		r := &results[i]
		w.merge(&r.warnings)
		err := r.err
		if err == nil && r.obj != nil {
			e := entry{doc: doc, obj: r.obj}
			if err = s.add(e); err == nil {
				entries = append(entries, e)
			}
		}
		errs.add(err)
		*r = result{}
	}
	if err := errs.err(); err != nil {
		return nil, err
	}
	s.pods(entries)
	s.daemonSetsFromPods(entries)
	s.ephemeralClaims()
	s.defaultStorageClass()
	s.namespaces()
	s.checkReferences()
	s.capacityReservationCounts()
	s.nodeClasses()
	s.sort()
	b.Warnings = d.warnings.result()
	return b, nil
}

type builder struct {
	b *Bundle
	d *decoder
	// defined maps "Kind namespace/name" to where it was defined, to report duplicates.
	defined map[string]*document
	// pools are the NodePools with their node class references, in input order.
	pools []*nodePoolObject
	// ec2Reservations are the aws ec2 describe-capacity-reservations outputs in the input.
	ec2Reservations []*ec2CapacityReservations
	// v checks values, remembering those found valid.
	v validator
}

// define checks an object's name and metadata, records the object and reports a second
// definition of the same one.
func (s *builder) define(doc *document, kind string, meta *metav1.ObjectMeta) error {
	if err := checkMetadata(&s.v, doc, kind, meta); err != nil {
		return err
	}
	return s.record(doc, kind, meta)
}

// checkMetadata names an object with only a generateName as the API server would (with the
// document's index for the random suffix), and checks its name and metadata.
func checkMetadata(v *validator, doc *document, kind string, meta *metav1.ObjectMeta) error {
	if meta.Name == "" {
		if meta.GenerateName == "" {
			return doc.errorf("metadata.name", "required")
		}
		meta.Name = meta.GenerateName + strconv.Itoa(doc.index)
		doc.name = meta.Name
	}
	if err := v.name(doc, kind, meta); err != nil {
		return err
	}
	return v.metadata(doc, "metadata", meta)
}

// record records an object whose metadata was checked and reports a second definition of the
// same one.
func (s *builder) record(doc *document, kind string, meta *metav1.ObjectMeta) error {
	key := kind + " " + meta.Namespace + "/" + meta.Name
	if first, ok := s.defined[key]; ok {
		return fmt.Errorf("%s: %s %s is already defined in %s", doc.where(), kind, first.qualifiedName(), first.where())
	}
	s.defined[key] = doc
	return nil
}

// checkPod defaults and checks a Pod on its own, as add does the other objects: a large input
// is mostly Pods, and this is most of the work of adding one, which only its record in the
// builder's definitions has to wait for.
func checkPod(v *validator, doc *document, p *corev1.Pod) error {
	namespaced(doc, &p.ObjectMeta)
	if err := defaultPodSpec(doc, "spec", &p.Spec); err != nil {
		return err
	}
	if err := v.podSpec(doc, "spec", &p.Spec); err != nil {
		return err
	}
	return checkMetadata(v, doc, "Pod", &p.ObjectMeta)
}

// namespaced defaults the namespace as the API server does and keeps the document in step.
func namespaced(doc *document, meta *metav1.ObjectMeta) {
	if meta.Namespace == "" {
		meta.Namespace = metav1.NamespaceDefault
	}
	doc.namespace = meta.Namespace
}

func (s *builder) add(e entry) error {
	doc, b := e.doc, s.b
	switch o := e.obj.(type) {
	case *corev1.Pod:
		return s.record(doc, "Pod", &o.ObjectMeta) // checked by checkPod
	case *appsv1.Deployment:
		if err := checkReplicas(doc, "spec.replicas", o.Spec.Replicas); err != nil {
			return err
		}
		return s.addWorkload(doc, "Deployment", &o.ObjectMeta, &o.Spec.Template)
	case *appsv1.ReplicaSet:
		if err := checkReplicas(doc, "spec.replicas", o.Spec.Replicas); err != nil {
			return err
		}
		return s.addWorkload(doc, "ReplicaSet", &o.ObjectMeta, &o.Spec.Template)
	case *appsv1.StatefulSet:
		if err := checkReplicas(doc, "spec.replicas", o.Spec.Replicas); err != nil {
			return err
		}
		for i := range o.Spec.VolumeClaimTemplates {
			if err := validateClaimSpec(doc, fmt.Sprintf("spec.volumeClaimTemplates[%d].spec", i), &o.Spec.VolumeClaimTemplates[i].Spec); err != nil {
				return err
			}
		}
		return s.addWorkload(doc, "StatefulSet", &o.ObjectMeta, &o.Spec.Template)
	case *corev1.ReplicationController:
		if err := checkReplicas(doc, "spec.replicas", o.Spec.Replicas); err != nil {
			return err
		}
		if o.Spec.Template == nil {
			return doc.errorf("spec.template", "required")
		}
		return s.addWorkload(doc, "ReplicationController", &o.ObjectMeta, o.Spec.Template)
	case *batchv1.Job:
		if err := checkReplicas(doc, "spec.parallelism", o.Spec.Parallelism); err != nil {
			return err
		}
		if err := checkReplicas(doc, "spec.completions", o.Spec.Completions); err != nil {
			return err
		}
		return s.addWorkload(doc, "Job", &o.ObjectMeta, &o.Spec.Template)
	case *appsv1.DaemonSet:
		if err := s.addWorkload(doc, "DaemonSet", &o.ObjectMeta, &o.Spec.Template); err != nil {
			return err
		}
		b.DaemonSets = append(b.DaemonSets, o)
	case *corev1.Node:
		if err := s.d.checkNodeResources(doc, o.Status.Capacity, o.Status.Allocatable); err != nil {
			return err
		}
		b.Nodes = append(b.Nodes, o)
		return s.define(doc, "Node", &o.ObjectMeta)
	case *corev1.Namespace:
		b.Namespaces = append(b.Namespaces, o)
		return s.define(doc, "Namespace", &o.ObjectMeta)
	case *corev1.PersistentVolumeClaim:
		namespaced(doc, &o.ObjectMeta)
		if err := validateClaimSpec(doc, "spec", &o.Spec); err != nil {
			return err
		}
		b.PersistentVolumeClaims = append(b.PersistentVolumeClaims, o)
		return s.define(doc, "PersistentVolumeClaim", &o.ObjectMeta)
	case *corev1.PersistentVolume:
		b.PersistentVolumes = append(b.PersistentVolumes, o)
		return s.define(doc, "PersistentVolume", &o.ObjectMeta)
	case *storagev1.StorageClass:
		b.StorageClasses = append(b.StorageClasses, o)
		return s.define(doc, "StorageClass", &o.ObjectMeta)
	case *storagev1.CSINode:
		b.CSINodes = append(b.CSINodes, o)
		return s.define(doc, "CSINode", &o.ObjectMeta)
	case *policyv1.PodDisruptionBudget:
		namespaced(doc, &o.ObjectMeta)
		if err := validatePDB(doc, o); err != nil {
			return err
		}
		b.PodDisruptionBudgets = append(b.PodDisruptionBudgets, o)
		return s.define(doc, "PodDisruptionBudget", &o.ObjectMeta)
	case *nodePoolObject:
		b.NodePools = append(b.NodePools, o.np)
		s.pools = append(s.pools, o)
		return s.define(doc, "NodePool", &metav1.ObjectMeta{Name: o.np.Name})
	case *aws.NodeClass:
		b.NodeClasses = append(b.NodeClasses, o)
		return s.define(doc, o.Kind, &metav1.ObjectMeta{Name: o.Name})
	case *instancetype.Overlay:
		b.NodeOverlays = append(b.NodeOverlays, o)
		return s.define(doc, "NodeOverlay", &metav1.ObjectMeta{Name: o.Name})
	case *NodeClaim:
		if err := s.d.checkNodeResources(doc, o.Capacity, o.Allocatable); err != nil {
			return err
		}
		b.NodeClaims = append(b.NodeClaims, o)
		return s.define(doc, "NodeClaim", &metav1.ObjectMeta{Name: o.Name})
	case *ec2CapacityReservations:
		s.ec2Reservations = append(s.ec2Reservations, o)
	default:
		return fmt.Errorf("%s: internal error: unhandled object %T", doc.where(), o)
	}
	return nil
}

// MaxPodsPerWorkload bounds the pods one workload may ask for, so that a typo in replicas
// is an error rather than millions of pods.
const MaxPodsPerWorkload = 100_000

func checkReplicas(doc *document, field string, n *int32) error {
	switch {
	case n == nil:
		return nil
	case *n < 0:
		return doc.errorf(field, "must not be negative, got %d", *n)
	case *n > MaxPodsPerWorkload:
		return doc.errorf(field, "%d is more pods than nodeplan plans for one workload (at most %d)", *n, MaxPodsPerWorkload)
	}
	return nil
}

func (s *builder) addWorkload(doc *document, kind string, meta *metav1.ObjectMeta, tmpl *corev1.PodTemplateSpec) error {
	namespaced(doc, meta)
	if err := s.v.metadata(doc, "spec.template.metadata", &tmpl.ObjectMeta); err != nil {
		return err
	}
	if err := defaultPodSpec(doc, "spec.template.spec", &tmpl.Spec); err != nil {
		return err
	}
	if err := s.v.podSpec(doc, "spec.template.spec", &tmpl.Spec); err != nil {
		return err
	}
	return s.define(doc, kind, meta)
}

// checkReferences warns about bound pods whose node is missing and NodeClaims nodeplan cannot
// use.
func (s *builder) checkReferences() {
	b := s.b
	nodes := map[string]bool{}
	providerIDs := map[string]bool{}
	for _, n := range b.Nodes {
		nodes[n.Name] = true
		if n.Spec.ProviderID != "" {
			providerIDs[n.Spec.ProviderID] = true
		}
	}
	missing := map[string]int{}
	for _, p := range b.BoundPods {
		if !nodes[p.Spec.NodeName] {
			missing[p.Spec.NodeName]++
		}
	}
	for _, name := range slices.Sorted(maps.Keys(missing)) {
		s.d.warnf("node %s is not in the input: its %d bound pod(s) are not on any existing node", name, missing[name])
	}
	for _, nc := range b.NodeClaims {
		if nodes[nc.NodeName] || (nc.ProviderID != "" && providerIDs[nc.ProviderID]) || nc.DeletionTimestamp != nil {
			continue
		}
		if len(nc.Allocatable) == 0 {
			s.d.warnf("NodeClaim %s has no Node in the input and no status.allocatable: it is not counted as an existing node", nc.Name)
		}
	}
}

func (s *builder) sort() {
	b := s.b
	byName := func(a, b metav1.Object) int {
		return cmp.Or(strings.Compare(a.GetNamespace(), b.GetNamespace()), strings.Compare(a.GetName(), b.GetName()))
	}
	slices.SortStableFunc(b.Nodes, func(x, y *corev1.Node) int { return byName(x, y) })
	slices.SortStableFunc(b.NodePools, func(x, y *scheduling.NodePool) int { return strings.Compare(x.Name, y.Name) })
	slices.SortStableFunc(b.NodeClasses, func(x, y *aws.NodeClass) int {
		return cmp.Or(strings.Compare(x.Kind, y.Kind), strings.Compare(x.Name, y.Name))
	})
	slices.SortStableFunc(b.NodeOverlays, func(x, y *instancetype.Overlay) int { return strings.Compare(x.Name, y.Name) })
	slices.SortStableFunc(b.NodeClaims, func(x, y *NodeClaim) int { return strings.Compare(x.Name, y.Name) })
	slices.SortStableFunc(b.DaemonSets, func(x, y *appsv1.DaemonSet) int { return byName(x, y) })
	slices.SortStableFunc(b.Namespaces, func(x, y *corev1.Namespace) int { return byName(x, y) })
	slices.SortStableFunc(b.PersistentVolumeClaims, func(x, y *corev1.PersistentVolumeClaim) int { return byName(x, y) })
	slices.SortStableFunc(b.PersistentVolumes, func(x, y *corev1.PersistentVolume) int { return byName(x, y) })
	slices.SortStableFunc(b.StorageClasses, func(x, y *storagev1.StorageClass) int { return byName(x, y) })
	slices.SortStableFunc(b.CSINodes, func(x, y *storagev1.CSINode) int { return byName(x, y) })
	slices.SortStableFunc(b.PodDisruptionBudgets, func(x, y *policyv1.PodDisruptionBudget) int { return byName(x, y) })
}

// labelNamespaceName is the label the API server puts on every Namespace: its name.
const labelNamespaceName = "kubernetes.io/metadata.name"

// namespaces labels each Namespace with its name, as the API server does, and adds the
// namespaces that objects use but the input does not define, so that namespaceSelectors
// (kubernetes.io/metadata.name: …) match as in the cluster.
func (s *builder) namespaces() {
	b := s.b
	have := map[string]bool{}
	for _, ns := range b.Namespaces {
		if ns.Labels == nil {
			ns.Labels = map[string]string{}
		}
		ns.Labels[labelNamespaceName] = ns.Name
		have[ns.Name] = true
	}
	used := map[string]bool{}
	for _, p := range b.Pods {
		used[p.Namespace] = true
	}
	for _, p := range b.BoundPods {
		used[p.Namespace] = true
	}
	for _, c := range b.PersistentVolumeClaims {
		used[c.Namespace] = true
	}
	for _, d := range b.DaemonSets {
		used[d.Namespace] = true
	}
	for _, p := range b.PodDisruptionBudgets {
		used[p.Namespace] = true
	}
	for _, name := range slices.Sorted(maps.Keys(used)) {
		if have[name] {
			continue
		}
		b.Namespaces = append(b.Namespaces, &corev1.Namespace{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{labelNamespaceName: name}},
		})
	}
}

// validatePDB checks a PodDisruptionBudget as the API server does: at most one of
// minAvailable and maxUnavailable, each a non-negative integer or a percentage up to 100%, and
// a valid selector.
func validatePDB(doc *document, pdb *policyv1.PodDisruptionBudget) error {
	s := pdb.Spec
	if s.MinAvailable != nil && s.MaxUnavailable != nil {
		return doc.errorf("spec.maxUnavailable", "cannot be set together with spec.minAvailable")
	}
	for _, f := range []struct {
		field string
		v     *intstr.IntOrString
	}{{"spec.minAvailable", s.MinAvailable}, {"spec.maxUnavailable", s.MaxUnavailable}} {
		switch {
		case f.v == nil:
		case f.v.Type == intstr.Int && f.v.IntVal < 0:
			return doc.errorf(f.field, "must not be negative, got %d", f.v.IntVal)
		case f.v.Type == intstr.String && !percentRE.MatchString(f.v.StrVal):
			return doc.errorf(f.field, "%q is neither an integer nor a percentage (e.g. 1 or \"25%%\")", f.v.StrVal)
		case f.v.Type == intstr.String:
			if n, err := strconv.Atoi(strings.TrimSuffix(f.v.StrVal, "%")); err != nil || n > 100 {
				return doc.errorf(f.field, "%s is more than 100%%", f.v.StrVal)
			}
		}
	}
	if _, err := metav1.LabelSelectorAsSelector(s.Selector); err != nil {
		return doc.errorf("spec.selector", "%v", err)
	}
	return nil
}

// percentRE is what a percentage of an IntOrString looks like.
var percentRE = regexp.MustCompile(`^[0-9]+%$`)
