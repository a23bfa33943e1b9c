package nodetemplate

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/internal/resources"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/typeindex"
)

// Option is an instance type as a NodePool can launch it. Its Reqs are the type's label
// requirements; its Offerings the available ones the pool's requirements allow, cheapest
// first.
type Option struct {
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

// newOption makes the pool's option of it, its room, capacity and daemons vectors the first
// three dims.Len() of vectors; false when the pool cannot launch it.
func newOption(it *instancetype.InstanceType, poolReqs requirements.Requirements, typeKeys map[string]bool, dims *resources.Dims, vectors resources.Vector) (Option, bool) {
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
		return Option{}, false
	}
	offerings := it.LaunchOfferings(poolReqs)
	if len(offerings) == 0 {
		return Option{}, false
	}
	d := dims.Len()
	room, capacity, daemons := vectors[:d:d], vectors[d:2*d:2*d], vectors[2*d:3*d:3*d]
	it.AllocatableRoom(room, dims)
	dims.Fill(capacity, it.Capacity)
	return Option{
		Type:         typeindex.Type{Name: it.Name, Reqs: reqs, Offerings: offerings},
		InstanceType: it,
		Room:         room,
		Capacity:     capacity,
		Daemons:      daemons,
		Cheapest:     offerings[0].Price,
	}, true
}

// compareOptions orders a pool's options cheapest first, ties by name.
func compareOptions(a, b Option) int {
	switch {
	case optionLess(&a, &b):
		return -1
	case optionLess(&b, &a):
		return 1
	}
	return 0
}

func optionLess(a, b *Option) bool {
	if a.Cheapest != b.Cheapest {
		return a.Cheapest < b.Cheapest
	}
	return a.InstanceType.Name < b.InstanceType.Name
}

// packOptions numbers the options in order and moves their rooms into one array, in that
// order: the solver scans every option's room for every pod it places, and contiguous rooms
// keep that scan in cache.
func packOptions(block []Option, dims int) []*Option {
	rooms := make(resources.Vector, len(block)*dims)
	out := make([]*Option, len(block))
	for i := range block {
		t := &block[i]
		room := rooms[i*dims : (i+1)*dims : (i+1)*dims]
		copy(room, t.Room)
		t.Room, t.Index = room, i
		out[i] = t
	}
	return out
}

// Values adds to seen the values key takes on nodes of the options, as far as r allows (nil:
// any): names for the instance type, available offerings for zone and capacity type, else the
// types' own labels.
func Values(seen map[string]bool, options []*Option, key string, r *requirements.Requirement) {
	add := func(v string) {
		if r == nil || r.Has(v) {
			seen[v] = true
		}
	}
	for _, t := range options {
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

// DistinctValues counts the values key takes over the options, as far as reqs allows (the
// options' names always are: options meet reqs), for a MinValuesRule.
func DistinctValues(key string, options []*Option, reqs requirements.Requirements) int {
	seen := map[string]bool{}
	Values(seen, options, key, reqs[key])
	return len(seen)
}

// MaxRoom is the most room of each resource among the options.
func MaxRoom(options []*Option, dims *resources.Dims) resources.Vector {
	out := make(resources.Vector, dims.Len())
	for _, t := range options {
		out.Max(t.Room)
	}
	return out
}

// MaxCapacity is the most capacity of each resource among the options: what a node that may
// still launch as any of them holds against its NodePool's limits.
func MaxCapacity(options []*Option, dims *resources.Dims) resources.Vector {
	out := make(resources.Vector, dims.Len())
	for _, t := range options {
		out.Max(t.Capacity)
	}
	return out
}

// Choice is the offering a new node launches with, and its option.
type Choice struct {
	Option   *Option
	Offering instancetype.Offering
}

// Cheapest is typeindex.Cheapest over options: the cheapest available offering any option
// allows under reqs, ties going to the zone, capacity type and type name that sort first.
func Cheapest(options []*Option, reqs requirements.Requirements) (Choice, bool) {
	return CheapestWithin(options, reqs, nil)
}

// CheapestWithin is Cheapest skipping offerings of capacity reservations with no instance left
// in reservationsLeft (nil: no such limit).
func CheapestWithin(options []*Option, reqs requirements.Requirements, reservationsLeft map[string]int) (Choice, bool) {
	at := func(i int) *typeindex.Type { return &options[i].Type }
	t, o, found := typeindex.Cheapest(len(options), at, reqs, reservationsLeft)
	if !found {
		return Choice{}, false
	}
	return Choice{Option: options[t], Offering: options[t].Offerings[o]}, true
}

// Filter returns the options keep accepts: options itself when it accepts all, else a new
// array (options may be shared with the pool or other nodes).
func Filter(options []*Option, keep func(*Option) bool) []*Option {
	for i, t := range options {
		if keep(t) {
			continue
		}
		out := append([]*Option(nil), options[:i]...)
		for _, u := range options[i+1:] {
			if keep(u) {
				out = append(out, u)
			}
		}
		return out
	}
	return options
}

// PaidPrice is the cheapest offering of t that reqs allow (nil: any) outside capacity
// reservations, or -1.
func (t *Option) PaidPrice(reqs requirements.Requirements) float64 {
	for _, o := range t.Offerings {
		if o.ReservationID == "" && (reqs == nil || instancetype.OfferingAllowed(o, reqs)) {
			return o.Price
		}
	}
	return -1
}

// CapacityPrice is the cheapest offering of a type at one capacity type.
type CapacityPrice struct {
	CapacityType string
	Price        float64
}

// CheapestByCapacityType lists, in buf, the capacity types of t's offerings outside capacity
// reservations, by name, with the cheapest price of each.
func (t *Option) CheapestByCapacityType(buf []CapacityPrice) []CapacityPrice {
	buf = buf[:0]
	for _, o := range t.Offerings {
		if o.ReservationID != "" {
			continue
		}
		k := slices.IndexFunc(buf, func(cp CapacityPrice) bool { return cp.CapacityType == o.CapacityType })
		if k < 0 {
			buf = append(buf, CapacityPrice{o.CapacityType, o.Price})
		} else {
			buf[k].Price = min(buf[k].Price, o.Price)
		}
	}
	slices.SortFunc(buf, func(a, b CapacityPrice) int { return strings.Compare(a.CapacityType, b.CapacityType) })
	return buf
}

// HostPrice is the cheapest price at which option t of the pool can host a pod with these
// requirement alternatives, or -1 when it cannot.
func (p *Template) HostPrice(t *Option, alts []requirements.Requirements) float64 {
	best := -1.0
	for _, alt := range alts {
		if p.Reqs.Conflict(alt) != "" || t.Reqs.Conflict(alt) != "" {
			continue
		}
		if price := t.PaidPrice(alt); price >= 0 && (best < 0 || price < best) {
			best = price
		}
	}
	return best
}
