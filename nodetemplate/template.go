package nodetemplate

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/daemonset"
	"github.com/nodeplan/nodeplan/hostport"
	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/internal/resources"
	"github.com/nodeplan/nodeplan/limits"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/typeindex"
)

// Template is a NodePool prepared for launching nodes: its requirement set, the instance
// types it can launch as Options, and what solves over it share (Memos). It is never modified
// once prepared, apart from its memos, and may be shared by goroutines.
type Template struct {
	NodePool *nodepool.NodePool
	// Index is the template's position among the prepared NodePools, highest weight first.
	Index int
	// Reqs are the NodePool's requirements plus its template labels and name.
	Reqs requirements.Requirements
	// definedKeys are the keys a node of this pool may carry: its requirements, template
	// labels, the well-known keys and every label its instance types set.
	definedKeys map[string]bool
	// Types are the instance types the NodePool can launch, cheapest first (ties by name),
	// each at its Index.
	Types []*Option
	// VaryingDims are the dimensions in which the rooms of Types differ: in every other one
	// all of them have the same room, so the most and least room of any set of them there is
	// that of any one.
	VaryingDims []int
	// TypeIndex answers which types meet a requirement set.
	TypeIndex *typeindex.Index
	// Limits is what the NodePool's limits allow before any node counts against them; a solve
	// takes a Clone.
	Limits limits.Left
	// DaemonPorts are host ports of daemons that run on every node of the pool.
	DaemonPorts []hostport.Port
	// MinValues lists the pool's keys with a minValues bound.
	MinValues []MinValuesRule
	// ReservedOfferings are the types' offerings from capacity reservations, in type then
	// offering order.
	ReservedOfferings []ReservedOffering
	// Memos are shared by every solve over the template.
	Memos Memos
	dims  *resources.Dims
}

// ReservedOffering is an offering of a capacity reservation and the option it launches.
type ReservedOffering struct {
	Option   *Option
	Offering instancetype.Offering
}

// MinValuesRule is a requirement's minValues: the nodes of the pool must keep at least Min
// distinct values of Key among their instance types.
type MinValuesRule struct {
	Key string
	Min int
}

// AllowUndefined reports whether a node of the pool may carry key: requirements on other keys
// cannot be met (requirements.Requirements.IsCompatible).
func (t *Template) AllowUndefined(key string) bool { return t.definedKeys[key] }

// Prepare validates NodePools and prepares them, highest weight first (ties by name), each
// Template's Index its place in that order. dims are the resources the solve knows; daemons
// the DaemonSets whose pods take room on every node they run on.
func Prepare(nps []*nodepool.NodePool, dims *resources.Dims, daemons []*daemonset.Template) ([]*Template, error) {
	sorted := append([]*nodepool.NodePool(nil), nps...)
	for i, np := range sorted {
		if np == nil {
			return nil, fmt.Errorf("nodepools[%d] is nil", i)
		}
		if np.Name == "" {
			return nil, fmt.Errorf("nodepools[%d]: name must be set", i)
		}
	}
	slices.SortStableFunc(sorted, func(a, b *nodepool.NodePool) int {
		if a.Weight != b.Weight {
			return cmp.Compare(b.Weight, a.Weight)
		}
		return strings.Compare(a.Name, b.Name)
	})
	var out []*Template
	seen := map[string]bool{}
	for i, np := range sorted {
		if seen[np.Name] {
			return nil, fmt.Errorf("nodepool %q is given twice", np.Name)
		}
		seen[np.Name] = true
		t, err := New(np, i, dims, daemons)
		if err != nil {
			return nil, fmt.Errorf("nodepool %q: %w", np.Name, err)
		}
		out = append(out, t)
	}
	return out, nil
}

