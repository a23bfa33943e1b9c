package scheduling

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/internal/parallel"
	"github.com/nodeplan/nodeplan/internal/resources"
	"github.com/nodeplan/nodeplan/internal/taints"
	"github.com/nodeplan/nodeplan/nodetemplate"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/typeindex"
	"github.com/nodeplan/nodeplan/workloadcost"
)

// plan renders the solver state as a Plan.
func (s *solver) plan(pending int, unschedulable []Unschedulable) Plan {
	out := Plan{NodeClaims: []NodeClaim{}, ExistingNodes: []ExistingPlacement{}, Unschedulable: []Unschedulable{}}
	placed := 0
	var claimPods [][]workloadcost.Share
	var priced []workloadcost.Priced
	// The lower bound reads the placed pods and the pools' types, which rendering the nodes
	// does not write (it fills its own caches and the reservation counts): it is worked out
	// on another core meanwhile, a third of the rendering time at 100k pods. A what-if skips
	// it, and starts no goroutine for it (a disruption decision simulates hundreds).
	var lowerBound float64
	var bounded chan struct{}
	if !s.opts.SkipLowerBound {
		bounded = make(chan struct{})
		go func() {
			defer close(bounded)
			lowerBound = s.lowerBound()
		}()
	}
	reservationsLeft := nodetemplate.ReservationCapacity(len(s.pools), s.template)
	claims, claimed := s.nodeClaims(reservationsLeft)
	for i, n := range s.nodes {
		if !claimed[i] {
			continue
		}
		nc := claims[i]
		out.NodeClaims = append(out.NodeClaims, nc)
		if !s.opts.SkipCostByWorkload {
			claimPods = append(claimPods, costShares(n.pods))
			priced = append(priced, workloadcost.Priced{Price: nc.Price, Allocatable: nc.Allocatable})
		}
		out.Summary.HourlyCost += nc.Price
		placed += len(n.pods)
	}
	for _, n := range s.existing {
		if len(n.placed) == 0 {
			continue
		}
		out.ExistingNodes = append(out.ExistingNodes, ExistingPlacement{Name: n.name, Pods: sortedPodKeys(n.placed)})
		placed += len(n.placed)
	}
	for _, u := range unschedulable {
		if u.Pod != "" {
			out.Unschedulable = append(out.Unschedulable, u)
		}
	}
	sort.SliceStable(out.Unschedulable, func(i, j int) bool { return out.Unschedulable[i].Pod < out.Unschedulable[j].Pod })
	out.Summary.Pods = pending
	out.Summary.Placed = placed
	out.Summary.NewNodes = len(out.NodeClaims)
	out.Summary.HourlyCost = roundPrice(out.Summary.HourlyCost)
	if bounded != nil {
		<-bounded
	}
	out.Summary.LowerBound = roundPrice(lowerBound)
	out.Summary.NodeFixedCost = roundPrice(s.nodeCost * float64(out.Summary.NewNodes))
	if !s.opts.SkipCostByWorkload {
		out.Summary.CostByWorkload = workloadcost.ByShares(priced, func(i int) []workloadcost.Share { return claimPods[i] })
	}
	return out
}

// costShares weighs the pods of a new node by their requests as the solver counts them.
func costShares(infos []*podInfo) []workloadcost.Share {
	out := make([]workloadcost.Share, len(infos))
	for i, p := range infos {
		out[i] = workloadcost.Share{Pod: p.pod, CPU: float64(p.requests[resources.CPU]), Memory: float64(p.requests[resources.Memory])}
	}
	return out
}

