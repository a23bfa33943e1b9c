package manifest

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/requirements"
)

// AnnotationEmptinessTimestamp is where Karpenter's v1alpha5 emptiness controller recorded when
// it first saw a node empty.
const AnnotationEmptinessTimestamp = "karpenter.sh/emptiness-timestamp"

// TaintDisrupted is the taint Karpenter puts on a node it is disrupting.
const TaintDisrupted = "karpenter.sh/disrupted"

// DisruptionInput returns the bundle as the running cluster disruption.Decide looks at, at
// now: the counterpart of SchedulingInput. Every NodePool (the default one when none was
// given) gets the catalog's instance types through AssignInstanceTypes, whose warnings are
// returned. Each Node (or NodeClaim still launching) comes with its bound pods; its NodePool,
// instance type, zone and capacity type from its labels, else from its NodeClaim; its price
// from its NodePool's offering of that type in that zone and capacity type (NodeOverlays
// included), else from the catalog's; creation time, initialization, the Consolidatable and
// Drifted conditions and spec.expireAfter from its NodeClaim when given; drift from its node
// class (the class hash, the AMI of status.amis against the NodeClaim's status.imageID); the last pod event
// as the latest of its creation, its pods' creation and start times and the NodeClaim's
// lastPodEventTime; for a node of a v1alpha5 Provisioner, its karpenter.sh/emptiness-timestamp;
// being disrupted when its NodeClaim or Node is being deleted or it
// carries the karpenter.sh/disrupted taint. The pending pods, PDBs, DaemonSets, namespaces
// and volume objects are passed on.
func (b *Bundle) DisruptionInput(now time.Time, catalog []*instancetype.InstanceType) (disruption.Input, []string) {
	pools := b.NodePoolsOrDefault()
	warnings := b.AssignInstanceTypes(pools, catalog)
	types := map[string]*instancetype.InstanceType{}
	for _, it := range catalog {
		types[it.Name] = it
	}
	poolTypes := map[string]map[string]*instancetype.InstanceType{}
	for _, np := range pools {
		poolTypes[np.Name] = map[string]*instancetype.InstanceType{}
		for _, it := range np.InstanceTypes {
			poolTypes[np.Name][it.Name] = it
		}
	}
	claims := b.claimsByNode()
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
			Disrupting:         node.DeletionTimestamp != nil || hasTaintKey(node, TaintDisrupted),
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
			n.NodeClassDrift = nodeClassDrift(nc, b.NodeClassOf[n.NodePool], types[n.InstanceType], node.Labels)
		}
		n.LastPodEvent = lastPodEvent(n.Created, e.Pods, nc)
		if node.Labels[legacyLabelProvisioner] != "" && node.Labels[requirements.LabelNodePool] == "" {
			n.V1alpha5 = true
			if text, ok := node.Annotations[AnnotationEmptinessTimestamp]; ok {
				if t, err := time.Parse(time.RFC3339, text); err == nil {
					n.EmptinessTimestamp = t
				} else {
					warnings = append(warnings, fmt.Sprintf("node %s: annotation %s %q is not an RFC 3339 time; the node is taken as not marked empty yet", node.Name, AnnotationEmptinessTimestamp, text))
				}
			}
		}
		// A node in a capacity reservation is left to disruption to price: it looks the
		// reservation up (an ended one runs on-demand, an expiring capacity block is reclaimed).
		if n.CapacityType != instancetype.CapacityTypeReserved {
			if price, ok := offeringPrice(poolTypes[n.NodePool][n.InstanceType], n.Zone, n.CapacityType); ok {
				n.Price = price
			} else if price, ok := offeringPrice(types[n.InstanceType], n.Zone, n.CapacityType); ok {
				n.Price = price
			}
		}
		in.Nodes = append(in.Nodes, n)
	}
	return in, warnings
}

// nodeClaims finds the NodeClaim of a node: by status.nodeName, else by provider ID, else
// (for a claim still launching, which ExistingNodes names after the claim) by name.
type nodeClaims struct {
	byNode, byProviderID, byName map[string]*NodeClaim
}

func (b *Bundle) claimsByNode() nodeClaims {
	c := nodeClaims{byNode: map[string]*NodeClaim{}, byProviderID: map[string]*NodeClaim{}, byName: map[string]*NodeClaim{}}
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

func (c nodeClaims) of(node *corev1.Node) *NodeClaim {
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
func lastPodEvent(created time.Time, pods []*corev1.Pod, nc *NodeClaim) time.Time {
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
func driftedText(c *Condition) string {
	switch {
	case c.Reason != "" && c.Message != "":
		return c.Reason + ": " + c.Message
	case c.Reason != "" || c.Message != "":
		return c.Reason + c.Message
	}
	return "Drifted"
}

func hasTaintKey(node *corev1.Node, key string) bool {
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
