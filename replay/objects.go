package replay

import (
	"encoding/json"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/manifest"
	"github.com/nodeplan/nodeplan/scheduling"
)

// The objects events bring are read by package manifest, as plan reads them: the same
// defaults (requests from limits), the same checks and the same pods. Each reader checks
// its object once, so a bad event fails when the file is read, naming the event.

func deploymentObject(d *appsv1.Deployment, key, where string) (*appsv1.Deployment, error) {
	d = d.DeepCopy()
	d.TypeMeta = metav1.TypeMeta{APIVersion: "apps/v1", Kind: KindDeployment}
	d.Namespace, d.Name = keyParts(key)
	_, err := deploymentPrototype(d, where)
	return d, err
}

func statefulSetObject(s *appsv1.StatefulSet, key, where string) (*appsv1.StatefulSet, error) {
	s = s.DeepCopy()
	s.TypeMeta = metav1.TypeMeta{APIVersion: "apps/v1", Kind: KindStatefulSet}
	s.Namespace, s.Name = keyParts(key)
	_, _, err := statefulSetPods(s, 1, where)
	return s, err
}

func jobObject(j *batchv1.Job, key, where string) (*batchv1.Job, error) {
	j = j.DeepCopy()
	j.TypeMeta = metav1.TypeMeta{APIVersion: "batch/v1", Kind: KindJob}
	j.Namespace, j.Name = keyParts(key)
	_, err := jobPrototype(j, where)
	return j, err
}

func podObject(p *corev1.Pod, key, where string) (*corev1.Pod, error) {
	if p.Spec.NodeName != "" {
		return nil, fmt.Errorf("%s.spec.nodeName: a created pod is pending; leave nodeName out", where)
	}
	p = p.DeepCopy()
	p.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: KindPod}
	p.Namespace, p.Name = keyParts(key)
	p.Status = corev1.PodStatus{}
	b, err := parseObject(p, where)
	if err != nil {
		return nil, err
	}
	if len(b.Pods) != 1 {
		return nil, fmt.Errorf("%s: the pod is not one to schedule (a DaemonSet's or a finished pod)", where)
	}
	return b.Pods[0], nil
}

func nodePoolObject(raw json.RawMessage, where string) (*scheduling.NodePool, error) {
	b, err := manifest.Parse(raw, where)
	if err != nil {
		return nil, err
	}
	if len(b.NodePools) != 1 {
		return nil, fmt.Errorf("%s: an update takes one NodePool (karpenter.sh/v1)", where)
	}
	return b.NodePools[0], nil
}

// parseObject reads one object with package manifest.
func parseObject(obj any, where string) (*manifest.Bundle, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	return manifest.Parse(data, where)
}

// deploymentPrototype is the pod the Deployment's ReplicaSet creates; every replica is a
// copy of it under its own name.
func deploymentPrototype(d *appsv1.Deployment, where string) (*corev1.Pod, error) {
	one := *d
	one.Spec.Replicas = ptr(int32(1))
	one.Status = appsv1.DeploymentStatus{}
	// Readers keep apiVersion and kind; an object built in Go may leave them out.
	one.APIVersion, one.Kind = "apps/v1", "Deployment"
	b, err := parseObject(&one, where)
	if err != nil {
		return nil, err
	}
	return onePod(b, where)
}

// onePod is the pod a workload with one replica gave, or an error saying there is none.
func onePod(b *manifest.Bundle, where string) (*corev1.Pod, error) {
	if len(b.Pods) != 1 {
		return nil, fmt.Errorf("%s: the workload gives %d pods for one replica, not one", where, len(b.Pods))
	}
	return b.Pods[0], nil
}

// jobPrototype is the pod a Job creates, labelled with the job's name.
func jobPrototype(j *batchv1.Job, where string) (*corev1.Pod, error) {
	one := *j
	one.Spec.Parallelism, one.Spec.Completions, one.Spec.Suspend = ptr(int32(1)), ptr(int32(1)), nil
	one.Status = batchv1.JobStatus{}
	one.APIVersion, one.Kind = "batch/v1", "Job"
	b, err := parseObject(&one, where)
	if err != nil {
		return nil, err
	}
	return onePod(b, where)
}

// statefulSetPods are the StatefulSet's pods for ordinals up to n, with the claims its
// volumeClaimTemplates make for them.
func statefulSetPods(s *appsv1.StatefulSet, n int32, where string) ([]*corev1.Pod, []*corev1.PersistentVolumeClaim, error) {
	all := *s
	all.Spec.Replicas = ptr(max(n, 1))
	all.Status = appsv1.StatefulSetStatus{}
	all.APIVersion, all.Kind = "apps/v1", "StatefulSet"
	b, err := parseObject(&all, where)
	if err != nil {
		return nil, nil, err
	}
	return b.Pods, b.PersistentVolumeClaims, nil
}

func ptr[T any](v T) *T { return &v }
