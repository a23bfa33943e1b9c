package scheduling

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/daemonset"
	"github.com/nodeplan/nodeplan/hostport"
	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/internal/resources"
	"github.com/nodeplan/nodeplan/internal/taints"
	"github.com/nodeplan/nodeplan/limits"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/typeindex"
)

// poolState is a NodePool prepared for one solve: its requirement set, the instance types it
// can launch with their usable room, and what its limits leave.
type poolState struct {
	np    *NodePool
	index int
	// reqs are the NodePool's requirements plus its template labels and name.
	reqs requirements.Requirements
	// definedKeys are the keys a node of this pool may carry: its requirements, template
	// labels, the well-known keys and every label its instance types set.
	definedKeys map[string]bool
	types       []*typeOption
	// typeIndex answers which types meet a requirement set.
	typeIndex *typeindex.Index
	// limits is what the NodePool's limits still allow in one solve.
	limits limits.Left
	// daemonPorts are host ports of daemons that run on every node of the pool.
	daemonPorts []hostport.Port
	// minValues lists the pool's keys with a minValues bound.
	minValues []minValuesRule
	nodeCount int
	// scratch is a per-type flag buffer, all false between uses.
	scratch []bool
	// filters holds the buffers of the solve's type filters.
	filters typeindex.Scratch
	// compatible memoises compatibleTypes, for explanations; shared by the solves of a
	// prepared Cluster.
	compatible map[string][]*typeOption
	// memos are shared by every copy of the prepared pool (see poolMemos).
	memos *poolMemos
	// reservedOfferings are the types' offerings from capacity reservations, in type then
	// offering order.
	reservedOfferings []reservedOffering
}

type reservedOffering struct {
	t *typeOption
	o instancetype.Offering
}

type minValuesRule struct {
	key string
	min int
}

// typeOption is an instance type as a pool sees it. Its Reqs are the type's label
// requirements; its Offerings the available ones the pool's requirements allow, cheapest
// first.
type typeOption struct {
	typeindex.Type
	// Index is the type's position in its pool's types.
	Index        int
	InstanceType *instancetype.InstanceType
	// Room is allocatable minus the requests of the pool's daemons on this type.
	Room     resources.Vector
	Capacity resources.Vector
	Daemons  resources.Vector
	// Cheapest is the price of the cheapest offering.
	Cheapest float64
}

func (p *poolState) allowUndefined(key string) bool { return p.definedKeys[key] }

// typeValues adds to seen the values key takes on nodes of the types, as far as r allows (nil:
// any): names for the instance type, available offerings for zone and capacity type, else the
// types' own labels.
func typeValues(seen map[string]bool, types []*typeOption, key string, r *requirements.Requirement) {
	add := func(v string) {
		if r == nil || r.Has(v) {
			seen[v] = true
		}
	}
	for _, t := range types {
		switch key {
		case requirements.LabelTopologyZone:
			for _, o := range t.Offerings {
				add(o.Zone)
			}
		case requirements.LabelCapacityType:
			for _, o := range t.Offerings {
				add(o.CapacityType)
			}
		case requirements.LabelInstanceType:
			add(t.InstanceType.Name)
		default:
			if v, ok := t.InstanceType.Labels[key]; ok {
				add(v)
			}
		}
	}
}

// newPools validates NodePools and prepares them, highest weight first (ties by name). What
// depends on the existing nodes (limits left, startup taints) is done by bindPools.
func newPools(nps []*NodePool, dims *resources.Dims, daemons []*daemonset.Template) ([]*poolState, error) {
	sorted := append([]*NodePool(nil), nps...)
	for i, np := range sorted {
		if np == nil {
			return nil, fmt.Errorf("nodepools[%d] is nil", i)
		}
		if np.Name == "" {
			return nil, fmt.Errorf("nodepools[%d]: name must be set", i)
		}
	}
	sort.SliceStable(sorted, func(i, j int) bool {
		if sorted[i].Weight != sorted[j].Weight {
			return sorted[i].Weight > sorted[j].Weight
		}
		return sorted[i].Name < sorted[j].Name
	})
	var out []*poolState
	seen := map[string]bool{}
	for i, np := range sorted {
		if seen[np.Name] {
			return nil, fmt.Errorf("nodepool %q is given twice", np.Name)
		}
		seen[np.Name] = true
		p, err := newPool(np, i, dims, daemons)
		if err != nil {
			return nil, fmt.Errorf("nodepool %q: %w", np.Name, err)
		}
		out = append(out, p)
	}
	return out, nil
}

