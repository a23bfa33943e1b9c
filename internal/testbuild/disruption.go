package testbuild

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/scheduling"
)

// ConsolidateAfter sets spec.disruption.consolidateAfter.
func (b *NodePoolBuilder) ConsolidateAfter(d time.Duration) *NodePoolBuilder {
	b.np.Disruption.ConsolidateAfter = &d
	return b
}

// ConsolidationPolicy sets spec.disruption.consolidationPolicy.
func (b *NodePoolBuilder) ConsolidationPolicy(p string) *NodePoolBuilder {
	b.np.Disruption.ConsolidationPolicy = p
	return b
}

// Budget adds a disruption budget that is always active ("3" or "10%"), for the given
// reasons (all when none).
func (b *NodePoolBuilder) Budget(nodes string, reasons ...string) *NodePoolBuilder {
	b.np.Disruption.Budgets = append(b.np.Disruption.Budgets, scheduling.Budget{Nodes: nodes, Reasons: reasons})
	return b
}

// ScheduledBudget adds a disruption budget active for d after each time the cron schedule
// fires (UTC).
func (b *NodePoolBuilder) ScheduledBudget(nodes, schedule string, d time.Duration, reasons ...string) *NodePoolBuilder {
	b.np.Disruption.Budgets = append(b.np.Disruption.Budgets, scheduling.Budget{Nodes: nodes, Schedule: schedule, Duration: &d, Reasons: reasons})
	return b
}

// ExpireAfter sets spec.template.spec.expireAfter.
func (b *NodePoolBuilder) ExpireAfter(d time.Duration) *NodePoolBuilder {
	b.np.ExpireAfter = &d
	return b
}

// Priority sets the pod's priority.
func (b *PodBuilder) Priority(p int32) *PodBuilder { b.pod.Spec.Priority = &p; return b }

// OwnedByDaemonSet makes the pod one a DaemonSet controls.
func (b *PodBuilder) OwnedByDaemonSet(name string) *PodBuilder {
	t := true
	b.pod.OwnerReferences = append(b.pod.OwnerReferences, metav1.OwnerReference{APIVersion: "apps/v1", Kind: "DaemonSet", Name: name, Controller: &t})
	return b
}

// OwnedBy adds an owner reference to kind/name, marked controller or not.
func (b *PodBuilder) OwnedBy(kind, name string, controller bool) *PodBuilder {
	b.pod.OwnerReferences = append(b.pod.OwnerReferences, metav1.OwnerReference{Kind: kind, Name: name, Controller: &controller})
	return b
}

// Unready gives the pod a Ready condition that is False.
func (b *PodBuilder) Unready() *PodBuilder {
	b.pod.Status.Phase = corev1.PodRunning
	b.pod.Status.Conditions = append(b.pod.Status.Conditions, corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionFalse})
	return b
}

// KarpenterNode returns a node as a NodePool launches it: the well-known labels of its
// NodePool, instance type, zone and capacity type, the type's own labels, and the type's
// capacity and allocatable.
func KarpenterNode(name, nodePool string, it *instancetype.InstanceType, zone, capacityType string) *corev1.Node {
	labels := map[string]string{}
	for k, v := range it.Labels {
		labels[k] = v
	}
	labels["kubernetes.io/hostname"] = name
	labels["karpenter.sh/nodepool"] = nodePool
	labels["node.kubernetes.io/instance-type"] = it.Name
	labels["topology.kubernetes.io/zone"] = zone
	labels["karpenter.sh/capacity-type"] = capacityType
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Status:     corev1.NodeStatus{Capacity: it.Capacity.DeepCopy(), Allocatable: it.Allocatable()},
	}
}

// PDBBuilder builds a PodDisruptionBudget.
type PDBBuilder struct{ pdb *policyv1.PodDisruptionBudget }

// PDB starts a PodDisruptionBudget in namespace default selecting pods with the labels.
func PDB(name string, selector map[string]string) *PDBBuilder {
	return &PDBBuilder{pdb: &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec:       policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: copyLabels(selector)}},
	}}
}

// Obj returns the PodDisruptionBudget.
func (b *PDBBuilder) Obj() *policyv1.PodDisruptionBudget { return b.pdb }

// MinAvailable sets minAvailable: "2" or "50%".
func (b *PDBBuilder) MinAvailable(v string) *PDBBuilder {
	x := intstr.Parse(v)
	b.pdb.Spec.MinAvailable = &x
	return b
}

// MaxUnavailable sets maxUnavailable: "1" or "25%".
func (b *PDBBuilder) MaxUnavailable(v string) *PDBBuilder {
	x := intstr.Parse(v)
	b.pdb.Spec.MaxUnavailable = &x
	return b
}

// AlwaysAllowUnhealthy sets unhealthyPodEvictionPolicy: AlwaysAllow.
func (b *PDBBuilder) AlwaysAllowUnhealthy() *PDBBuilder {
	p := policyv1.AlwaysAllow
	b.pdb.Spec.UnhealthyPodEvictionPolicy = &p
	return b
}
