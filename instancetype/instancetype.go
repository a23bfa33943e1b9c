package instancetype

import (
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/requirements"
)

// InstanceType is a machine shape a NodePool can launch: its labels, capacity, the resources
// the node reserves for itself, and where and how it can be bought (offerings).
type InstanceType struct {
	Name string
	// Labels are the type's own labels (arch, os, provider labels such as
	// karpenter.k8s.aws/instance-family). The instance-type, zone and capacity-type labels are
	// implied by Name and Offerings.
	Labels   map[string]string
	Capacity corev1.ResourceList
	Overhead Overhead
	// VolumeAttachLimits is the most volumes each CSI driver can attach to one node of this
	// type (e.g. "ebs.csi.aws.com": 26). A driver not listed is unlimited.
	VolumeAttachLimits map[string]int
	Offerings          []Offering
}

// Overhead is what a node keeps for the system rather than for pods.
type Overhead struct {
	KubeReserved      corev1.ResourceList
	SystemReserved    corev1.ResourceList
	EvictionThreshold corev1.ResourceList
}

// Total returns the sum of all overhead parts.
func (o Overhead) Total() corev1.ResourceList {
	out := corev1.ResourceList{}
	for _, l := range []corev1.ResourceList{o.KubeReserved, o.SystemReserved, o.EvictionThreshold} {
		for name, q := range l {
			sum := out[name]
			sum.Add(q)
			out[name] = sum
		}
	}
	return out
}

// Offering is one way to buy an instance type: a zone and capacity type at an hourly price.
type Offering struct {
	Zone         string
	CapacityType string
	Price        float64 // USD per hour
	Available    bool
	// ReservationID and ReservationCapacity describe a capacity reservation
	// (capacity type "reserved"); capacity is the number of instances it still holds.
	ReservationID       string
	ReservationCapacity int
	// ReservationType is the reservation's kind, "default" or "capacity-block".
	ReservationType string
	// ReservationExpiring marks a reservation in its end window (state expiring): a capacity
	// block's instances are about to be terminated by EC2.
	ReservationExpiring bool
}

// CapacityTypeReserved is the capacity type of offerings from capacity reservations.
const CapacityTypeReserved = "reserved"

// Allocatable returns capacity minus overhead, never below zero, as kubelet reports it.
func (it *InstanceType) Allocatable() corev1.ResourceList {
	out := make(corev1.ResourceList, len(it.Capacity))
	overhead := it.Overhead.Total()
	for name, q := range it.Capacity {
		a := q.DeepCopy()
		if o, ok := overhead[name]; ok {
			a.Sub(o)
		}
		if a.Sign() < 0 {
			a = resource.Quantity{Format: q.Format}
		}
		out[name] = a
	}
	return out
}

// Requirements returns the labels every node of this type can carry, as requirements: its own
// labels, its name as instance type, and the zones and capacity types of its available
// offerings.
func (it *InstanceType) Requirements() requirements.Requirements {
	reqs := requirements.FromLabels(it.Labels)
	reqs.Add(requirements.New(requirements.LabelInstanceType, corev1.NodeSelectorOpIn, it.Name))
	// One backing array for both lists: New copies the values it keeps.
	values := make([]string, 2*len(it.Offerings))
	zones, capacityTypes := values[:0:len(it.Offerings)], values[len(it.Offerings):len(it.Offerings)]
	for _, o := range it.Offerings {
		if !o.Available {
			continue
		}
		zones = append(zones, o.Zone)
		capacityTypes = append(capacityTypes, o.CapacityType)
	}
	reqs.Add(requirements.New(requirements.LabelTopologyZone, corev1.NodeSelectorOpIn, zones...))
	reqs.Add(requirements.New(requirements.LabelCapacityType, corev1.NodeSelectorOpIn, capacityTypes...))
	return reqs
}

// CompatibleOfferings returns the available offerings whose zone and capacity type reqs allow.
func (it *InstanceType) CompatibleOfferings(reqs requirements.Requirements) []Offering {
	var out []Offering
	for _, o := range it.Offerings {
		if o.Available && OfferingAllowed(o, reqs) {
			out = append(out, o)
		}
	}
	return out
}

// OfferingAllowed reports whether reqs allow the offering's zone and capacity type.
func OfferingAllowed(o Offering, reqs requirements.Requirements) bool {
	if r, ok := reqs[requirements.LabelTopologyZone]; ok && !r.Has(o.Zone) {
		return false
	}
	if r, ok := reqs[requirements.LabelCapacityType]; ok && !r.Has(o.CapacityType) {
		return false
	}
	return true
}

// CheapestOffering returns the cheapest available offering reqs allow; ties go to the
// lexically smaller zone, then capacity type, then reservation ID, so the choice does not
// depend on the order of the offerings.
func (it *InstanceType) CheapestOffering(reqs requirements.Requirements) (Offering, bool) {
	var best Offering
	found := false
	for _, o := range it.Offerings {
		if !o.Available || !OfferingAllowed(o, reqs) {
			continue
		}
		if !found || offeringLess(o, best) {
			best, found = o, true
		}
	}
	return best, found
}

// SortOfferings orders offerings as catalogs keep them: by price, then zone, capacity type and
// reservation ID (the order CheapestOffering breaks ties in).
func SortOfferings(offerings []Offering) {
	sort.SliceStable(offerings, func(i, j int) bool { return offeringLess(offerings[i], offerings[j]) })
}

func offeringLess(a, b Offering) bool {
	if a.Price != b.Price {
		return a.Price < b.Price
	}
	if a.Zone != b.Zone {
		return a.Zone < b.Zone
	}
	if a.CapacityType != b.CapacityType {
		return a.CapacityType < b.CapacityType
	}
	return a.ReservationID < b.ReservationID
}

// SortByPrice orders instance types by the price of their cheapest offering reqs allow (types
// with none go last), then by name.
func SortByPrice(types []*InstanceType, reqs requirements.Requirements) {
	price := make(map[string]float64, len(types))
	for _, it := range types {
		if o, ok := it.CheapestOffering(reqs); ok {
			price[it.Name] = o.Price
		} else {
			price[it.Name] = -1
		}
	}
	sort.SliceStable(types, func(i, j int) bool {
		pi, pj := price[types[i].Name], price[types[j].Name]
		if (pi < 0) != (pj < 0) {
			return pj < 0
		}
		if pi != pj {
			return pi < pj
		}
		return types[i].Name < types[j].Name
	})
}

// Filter returns the types whose requirements are compatible with reqs and that have an
// available offering reqs allow.
func Filter(types []*InstanceType, reqs requirements.Requirements) []*InstanceType {
	var out []*InstanceType
	for _, it := range types {
		if it.Requirements().Intersects(reqs) != nil {
			continue
		}
		if _, ok := it.CheapestOffering(reqs); ok {
			out = append(out, it)
		}
	}
	return out
}

// Fits reports whether requests fit in the type's allocatable, and if not, the first resource
// (sorted by name) that does not.
func (it *InstanceType) Fits(requests corev1.ResourceList) (corev1.ResourceName, bool) {
	alloc := it.Allocatable()
	names := make([]string, 0, len(requests))
	for n := range requests {
		names = append(names, string(n))
	}
	sort.Strings(names)
	for _, n := range names {
		want := requests[corev1.ResourceName(n)]
		if want.IsZero() {
			continue
		}
		have := alloc[corev1.ResourceName(n)]
		if want.Cmp(have) > 0 {
			return corev1.ResourceName(n), false
		}
	}
	return "", true
}