// bindPools gives one solve its own copy of prepared pools, with the limits left after the
// existing nodes; the types and their memos stay shared. Existing nodes still starting lose
// their pool's startup taints (they do not keep pods off) and hold their daemons' room.
func bindPools(prepared []*poolState, existing []*existingNode, daemons []*daemonset.Template, dims *resources.Dims) []*poolState {
	out := make([]*poolState, len(prepared))
	for i, prep := range prepared {
		p := *prep
		p.scratch = make([]bool, len(p.types))
		p.filters = typeindex.Scratch{} // buffers of its own: solves may run at once
		if prep.limits.Set() {
			p.limits = prep.limits.Clone()
			for _, n := range existing {
				if n.nodePool == p.np.Name {
					p.limits.Take(n.capacity)
				}
			}
		}
		for _, n := range existing {
			if n.nodePool == p.np.Name && !n.initialized && len(p.np.StartupTaints) > 0 {
				n.taints = taints.Without(n.taints, p.np.StartupTaints)
			}
		}
		out[i] = &p
	}
	reserveStartingDaemons(existing, daemons)
	return out
}

func newPool(np *NodePool, index int, dims *resources.Dims, daemons []*daemonset.Template) (*poolState, error) {
	p := &poolState{np: np, index: index, reqs: requirements.Requirements{}, definedKeys: map[string]bool{}, compatible: map[string][]*typeOption{},
		memos: &poolMemos{}}
	for i, r := range np.Requirements {
		if err := requirements.ValidateNodePoolRequirement(r.NodeSelectorRequirement, r.MinValues); err != nil {
			return nil, fmt.Errorf("requirements[%d]: %w", i, err)
		}
		p.reqs.Add(requirements.NewWithMinValues(r.Key, r.Operator, r.MinValues, r.Values...))
	}
	for _, k := range sortedKeys(np.Labels) {
		if err := requirements.ValidateNodePoolKey(k); err != nil {
			return nil, fmt.Errorf("labels: %w", err)
		}
		p.reqs.Add(requirements.New(k, corev1.NodeSelectorOpIn, np.Labels[k]))
	}
	p.reqs.Add(requirements.New(requirements.LabelNodePool, corev1.NodeSelectorOpIn, np.Name))
	for _, k := range p.reqs.Keys() {
		if r := p.reqs[k]; r.Len() == 0 && !r.IsComplement() && r.Operator() == corev1.NodeSelectorOpDoesNotExist && hasPositive(np, k) {
			return nil, fmt.Errorf("requirements on %q contradict each other: no value satisfies all of them", k)
		}
		if r := p.reqs[k]; r.MinValues != nil {
			p.minValues = append(p.minValues, minValuesRule{key: k, min: *r.MinValues})
		}
	}
	for k := range p.reqs {
		p.definedKeys[k] = true
	}
	for _, k := range requirements.WellKnownKeys() {
		p.definedKeys[k] = true
	}
	// Custom keys some of the pool's types carry: a type without such a label cannot meet a
	// requirement that needs it (a GPU-name label on a type without GPUs).
	typeKeys := map[string]bool{}
	for _, it := range np.InstanceTypes {
		if it == nil {
			continue
		}
		for k := range it.Labels {
			k = requirements.NormalizeKey(k)
			p.definedKeys[k] = true
			if !requirements.IsWellKnown(k) {
				typeKeys[k] = true
			}
		}
	}
	// The options and their vectors are built in blocks, not one allocation each.
	block := make([]typeOption, 0, len(np.InstanceTypes))
	vectors := make(resources.Vector, 3*len(np.InstanceTypes)*dims.Len())
	for _, it := range np.InstanceTypes {
		if it == nil {
			continue
		}
		t, ok := newTypeOption(it, p.reqs, typeKeys, dims, vectors)
		if !ok {
			continue
		}
		vectors = vectors[3*dims.Len():]
		p.applyDaemons(&t, daemons, dims)
		block = append(block, t)
	}
	slices.SortStableFunc(block, compareTypeOptions)
	p.types = packTypes(block, dims.Len())
	p.typeIndex = typeindex.New(len(p.types), func(i int) *typeindex.Type { return &p.types[i].Type })
	for _, t := range p.types {
		for _, o := range t.Offerings {
			if o.ReservationID != "" {
				p.reservedOfferings = append(p.reservedOfferings, reservedOffering{t, o})
			}
		}
	}
	p.daemonPorts = poolDaemonPorts(p, daemons)
	l, err := limits.New(np.Limits, dims)
	if err != nil {
		return nil, err
	}
	p.limits = l
	return p, nil
}

func hasPositive(np *NodePool, key string) bool {
	for _, r := range np.Requirements {
		if requirements.NormalizeKey(r.Key) == key && r.Operator != corev1.NodeSelectorOpDoesNotExist {
			return true
		}
	}
	return false
}

