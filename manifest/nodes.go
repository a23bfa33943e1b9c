package manifest

import (
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduling"
)

// legacyLabelProvisioner is the v1alpha5 name of karpenter.sh/nodepool.
const legacyLabelProvisioner = "karpenter.sh/provisioner-name"

// ExistingNodes returns the cluster's nodes as the solver sees them, sorted by name: each
// Node with the pods bound to it (in input order); its NodePool from the karpenter.sh/nodepool
// label or its NodeClaim; Initialized from the NodeClaim's Initialized condition, else the
// karpenter.sh/initialized label for NodePool-managed nodes, else true; volume attach limits
// from its CSINode. A NodeClaim still launching (no Node yet, but status.allocatable known)
// is an uninitialized node named after the claim's node name or, before that, the claim.
func (b *Bundle) ExistingNodes() []*scheduling.ExistingNode {
	podsByNode := map[string][]*corev1.Pod{}
	for _, p := range b.BoundPods {
		podsByNode[p.Spec.NodeName] = append(podsByNode[p.Spec.NodeName], p)
	}
	claimByNode := map[string]*NodeClaim{}
	claimByProviderID := map[string]*NodeClaim{}
	for _, nc := range b.NodeClaims {
		if nc.NodeName != "" {
			claimByNode[nc.NodeName] = nc
		}
		if nc.ProviderID != "" {
			claimByProviderID[nc.ProviderID] = nc
		}
	}
	limits := map[string]map[string]int{}
	for _, c := range b.CSINodes {
		for _, d := range c.Spec.Drivers {
			if d.Allocatable == nil || d.Allocatable.Count == nil {
				continue
			}
			if limits[c.Name] == nil {
				limits[c.Name] = map[string]int{}
			}
			limits[c.Name][d.Name] = int(*d.Allocatable.Count)
		}
	}
	matched := map[*NodeClaim]bool{}
	var out []*scheduling.ExistingNode
	for _, n := range b.Nodes {
		nc := claimByNode[n.Name]
		if nc == nil && n.Spec.ProviderID != "" {
			nc = claimByProviderID[n.Spec.ProviderID]
		}
		e := &scheduling.ExistingNode{
			Node:               n,
			Pods:               podsByNode[n.Name],
			NodePool:           n.Labels[requirements.LabelNodePool],
			VolumeAttachLimits: limits[n.Name],
		}
		if e.NodePool == "" {
			e.NodePool = n.Labels[legacyLabelProvisioner]
		}
		switch {
		case nc != nil:
			matched[nc] = true
			e.Initialized = nc.Initialized
			if e.NodePool == "" {
				e.NodePool = nc.NodePool
			}
		case e.NodePool != "":
			e.Initialized = n.Labels[requirements.LabelNodeInitialized] == "true"
		default:
			e.Initialized = true
		}
		out = append(out, e)
	}
	for _, nc := range b.NodeClaims {
		if matched[nc] || nc.DeletionTimestamp != nil || len(nc.Allocatable) == 0 {
			continue
		}
		n := nodeFromClaim(nc)
		out = append(out, &scheduling.ExistingNode{
			Node:               n,
			Pods:               podsByNode[n.Name],
			NodePool:           nc.NodePool,
			Initialized:        false,
			VolumeAttachLimits: limits[n.Name],
		})
	}
	slices.SortStableFunc(out, func(x, y *scheduling.ExistingNode) int { return strings.Compare(x.Node.Name, y.Node.Name) })
	return out
}

// nodeFromClaim is the Node a launching NodeClaim will become: its labels (and the single
// values of its In requirements), its taints (startup taints are expected to go), its
// capacity and allocatable.
func nodeFromClaim(nc *NodeClaim) *corev1.Node {
	name := nc.NodeName
	if name == "" {
		name = nc.Name
	}
	labels := maps.Clone(nc.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	for _, r := range nc.Requirements {
		if r.Operator == corev1.NodeSelectorOpIn && len(r.Values) == 1 {
			if _, ok := labels[r.Key]; !ok {
				labels[r.Key] = r.Values[0]
			}
		}
	}
	labels[requirements.LabelHostname] = name
	if nc.NodePool != "" {
		labels[requirements.LabelNodePool] = nc.NodePool
	}
	return &corev1.Node{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, CreationTimestamp: metav1.NewTime(nc.CreationTimestamp)},
		Spec:       corev1.NodeSpec{ProviderID: nc.ProviderID, Taints: nc.Taints},
		Status:     corev1.NodeStatus{Capacity: nc.Capacity, Allocatable: nc.Allocatable},
	}
}