// nodeClaims renders each new node (ok false for those that launch no claim), in s.nodes'
// order. Without capacity reservations the nodes do not depend on each other and are
// rendered on every core, each batch with its own memo of option lists; with reservations,
// each node takes up instances the next ones cannot have, so they go one by one.
func (s *solver) nodeClaims(reservationsLeft map[string]int) ([]NodeClaim, []bool) {
	claims := make([]NodeClaim, len(s.nodes))
	ok := make([]bool, len(s.nodes))
	render := func(from, to int, cache map[string][]string) {
		for i := from; i < to; i++ {
			if n := s.nodes[i]; len(n.pods) > 0 || n.static {
				claims[i], ok[i] = s.nodeClaim(n, reservationsLeft, cache)
			}
		}
	}
	if len(reservationsLeft) > 0 {
		render(0, len(s.nodes), s.optionsCache)
		return claims, ok
	}
	// A what-if's few new nodes are rendered on the caller.
	parallel.RangesMin(len(s.nodes), 16, 256, func(from, to int) { render(from, to, map[string][]string{}) })
	return claims, ok
}

// Labels Karpenter's AWS provider sets on nodes launched into a capacity reservation.
const (
	LabelCapacityReservationID   = "karpenter.k8s.aws/capacity-reservation-id"
	LabelCapacityReservationType = "karpenter.k8s.aws/capacity-reservation-type"
)

// placements says where each input pod went: plan must be s.plan's result.
func (s *solver) placements(pods []*corev1.Pod, plan Plan) []Placement {
	out := make([]Placement, len(pods))
	claim := map[string]int{}
	for i, nc := range plan.NodeClaims {
		claim[nc.Name] = i
	}
	for _, n := range s.nodes {
		i, ok := claim[n.name]
		if !ok {
			continue
		}
		for _, p := range n.pods {
			out[p.index] = Placement{Pod: p.pod, Key: p.key, Node: n.name, NodeClaim: i}
		}
	}
	for _, n := range s.existing {
		for _, p := range n.placed {
			out[p.index] = Placement{Pod: p.pod, Key: p.key, Node: n.name, NodeClaim: -1}
		}
	}
	// The pods placed nowhere (and nil ones) are what is left.
	for i, pod := range pods {
		if out[i].Pod == nil {
			out[i] = Placement{Pod: pod, NodeClaim: -1}
			if pod != nil {
				out[i].Key = podKey(pod)
			}
		}
	}
	return out
}

func roundPrice(p float64) float64 {
	return float64(int64(p*1e6+0.5)) / 1e6
}

