package instancetype

import (
	"slices"

	corev1 "k8s.io/api/core/v1"

	resvec "github.com/nodeplan/nodeplan/internal/resources"
	"github.com/nodeplan/nodeplan/requirements"
)

// LaunchOfferings returns the offerings a NodePool with requirements reqs may launch the type
// into: available, in a zone and capacity type reqs allow, and reserved only when reqs name the
// reserved capacity type (Karpenter launches into capacity reservations only for NodePools
// that ask for them). They come cheapest first, then by zone and capacity type; offerings
// equal in those keep the catalog's order. nil when there is none.
func (it *InstanceType) LaunchOfferings(reqs requirements.Requirements) []Offering {
	r, ok := reqs[requirements.LabelCapacityType]
	reservations := ok && !r.IsComplement() && r.Has(CapacityTypeReserved)
	var out []Offering
	for _, o := range it.Offerings {
		if !o.Available || !OfferingAllowed(o, reqs) || (o.CapacityType == CapacityTypeReserved && !reservations) {
			continue
		}
		if out == nil {
			// One slice of the most it can hold: a NodePool prepares every type of its catalog.
			out = make([]Offering, 0, len(it.Offerings))
		}
		out = append(out, o)
	}
	// SortStableFunc, unlike sort.SliceStable, does not allocate.
	slices.SortStableFunc(out, compareLaunchOfferings)
	return out
}

func compareLaunchOfferings(a, b Offering) int {
	switch {
	case a.Price != b.Price:
		if a.Price < b.Price {
			return -1
		}
		return 1
	case a.Zone != b.Zone:
		if a.Zone < b.Zone {
			return -1
		}
		return 1
	case a.CapacityType != b.CapacityType:
		if a.CapacityType < b.CapacityType {
			return -1
		}
		return 1
	}
	return 0
}

// AllocatableRoom writes dims.Vector(it.Allocatable()) into room without the two resource
// lists Allocatable builds: per dimension, the capacity less each overhead, at least zero. The
// quantities are subtracted exactly, so the milli-units are Allocatable's. Solvers prepare
// every type of a catalog this way, for every NodePool.
func (it *InstanceType) AllocatableRoom(room resvec.Vector, dims *resvec.Dims) {
	clear(room)
	overheads := [...]corev1.ResourceList{it.Overhead.KubeReserved, it.Overhead.SystemReserved, it.Overhead.EvictionThreshold}
	for name, q := range it.Capacity {
		i, ok := dims.Index(name)
		if !ok {
			continue
		}
		a := q.DeepCopy()
		for _, l := range overheads {
			if o, ok := l[name]; ok {
				a.Sub(o)
			}
		}
		if a.Sign() > 0 {
			room[i] = a.MilliValue()
		}
	}
}
