package volume_test

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Small fluent builders so each test row reads as one line, e.g.
// claim("data-0").class("gp3").obj().

const (
	zoneKey = "topology.kubernetes.io/zone"
	ebs     = "ebs.csi.aws.com"
)

// claimBuilder builds a PersistentVolumeClaim in namespace default, ReadWriteOnce, 10Gi.
type claimBuilder struct{ c *corev1.PersistentVolumeClaim }

func claim(name string) *claimBuilder {
	return &claimBuilder{&corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceStorage: resource.MustParse("10Gi"),
			}},
		},
	}}
}

func (b *claimBuilder) class(name string) *claimBuilder {
	b.c.Spec.StorageClassName = &name
	return b
}

func (b *claimBuilder) annotation(k, v string) *claimBuilder {
	if b.c.Annotations == nil {
		b.c.Annotations = map[string]string{}
	}
	b.c.Annotations[k] = v
	return b
}

func (b *claimBuilder) bound(pv string) *claimBuilder {
	b.c.Spec.VolumeName = pv
	b.c.Status.Phase = corev1.ClaimBound
	return b
}

func (b *claimBuilder) modes(m ...corev1.PersistentVolumeAccessMode) *claimBuilder {
	b.c.Spec.AccessModes = m
	return b
}

func (b *claimBuilder) request(q string) *claimBuilder {
	b.c.Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse(q)
	return b
}

func (b *claimBuilder) lost() *claimBuilder {
	b.c.Status.Phase = corev1.ClaimLost
	return b
}

func (b *claimBuilder) deleting() *claimBuilder {
	t := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	b.c.DeletionTimestamp = &t
	return b
}

// controlledBy makes the claim the generic ephemeral claim of a pod.
func (b *claimBuilder) controlledBy(pod string) *claimBuilder {
	yes := true
	b.c.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: pod, Controller: &yes}}
	return b
}

func (b *claimBuilder) obj() *corev1.PersistentVolumeClaim { return b.c }

// pvBuilder builds a PersistentVolume of 10Gi, ReadWriteOnce, with no source until one is set.
type pvBuilder struct{ v *corev1.PersistentVolume }

func pv(name string) *pvBuilder {
	return &pvBuilder{&corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:    corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")},
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		},
	}}
}

func (b *pvBuilder) csi(driver string) *pvBuilder {
	b.v.Spec.CSI = &corev1.CSIPersistentVolumeSource{Driver: driver, VolumeHandle: "vol-" + b.v.Name}
	return b
}

// term adds one required node affinity term with In requirements given as key, values pairs
// in order: term(zoneKey, "a") or term(zoneKey, "a", "b") for a single key.
func (b *pvBuilder) term(key string, values ...string) *pvBuilder {
	return b.termExprs(corev1.NodeSelectorRequirement{Key: key, Operator: corev1.NodeSelectorOpIn, Values: values})
}

func (b *pvBuilder) termExprs(exprs ...corev1.NodeSelectorRequirement) *pvBuilder {
	return b.rawTerm(corev1.NodeSelectorTerm{MatchExpressions: exprs})
}

func (b *pvBuilder) rawTerm(t corev1.NodeSelectorTerm) *pvBuilder {
	if b.v.Spec.NodeAffinity == nil {
		b.v.Spec.NodeAffinity = &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{}}
	}
	b.v.Spec.NodeAffinity.Required.NodeSelectorTerms = append(b.v.Spec.NodeAffinity.Required.NodeSelectorTerms, t)
	return b
}

func (b *pvBuilder) noTerms() *pvBuilder {
	b.v.Spec.NodeAffinity = &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{}}
	return b
}

func (b *pvBuilder) label(k, v string) *pvBuilder {
	if b.v.Labels == nil {
		b.v.Labels = map[string]string{}
	}
	b.v.Labels[k] = v
	return b
}

// local makes a local volume on node, as the local static provisioner writes it.
func (b *pvBuilder) local(node string) *pvBuilder {
	b.v.Spec.Local = &corev1.LocalVolumeSource{Path: "/mnt/disks/" + b.v.Name}
	return b.term("kubernetes.io/hostname", node)
}

func (b *pvBuilder) hostPath(node string) *pvBuilder {
	b.v.Spec.HostPath = &corev1.HostPathVolumeSource{Path: "/data/" + b.v.Name}
	return b.term("kubernetes.io/hostname", node)
}

func (b *pvBuilder) inTreeEBS() *pvBuilder {
	b.v.Spec.AWSElasticBlockStore = &corev1.AWSElasticBlockStoreVolumeSource{VolumeID: "vol-" + b.v.Name}
	return b
}

func (b *pvBuilder) class(name string) *pvBuilder {
	b.v.Spec.StorageClassName = name
	return b
}

