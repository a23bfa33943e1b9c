package scheduling

import (
	"sort"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/requirements"
)

// typeIndex is a pool's instance types indexed for the question the solver asks most: which
// of these types can meet a requirement set? Asked type by type, it costs a map lookup per key
// and per offering for each of hundreds of types; asked of the index, it costs one verdict per
// distinct requirement the types carry on each key the set names (two arch values, a dozen
// zone lists), then a bit test per type.
type typeIndex struct {
	// words is the length of a bitset over the pool's types (by typeOption.index).
	words int
	// keys indexes, per label key some type carries, the types by their requirement on it.
	keys map[string]*keyIndex
	// zones and capacityTypes number the zones and capacity types of the types' offerings;
	// offering pair zone*len(capacityTypes)+capacityType is one bit of typeOption.pairs.
	zones, capacityTypes []string
	// pairs is false when the pairs do not fit in 64 bits; offerings are then checked one by
	// one against the requirements.
	pairs bool
}

// keyIndex holds the classes of types that carry the same requirement on one key. Types without
// the key agree with any requirement on it and are in no class.
type keyIndex struct {
	classes []typeClass
	// absent marks the types without the key.
	absent []uint64
	// byValue finds the class of a single value when every class is one label value (In
	// [v]), the usual case; nil otherwise.
	byValue map[string]int
}

// typeClass is a set of types with the same requirement on a key.
type typeClass struct {
	req *requirements.Requirement
	// value is the class's only value when byValue is set.
	value string
	types []uint64
}

