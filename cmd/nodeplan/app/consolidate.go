package app

import (
	"errors"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/manifest"
	"github.com/nodeplan/nodeplan/requirements"
)

// Consolidated is the outcome of Consolidate: the decisions and what they were made from.
type Consolidated struct {
	Bundle    *manifest.Bundle
	Catalog   *instancetype.Catalog
	Input     disruption.Input
	Decisions disruption.Decisions
}

// taintDisrupted is the taint Karpenter puts on a node it is disrupting.
const taintDisrupted = "karpenter.sh/disrupted"

// Consolidate loads the running cluster from the manifests (see ClusterInput) and decides
// which nodes to delete or replace at now. The error is for unusable input only; with an
// error, the result is nil or holds only the Bundle.
func Consolidate(cfg Config, now time.Time) (*Consolidated, error) {
	if now.IsZero() {
		return nil, errors.New("consolidate needs the current time")
	}
	b, cat, err := cfg.load()
	if err != nil {
		return partialCluster(b), err
	}
	in := ClusterInput(b, cat, now)
	d, err := disruption.Decide(in)
	if err != nil {
		return partialCluster(b), err
	}
	return &Consolidated{Bundle: b, Catalog: cat, Input: in, Decisions: d}, nil
}

func partialCluster(b *manifest.Bundle) *Consolidated {
	if b == nil {
		return nil
	}
	return &Consolidated{Bundle: b}
}

// ClusterInput reads the running cluster out of a bundle as DESIGN.md says: each Node (or
// NodeClaim still launching) with its bound pods; NodePool, instance type, zone and capacity
// type from its labels, else from its NodeClaim; its price from the catalog's offering of
// that type in that zone and capacity type; creation time, initialization, the
// Consolidatable and Drifted conditions and spec.expireAfter from its NodeClaim when given;
// the last pod event as the latest of its creation, its pods' creation and start times and
// the NodeClaim's lastPodEventTime; being disrupted when its NodeClaim or Node is being
// deleted or it carries the karpenter.sh/disrupted taint. Every NodePool gets the catalog's
// instance types; the bundle's pending pods, PDBs, DaemonSets, namespaces and volume objects
// are passed on.
func ClusterInput(b *manifest.Bundle, cat *instancetype.Catalog, now time.Time) disruption.Input {
	pools := b.NodePoolsOrDefault()
	withInstanceTypes(b, pools, cat)
	types := map[string]*instancetype.InstanceType{}
	for _, it := range cat.InstanceTypes {
		types[it.Name] = it
	}
	poolTypes := map[string]map[string]*instancetype.InstanceType{}
	for _, np := range pools {
		poolTypes[np.Name] = map[string]*instancetype.InstanceType{}
		for _, it := range np.InstanceTypes {
			poolTypes[np.Name][it.Name] = it
		}
	}
	claims := claimsByNode(b)

	in := disruption.Input{
		NodePools:              pools,
		PodDisruptionBudgets:   b.PodDisruptionBudgets,
		PendingPods:            b.Pods,
		DaemonSets:             b.DaemonSets,
		Namespaces:             b.Namespaces,
		PersistentVolumeClaims: b.PersistentVolumeClaims,
		PersistentVolumes:      b.PersistentVolumes,
		StorageClasses:         b.StorageClasses,
		Now:                    now,
	}
	for _, e := range b.ExistingNodes() {
		node := e.Node
		nc := claims.of(node)
		n := &disruption.Node{
			Node:               node,
			Pods:               e.Pods,
			NodePool:           e.NodePool,
			InstanceType:       node.Labels[requirements.LabelInstanceType],
			Zone:               node.Labels[requirements.LabelTopologyZone],
			CapacityType:       node.Labels[requirements.LabelCapacityType],
			Created:            node.CreationTimestamp.Time,
			Initialized:        e.Initialized,
			Disrupting:         node.DeletionTimestamp != nil || hasTaint(node, taintDisrupted),
			VolumeAttachLimits: e.VolumeAttachLimits,
		}
		if nc != nil {
			n.InstanceType = firstNonEmpty(n.InstanceType, nc.InstanceType)
			n.Zone = firstNonEmpty(n.Zone, nc.Zone)
			n.CapacityType = firstNonEmpty(n.CapacityType, nc.CapacityType)
			if !nc.CreationTimestamp.IsZero() {
				n.Created = nc.CreationTimestamp
			}
			if nc.Consolidatable != nil {
				ok := nc.Consolidatable.IsTrue()
				n.Consolidatable = &ok
			}
			n.Disrupting = n.Disrupting || nc.DeletionTimestamp != nil
			n.ExpireAfter, n.ExpireAfterSet = nc.ExpireAfter, nc.ExpireAfterSet
			if nc.Drifted.IsTrue() {
				n.Drifted = driftedText(nc.Drifted)
			}
		}
		n.LastPodEvent = lastPodEvent(n.Created, e.Pods, nc)
		// The NodePool's types carry its overlays' prices; an offering it does not have (or a
		// node of no NodePool) is priced from the catalog.
		if price, ok := offeringPrice(poolTypes[n.NodePool][n.InstanceType], n.Zone, n.CapacityType); ok {
			n.Price = price
		} else if price, ok := offeringPrice(types[n.InstanceType], n.Zone, n.CapacityType); ok {
			n.Price = price
		}
		in.Nodes = append(in.Nodes, n)
	}
	return in
}