// nodeClaim describes a new node: the cheapest offering its options allow, every label the node
// will carry, and its capacity.
func (s *solver) nodeClaim(n *newNode, reservationsLeft map[string]int, optionsCache map[string][]string) (NodeClaim, bool) {
	c, found := nodetemplate.CheapestWithin(n.options, n.reqs, reservationsLeft)
	if !found {
		return NodeClaim{}, false
	}
	if id := c.Offering.ReservationID; id != "" {
		reservationsLeft[id]--
	}
	it := c.Option.InstanceType
	// Sized for what comes below: the NodePool's and the type's labels, the requirements' and
	// a dozen well-known ones.
	labels := make(map[string]string, len(n.pool.NodePool.Labels)+len(it.Labels)+len(n.reqs)+12)
	for k, v := range n.pool.NodePool.Labels {
		labels[k] = v
	}
	for k, v := range it.Labels {
		labels[requirements.NormalizeKey(k)] = v
	}
	for k, v := range n.reqs.Labels() {
		labels[k] = v
	}
	// A custom key the NodePool requires with several values gets one of them (the smallest),
	// as Karpenter labels a node with one allowed value, so the node meets its own NodePool.
	for k, r := range n.reqs {
		if _, set := labels[k]; set || requirements.IsWellKnown(k) {
			continue
		}
		if v, ok := r.Any(); ok {
			labels[k] = v
		} else if v, ok := r.ExistenceValue(); ok {
			labels[k] = v
		}
	}
	labels[requirements.LabelHostname] = n.name
	labels[requirements.LabelNodePool] = n.pool.NodePool.Name
	labels[requirements.LabelInstanceType] = it.Name
	labels[requirements.LabelTopologyZone] = c.Offering.Zone
	labels[requirements.LabelCapacityType] = c.Offering.CapacityType
	if id := c.Offering.ReservationID; id != "" {
		// Karpenter's AWS provider labels nodes launched into a capacity reservation.
		labels[LabelCapacityReservationID] = id
		if c.Offering.ReservationType != "" {
			labels[LabelCapacityReservationType] = c.Offering.ReservationType
		}
	}
	if region := instancetype.NodeRegion(labels, c.Offering.Zone); region != "" {
		labels[requirements.LabelTopologyRegion] = region
	}
	if _, ok := labels[requirements.LabelOS]; !ok {
		labels[requirements.LabelOS] = requirements.OSLinux
	}
	// Kubelet and the node lifecycle controller also write the beta names of these labels, so
	// a pod selecting on an old name runs there too.
	for _, k := range []string{requirements.LabelTopologyZone, requirements.LabelTopologyRegion, requirements.LabelInstanceType, requirements.LabelArch, requirements.LabelOS} {
		if v, ok := labels[k]; ok {
			for _, old := range requirements.DeprecatedKeysOf(k) {
				if strings.HasPrefix(old, "beta.kubernetes.io/") || strings.HasPrefix(old, "failure-domain.beta.kubernetes.io/") {
					labels[old] = v
				}
			}
		}
	}
	names := s.optionNames(n, optionsCache)
	if len(names) > 0 && names[0] != it.Name {
		// Another type costs the same as the chosen one: the chosen one is listed first, in
		// a list of the node's own.
		names = chosenFirst(slices.Clone(names), it.Name)
	}
	nc := NodeClaim{
		Name:                n.name,
		NodePool:            n.pool.NodePool.Name,
		InstanceType:        it.Name,
		Zone:                c.Offering.Zone,
		CapacityType:        c.Offering.CapacityType,
		Price:               c.Offering.Price,
		InstanceTypeOptions: names,
		Labels:              labels,
		Taints:              append([]corev1.Taint{}, n.pool.NodePool.Taints...),
		StartupTaints:       taints.Copy(n.pool.NodePool.StartupTaints),
		Capacity:            it.Capacity.DeepCopy(),
		Allocatable:         it.Allocatable(),
		Pods:                sortedPodKeys(n.pods),
		Notes:               append([]string(nil), n.notes...),
		Requirements:        withoutHostname(n.reqs),
	}
	if !c.Option.Daemons.IsZero() {
		nc.Notes = append(nc.Notes, fmt.Sprintf("daemonsets use %s of the allocatable", s.dims.Format(c.Option.Daemons)))
	}
	return nc, true
}

// offeredOptions counts the node's options as its plan lists them (optionNames): those with an
// offering under its requirements, at most MaxInstanceTypeOptions. Traces use it, so that
// their counts and the plan's agree.
func (s *solver) offeredOptions(n *newNode) int {
	count := 0
	for _, t := range n.options {
		if typeindex.CheapestPrice(&t.Type, n.reqs) >= 0 {
			count++
		}
	}
	return min(count, s.opts.MaxInstanceTypeOptions)
}

// chosenFirst moves the chosen type to the front of names (keeping the length).
func chosenFirst(names []string, chosen string) []string {
	i := 0
	for i < len(names) && names[i] != chosen {
		i++
	}
	if i == len(names) {
		i-- // cut off by MaxInstanceTypeOptions: it takes the last place
	}
	copy(names[1:i+1], names[:i])
	names[0] = chosen
	return names
}

// optionNames lists a node's options by the price of their cheapest offering under its
// requirements, cheapest first, bounded by MaxInstanceTypeOptions. Nodes opened alike share
// option lists and requirements, so the sorted list is memoised. The NodePool's memo outlives
// the plan, so the plan gets a copy, which the plan's nodes opened alike share (a thousand
// nodes of one shape would otherwise hold a thousand copies of a list of hundreds of names).
func (s *solver) optionNames(n *newNode, cache map[string][]string) []string {
	key := priceOrderKey(n) // by content: an address could be reused by another array
	names, ok := cache[key]
	if !ok {
		names = slices.Clone(n.pool.OptionNames(key, n.options, n.reqs, s.opts.MaxInstanceTypeOptions))
		cache[key] = names
	}
	return slices.Clip(names)
}