func (b *pvBuilder) capacity(q string) *pvBuilder {
	b.v.Spec.Capacity[corev1.ResourceStorage] = resource.MustParse(q)
	return b
}

func (b *pvBuilder) phase(p corev1.PersistentVolumePhase) *pvBuilder {
	b.v.Status.Phase = p
	return b
}

func (b *pvBuilder) deleting() *pvBuilder {
	t := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	b.v.DeletionTimestamp = &t
	return b
}

func (b *pvBuilder) obj() *corev1.PersistentVolume { return b.v }

// classBuilder builds an EBS CSI StorageClass with WaitForFirstConsumer binding.
type classBuilder struct{ s *storagev1.StorageClass }

func class(name string) *classBuilder {
	mode := storagev1.VolumeBindingWaitForFirstConsumer
	return &classBuilder{&storagev1.StorageClass{
		ObjectMeta:        metav1.ObjectMeta{Name: name},
		Provisioner:       ebs,
		VolumeBindingMode: &mode,
	}}
}

func (b *classBuilder) provisioner(p string) *classBuilder {
	b.s.Provisioner = p
	return b
}

func (b *classBuilder) immediate() *classBuilder {
	mode := storagev1.VolumeBindingImmediate
	b.s.VolumeBindingMode = &mode
	return b
}

func (b *classBuilder) noBindingMode() *classBuilder {
	b.s.VolumeBindingMode = nil
	return b
}

// topology adds one allowedTopologies term; pairs are key, value, key, value… with one value
// each, or use zones for a single zone expression.
func (b *classBuilder) topology(pairs ...string) *classBuilder {
	var term corev1.TopologySelectorTerm
	for i := 0; i+1 < len(pairs); i += 2 {
		term.MatchLabelExpressions = append(term.MatchLabelExpressions,
			corev1.TopologySelectorLabelRequirement{Key: pairs[i], Values: []string{pairs[i+1]}})
	}
	b.s.AllowedTopologies = append(b.s.AllowedTopologies, term)
	return b
}

func (b *classBuilder) zones(zones ...string) *classBuilder {
	b.s.AllowedTopologies = append(b.s.AllowedTopologies, corev1.TopologySelectorTerm{
		MatchLabelExpressions: []corev1.TopologySelectorLabelRequirement{{Key: zoneKey, Values: zones}},
	})
	return b
}

func (b *classBuilder) isDefault() *classBuilder {
	if b.s.Annotations == nil {
		b.s.Annotations = map[string]string{}
	}
	b.s.Annotations["storageclass.kubernetes.io/is-default-class"] = "true"
	return b
}

func (b *classBuilder) created(day int) *classBuilder {
	b.s.CreationTimestamp = metav1.NewTime(time.Date(2026, 1, day, 0, 0, 0, 0, time.UTC))
	return b
}

func (b *classBuilder) obj() *storagev1.StorageClass { return b.s }

// podBuilder builds a pod in namespace default.
type podBuilder struct{ p *corev1.Pod }

func pod(name string) *podBuilder {
	return &podBuilder{&corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name)},
	}}
}

func (b *podBuilder) claim(volume, claimName string) *podBuilder {
	b.p.Spec.Volumes = append(b.p.Spec.Volumes, corev1.Volume{Name: volume, VolumeSource: corev1.VolumeSource{
		PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claimName},
	}})
	return b
}

// ephemeral adds a generic ephemeral volume whose template asks for class ("" leaves the
// class unset).
func (b *podBuilder) ephemeral(volume, className string) *podBuilder {
	tmpl := &corev1.PersistentVolumeClaimTemplate{Spec: corev1.PersistentVolumeClaimSpec{
		AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceStorage: resource.MustParse("1Gi"),
		}},
	}}
	if className != "" {
		tmpl.Spec.StorageClassName = &className
	}
	b.p.Spec.Volumes = append(b.p.Spec.Volumes, corev1.Volume{Name: volume, VolumeSource: corev1.VolumeSource{
		Ephemeral: &corev1.EphemeralVolumeSource{VolumeClaimTemplate: tmpl},
	}})
	return b
}

func (b *podBuilder) emptyDir(volume string) *podBuilder {
	b.p.Spec.Volumes = append(b.p.Spec.Volumes, corev1.Volume{Name: volume, VolumeSource: corev1.VolumeSource{
		EmptyDir: &corev1.EmptyDirVolumeSource{},
	}})
	return b
}

func (b *podBuilder) namespace(ns string) *podBuilder {
	b.p.Namespace = ns
	return b
}

func (b *podBuilder) node(name string) *podBuilder {
	b.p.Spec.NodeName = name
	b.p.Status.Phase = corev1.PodRunning
	return b
}

func (b *podBuilder) phase(p corev1.PodPhase) *podBuilder {
	b.p.Status.Phase = p
	return b
}

func (b *podBuilder) obj() *corev1.Pod { return b.p }