// New prepares one NodePool at index among the prepared ones (see Prepare).
func New(np *nodepool.NodePool, index int, dims *resources.Dims, daemons []*daemonset.Template) (*Template, error) {
	p := &Template{NodePool: np, Index: index, Reqs: requirements.Requirements{}, definedKeys: map[string]bool{}, dims: dims}
	p.Memos.Repacks.limit = maxRepackMemo
	for i, r := range np.Requirements {
		if err := requirements.ValidateNodePoolRequirement(r.NodeSelectorRequirement, r.MinValues); err != nil {
			return nil, fmt.Errorf("requirements[%d]: %w", i, err)
		}
		p.Reqs.Add(requirements.NewWithMinValues(r.Key, r.Operator, r.MinValues, r.Values...))
	}
	for _, k := range slices.Sorted(maps.Keys(np.Labels)) {
		if err := requirements.ValidateNodePoolKey(k); err != nil {
			return nil, fmt.Errorf("labels: %w", err)
		}
		p.Reqs.Add(requirements.New(k, corev1.NodeSelectorOpIn, np.Labels[k]))
	}
	p.Reqs.Add(requirements.New(requirements.LabelNodePool, corev1.NodeSelectorOpIn, np.Name))
	for _, k := range p.Reqs.Keys() {
		if r := p.Reqs[k]; r.Len() == 0 && !r.IsComplement() && r.Operator() == corev1.NodeSelectorOpDoesNotExist && hasPositive(np, k) {
			return nil, fmt.Errorf("requirements on %q contradict each other: no value satisfies all of them", k)
		}
		if r := p.Reqs[k]; r.MinValues != nil {
			p.MinValues = append(p.MinValues, MinValuesRule{Key: k, Min: *r.MinValues})
		}
	}
	for k := range p.Reqs {
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
	block := make([]Option, 0, len(np.InstanceTypes))
	vectors := make(resources.Vector, 3*len(np.InstanceTypes)*dims.Len())
	for _, it := range np.InstanceTypes {
		if it == nil {
			continue
		}
		t, ok := newOption(it, p.Reqs, typeKeys, dims, vectors)
		if !ok {
			continue
		}
		vectors = vectors[3*dims.Len():]
		p.applyDaemons(&t, daemons)
		block = append(block, t)
	}
	slices.SortStableFunc(block, compareOptions)
	p.Types = packOptions(block, dims.Len())
	p.VaryingDims = varyingDims(p.Types, dims.Len())
	p.TypeIndex = typeindex.New(len(p.Types), func(i int) *typeindex.Type { return &p.Types[i].Type })
	for _, t := range p.Types {
		for _, o := range t.Offerings {
			if o.ReservationID != "" {
				p.ReservedOfferings = append(p.ReservedOfferings, ReservedOffering{t, o})
			}
		}
	}
	p.DaemonPorts = p.portsOf(daemons)
	l, err := limits.New(np.Limits, dims)
	if err != nil {
		return nil, err
	}
	p.Limits = l
	return p, nil
}

// varyingDims returns the dimensions, of n, in which the rooms of options differ.
func varyingDims(options []*Option, n int) []int {
	var out []int
	for d := range n {
		for _, t := range options {
			if t.Room[d] != options[0].Room[d] {
				out = append(out, d)
				break
			}
		}
	}
	return out
}

func hasPositive(np *nodepool.NodePool, key string) bool {
	for _, r := range np.Requirements {
		if requirements.NormalizeKey(r.Key) == key && r.Operator != corev1.NodeSelectorOpDoesNotExist {
			return true
		}
	}
	return false
}

// applyDaemons counts on t the requests of the daemons that run on its nodes, and takes them
// from its room.
func (p *Template) applyDaemons(t *Option, daemons []*daemonset.Template) {
	if len(daemons) == 0 {
		return
	}
	reqs := p.Reqs.Copy()
	reqs.AddAll(t.Reqs)
	for _, d := range daemons {
		if d.RunsOn(p.NodePool.Taints, reqs, p.AllowUndefined) {
			t.Daemons.Add(d.Requests)
		}
	}
	t.Room.Sub(t.Daemons)
}

func (p *Template) portsOf(daemons []*daemonset.Template) []hostport.Port {
	var out []hostport.Port
	for _, d := range daemons {
		if len(d.Ports) > 0 && d.RunsOn(p.NodePool.Taints, p.Reqs, p.AllowUndefined) {
			out = append(out, d.Ports...)
		}
	}
	return out
}

// Describe renders reqs, a node's requirements narrowed from the pool's, for a sentence: it
// leaves out what every node of the pool has anyway, so the sentence shows the pod's asks.
func (p *Template) Describe(reqs requirements.Requirements) string {
	parts := requirements.Requirements{}
	for _, k := range reqs.Keys() {
		if k == requirements.LabelHostname || k == requirements.LabelNodePool {
			continue
		}
		if pr, ok := p.Reqs[k]; ok && pr == reqs[k] {
			continue
		}
		parts[k] = reqs[k]
	}
	if len(parts) == 0 {
		return "the nodepool's requirements"
	}
	return parts.String()
}

// Admits reports whether a node of the pool with requirements base can take a pod's
// requirement alternative alt: no value contradicts, and every key alt needs is defined by the
// NodePool itself (another pod's NotIn or DoesNotExist on base does not define it).
func (p *Template) Admits(base, alt requirements.Requirements) bool {
	return base.IsCompatible(alt, p.AllowUndefined) && p.Reqs.IsCompatible(alt, p.AllowUndefined)
}

// WhyNot says why Admits(base, alt) is false: the pool's requirements first, then base's.
func (p *Template) WhyNot(base, alt requirements.Requirements) error {
	if err := p.Reqs.Compatible(alt, p.AllowUndefined); err != nil {
		return err
	}
	return base.Compatible(alt, p.AllowUndefined)
}
