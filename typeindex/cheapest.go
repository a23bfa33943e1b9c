package typeindex

import (
	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/requirements"
)

// Cheapest picks, among n types of one index (at(i) is the i-th), the cheapest available
// offering reqs allow, skipping offerings of capacity reservations with no instance left in
// reservationsLeft (nil: no such limit). Ties go to the zone, capacity type and type name that
// sort first (TieLess). It returns the type's position among the n and the offering's in its
// Offerings; found is false when no type has such an offering.
func Cheapest(n int, at func(i int) *Type, reqs requirements.Requirements, reservationsLeft map[string]int) (typ, offering int, found bool) {
	if n == 0 {
		return 0, 0, false
	}
	f := OfferingFilter(at(0).Index(), reqs)
	var best *instancetype.Offering
	for ti := 0; ti < n; ti++ {
		t := at(ti)
		first := f.CheapestOffering(t)
		if first < 0 {
			continue
		}
		for i := first; i < len(t.Offerings); i++ {
			o := &t.Offerings[i]
			if i > first && !f.OfferingAllowed(t, i) {
				continue
			}
			if o.ReservationID != "" && reservationsLeft != nil && reservationsLeft[o.ReservationID] <= 0 {
				continue
			}
			if best == nil || o.Price < best.Price || (o.Price == best.Price && TieLess(t, *o, at(typ), *best)) {
				best, typ, offering = o, ti, i
			}
			break // offerings are sorted by price; the first allowed is the type's cheapest
		}
	}
	return typ, offering, best != nil
}

// TieLess reports whether offering o of type t goes before offering bestO of type bestT when
// their prices tie: the zone, then the capacity type, then the type name that sorts first.
func TieLess(t *Type, o instancetype.Offering, bestT *Type, bestO instancetype.Offering) bool {
	if o.Zone != bestO.Zone {
		return o.Zone < bestO.Zone
	}
	if o.CapacityType != bestO.CapacityType {
		return o.CapacityType < bestO.CapacityType
	}
	return t.Name < bestT.Name
}

// CheapestPrice is the price of the cheapest offering of t reqs allow, or -1.
func CheapestPrice(t *Type, reqs requirements.Requirements) float64 {
	if i := CheapestOffering(t, reqs); i >= 0 {
		return t.Offerings[i].Price
	}
	return -1
}