// newTypeIndex indexes types, which must be numbered 0..len-1 by their index, and fills in
// each type's offering pairs.
func newTypeIndex(types []*typeOption) *typeIndex {
	ix := &typeIndex{words: (len(types) + 63) / 64, keys: map[string]*keyIndex{}}
	zones, capacityTypes := map[string]bool{}, map[string]bool{}
	byKey := map[string]map[string]*typeClass{}
	for _, t := range types {
		for _, o := range t.offerings {
			zones[o.Zone] = true
			capacityTypes[o.CapacityType] = true
		}
		for k, r := range t.reqs {
			classes := byKey[k]
			if classes == nil {
				classes = map[string]*typeClass{}
				byKey[k] = classes
			}
			// Type requirements come from labels and offerings (In, DoesNotExist): no bounds,
			// so the rendering identifies the requirement.
			id := r.String()
			c := classes[id]
			if c == nil {
				c = &typeClass{req: r, types: make([]uint64, ix.words)}
				classes[id] = c
			}
			c.types[t.index/64] |= 1 << (t.index % 64)
		}
	}
	for k, classes := range byKey {
		ids := make([]string, 0, len(classes))
		for id := range classes {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		ki := &keyIndex{byValue: map[string]int{}, absent: make([]uint64, ix.words)}
		for _, t := range types {
			ki.absent[t.index/64] |= 1 << (t.index % 64)
		}
		for _, id := range ids {
			c := classes[id]
			if vals := c.req.Values(); ki.byValue != nil && c.req.Operator() == corev1.NodeSelectorOpIn && len(vals) == 1 {
				c.value = vals[0]
				ki.byValue[c.value] = len(ki.classes)
			} else {
				ki.byValue = nil
			}
			ki.classes = append(ki.classes, *c)
			for i, w := range c.types {
				ki.absent[i] &^= w
			}
		}
		ix.keys[k] = ki
	}
	ix.zones = sortedSet(zones)
	ix.capacityTypes = sortedSet(capacityTypes)
	ix.pairs = len(ix.zones)*len(ix.capacityTypes) <= 64
	zoneAt, ctAt := positions(ix.zones), positions(ix.capacityTypes)
	for _, t := range types {
		t.ix = ix
		t.pairs = 0
		t.offerPairs = nil
		if !ix.pairs {
			continue
		}
		t.offerPairs = make([]uint8, len(t.offerings))
		for i, o := range t.offerings {
			pair := zoneAt[o.Zone]*len(ix.capacityTypes) + ctAt[o.CapacityType]
			t.offerPairs[i] = uint8(pair)
			t.pairs |= 1 << pair
		}
	}
	return ix
}

func sortedSet(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for v := range set {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

func positions(values []string) map[string]int {
	out := make(map[string]int, len(values))
	for i, v := range values {
		out[v] = i
	}
	return out
}

// allowedPairs returns the offering pairs (zone, capacity type) reqs allow, as a bitmask.
func (ix *typeIndex) allowedPairs(reqs requirements.Requirements) uint64 {
	zr := reqs[requirements.LabelTopologyZone]
	cr := reqs[requirements.LabelCapacityType]
	var cts uint64
	for ci, ct := range ix.capacityTypes {
		if cr == nil || cr.Has(ct) {
			cts |= 1 << ci
		}
	}
	var out uint64
	for zi, z := range ix.zones {
		if zr == nil || zr.Has(z) {
			out |= cts << (zi * len(ix.capacityTypes))
		}
	}
	return out
}

// typeFilter is a requirement set compiled against one pool's types: allows(t) is
// typeAllows(t, reqs).
type typeFilter struct {
	ix   *typeIndex
	reqs requirements.Requirements
	// allowed marks the types whose labels agree with reqs.
	allowed []uint64
	// pairs are the offering pairs reqs allow.
	pairs uint64
}

// filterScratch holds the bitsets of a typeFilter between uses, so that compiling one does not
// allocate; each goroutine needs its own.
type filterScratch struct {
	allowed, keep []uint64
}

// compile returns the filter for reqs over the index's types, in scratch's buffers: valid
// until scratch compiles another.
func (ix *typeIndex) compile(reqs requirements.Requirements, scratch *filterScratch) typeFilter {
	if cap(scratch.allowed) < ix.words {
		scratch.allowed = make([]uint64, ix.words)
		scratch.keep = make([]uint64, ix.words)
	}
	allowed, keep := scratch.allowed[:ix.words], scratch.keep[:ix.words]
	for i := range allowed {
		allowed[i] = ^uint64(0)
	}
	for k, r := range reqs {
		ki := ix.keys[k]
		if ki == nil {
			continue // no type carries the key: every type agrees
		}
		// keep: types without the key, plus the classes that agree with r.
		copy(keep, ki.absent)
		if ki.byValue != nil && !r.IsComplement() && len(r.Values()) < len(ki.classes) {
			// A short In list against many single-value classes (instance types by name):
			// look its values up instead of testing every class.
			for _, v := range r.Values() {
				if ci, ok := ki.byValue[v]; ok && r.Has(v) {
					orInto(keep, ki.classes[ci].types)
				}
			}
		} else {
			for ci := range ki.classes {
				c := &ki.classes[ci]
				var agrees bool
				if ki.byValue != nil {
					agrees = r.Has(c.value) // In [v] agrees with r exactly when r allows v
				} else {
					agrees = c.req.Agrees(r)
				}
				if agrees {
					orInto(keep, c.types)
				}
			}
		}
		for i := range allowed {
			allowed[i] &= keep[i]
		}
	}
	f := typeFilter{ix: ix, reqs: reqs, allowed: allowed}
	if ix.pairs {
		f.pairs = ix.allowedPairs(reqs)
	}
	return f
}

func orInto(dst, src []uint64) {
	for i, w := range src {
		dst[i] |= w
	}
}

// allows reports whether a node of type t can meet the filter's requirements, as typeAllows.
func (f *typeFilter) allows(t *typeOption) bool {
	if f.ix == nil || t.ix != f.ix {
		return typeAllows(t, f.reqs) // a type of another pool
	}
	if f.allowed[t.index/64]&(1<<(t.index%64)) == 0 {
		return false
	}
	if !f.ix.pairs {
		return anyOfferingAllowed(t, f.reqs)
	}
	return t.pairs&f.pairs != 0
}

// cheapestOffering returns the position in t.offerings of the cheapest offering the filter's
// requirements allow (offerings are sorted by price), or -1.
func (f *typeFilter) cheapestOffering(t *typeOption) int {
	if f.ix == nil || t.ix != f.ix || !f.ix.pairs {
		return cheapestOfferingScan(t, f.reqs)
	}
	if t.pairs&f.pairs == 0 {
		return -1
	}
	for i, pair := range t.offerPairs {
		if f.pairs&(1<<pair) != 0 {
			return i
		}
	}
	return -1
}

// anyOfferingAllowed reports whether reqs allow some offering of t, looking the zone and
// capacity-type requirements up once rather than per offering.
func anyOfferingAllowed(t *typeOption, reqs requirements.Requirements) bool {
	return cheapestOfferingScan(t, reqs) >= 0
}

// cheapestOfferingScan is the position of the first (cheapest) offering of t that reqs allow,
// or -1: instancetype.OfferingAllowed on each offering in turn.
func cheapestOfferingScan(t *typeOption, reqs requirements.Requirements) int {
	zr := reqs[requirements.LabelTopologyZone]
	cr := reqs[requirements.LabelCapacityType]
	for i, o := range t.offerings {
		if (zr == nil || zr.Has(o.Zone)) && (cr == nil || cr.Has(o.CapacityType)) {
			return i
		}
	}
	return -1
}

// offeringFilter is a filter that only answers offering questions (cheapestOffering,
// offeringAllowed) for the types of ix: it tests no labels and needs no buffers.
func offeringFilter(ix *typeIndex, reqs requirements.Requirements) typeFilter {
	f := typeFilter{ix: ix, reqs: reqs}
	if ix != nil && ix.pairs {
		f.pairs = ix.allowedPairs(reqs)
	}
	return f
}

// offeringAllowed reports whether the filter's requirements allow t's i-th offering, as
// instancetype.OfferingAllowed.
func (f *typeFilter) offeringAllowed(t *typeOption, i int) bool {
	if f.ix == nil || t.ix != f.ix || !f.ix.pairs {
		return instancetype.OfferingAllowed(t.offerings[i], f.reqs)
	}
	return f.pairs&(1<<t.offerPairs[i]) != 0
}