// nodeClaims finds the NodeClaim of a node: by status.nodeName, else by provider ID, else
// (for a claim still launching, which ExistingNodes names after the claim) by name.
type nodeClaims struct {
	byNode, byProviderID, byName map[string]*manifest.NodeClaim
}

func claimsByNode(b *manifest.Bundle) nodeClaims {
	c := nodeClaims{byNode: map[string]*manifest.NodeClaim{}, byProviderID: map[string]*manifest.NodeClaim{}, byName: map[string]*manifest.NodeClaim{}}
	for _, nc := range b.NodeClaims {
		if nc.NodeName != "" {
			c.byNode[nc.NodeName] = nc
		}
		if nc.ProviderID != "" {
			c.byProviderID[nc.ProviderID] = nc
		}
		c.byName[nc.Name] = nc
	}
	return c
}

func (c nodeClaims) of(node *corev1.Node) *manifest.NodeClaim {
	if nc := c.byNode[node.Name]; nc != nil {
		return nc
	}
	if id := node.Spec.ProviderID; id != "" {
		if nc := c.byProviderID[id]; nc != nil {
			return nc
		}
	}
	return c.byName[node.Name]
}

// lastPodEvent is the latest of the node's creation, its pods' creation and start times and
// the NodeClaim's status.lastPodEventTime.
func lastPodEvent(created time.Time, pods []*corev1.Pod, nc *manifest.NodeClaim) time.Time {
	last := created
	later := func(t time.Time) {
		if t.After(last) {
			last = t
		}
	}
	for _, p := range pods {
		later(p.CreationTimestamp.Time)
		if p.Status.StartTime != nil {
			later(p.Status.StartTime.Time)
		}
	}
	if nc != nil {
		later(nc.LastPodEventTime)
	}
	return last
}

// driftedText is the Drifted condition's reason and message ("reason: message", or either
// alone), or "Drifted" when it gives neither.
func driftedText(c *manifest.Condition) string {
	switch {
	case c.Reason != "" && c.Message != "":
		return c.Reason + ": " + c.Message
	case c.Reason != "" || c.Message != "":
		return c.Reason + c.Message
	}
	return "Drifted"
}

func hasTaint(node *corev1.Node, key string) bool {
	for _, t := range node.Spec.Taints {
		if t.Key == key {
			return true
		}
	}
	return false
}

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

// offeringPrice is the price of a type's offering in a zone and capacity type.
func offeringPrice(it *instancetype.InstanceType, zone, capacityType string) (float64, bool) {
	if it == nil {
		return 0, false
	}
	for _, o := range it.Offerings {
		if o.Zone == zone && o.CapacityType == capacityType {
			return o.Price, true
		}
	}
	return 0, false
}