// newTypeOption makes the pool's option of it, its room, capacity and daemons vectors the
// first three dims.Len() of vectors; false when the pool cannot launch it.
func newTypeOption(it *instancetype.InstanceType, poolReqs requirements.Requirements, typeKeys map[string]bool, dims *resources.Dims, vectors resources.Vector) (typeOption, bool) {
	reqs := it.Requirements()
	for k := range typeKeys {
		if _, has := reqs[k]; !has {
			reqs[k] = requirements.New(k, corev1.NodeSelectorOpDoesNotExist)
		}
	}
	if _, has := reqs[requirements.LabelTopologyRegion]; !has {
		// Types do not name their region; their zones do, by the <region><letter> convention.
		if regions := it.OfferingRegions(); len(regions) > 0 {
			reqs[requirements.LabelTopologyRegion] = requirements.New(requirements.LabelTopologyRegion, corev1.NodeSelectorOpIn, regions...)
		}
	}
	if poolReqs.Conflict(reqs) != "" {
		return typeOption{}, false
	}
	offerings := it.LaunchOfferings(poolReqs)
	if len(offerings) == 0 {
		return typeOption{}, false
	}
	d := dims.Len()
	room, capacity, daemons := vectors[:d:d], vectors[d:2*d:2*d], vectors[2*d:3*d:3*d]
	it.AllocatableRoom(room, dims)
	dims.Fill(capacity, it.Capacity)
	return typeOption{
		Type:         typeindex.Type{Name: it.Name, Reqs: reqs, Offerings: offerings},
		InstanceType: it,
		Room:         room,
		Capacity:     capacity,
		Daemons:      daemons,
		Cheapest:     offerings[0].Price,
	}, true
}

// compareTypeOptions orders a pool's options cheapest first, ties by name.
func compareTypeOptions(a, b typeOption) int {
	switch {
	case typeOptionLess(&a, &b):
		return -1
	case typeOptionLess(&b, &a):
		return 1
	}
	return 0
}

func typeOptionLess(a, b *typeOption) bool {
	if a.Cheapest != b.Cheapest {
		return a.Cheapest < b.Cheapest
	}
	return a.InstanceType.Name < b.InstanceType.Name
}

// packTypes numbers the options in order and moves their rooms into one array, in that
// order: the solver scans every option's room for every pod it places, and contiguous rooms
// keep that scan in cache.
func packTypes(block []typeOption, dims int) []*typeOption {
	rooms := make(resources.Vector, len(block)*dims)
	out := make([]*typeOption, len(block))
	for i := range block {
		t := &block[i]
		room := rooms[i*dims : (i+1)*dims : (i+1)*dims]
		copy(room, t.Room)
		t.Room, t.Index = room, i
		out[i] = t
	}
	return out
}

// compatibleTypes returns the pool's types that can meet reqs (the hostname aside), memoised:
// the pods that fail for want of room often share their requirements.
func (p *poolState) compatibleTypes(reqs requirements.Requirements) []*typeOption {
	var key strings.Builder
	for _, k := range reqs.Keys() {
		if k != requirements.LabelHostname {
			key.WriteString(reqs[k].String())
			key.WriteByte(0)
		}
	}
	if out, ok := p.compatible[key.String()]; ok {
		return out
	}
	var out []*typeOption
	f := p.typeIndex.Compile(reqs, &p.filters)
	for _, t := range p.types {
		if f.Allows(&t.Type) {
			out = append(out, t)
		}
	}
	p.compatible[key.String()] = out
	return out
}

// reserveStartingDaemons holds room on nodes still starting for the DaemonSet pods that will
// run there but are not bound yet, as Karpenter does for in-flight nodes. It runs once the
// NodePools have dropped their startup taints from those nodes.
func reserveStartingDaemons(existing []*existingNode, daemons []*daemonset.Template) {
	for _, n := range existing {
		if n.initialized {
			continue
		}
		for _, d := range daemons {
			if n.daemonSets[d.Name] || !d.RunsOnNode(n.taints, n.labels) {
				continue
			}
			n.ownUsed().Add(d.Requests)
			n.ports = append(n.ports, d.Ports...)
		}
	}
}

func (p *poolState) applyDaemons(t *typeOption, daemons []*daemonset.Template, dims *resources.Dims) {
	if len(daemons) == 0 {
		return
	}
	reqs := p.reqs.Copy()
	reqs.AddAll(t.Reqs)
	for _, d := range daemons {
		if d.RunsOn(p.np.Taints, reqs, p.allowUndefined) {
			t.Daemons.Add(d.Requests)
		}
	}
	t.Room.Sub(t.Daemons)
}

func poolDaemonPorts(p *poolState, daemons []*daemonset.Template) []hostport.Port {
	var out []hostport.Port
	for _, d := range daemons {
		if len(d.Ports) > 0 && d.RunsOn(p.np.Taints, p.reqs, p.allowUndefined) {
			out = append(out, d.Ports...)
		}
	}
	return out
}

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }
