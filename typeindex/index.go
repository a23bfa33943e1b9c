package typeindex

import (
	"sort"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/requirements"
)

// Type is one instance type as an Index sees it: its name, the requirements its labels make
// and its offerings. Its other fields are the index's bookkeeping, filled in by New.
type Type struct {
	// Name is the instance type's name; Cheapest breaks price ties on it last.
	Name string
	// Reqs are the requirements the type's labels and offerings make of a node.
	Reqs requirements.Requirements
	// Offerings are the type's available offerings, cheapest first.
	Offerings []instancetype.Offering

	// ix is the index the type belongs to and pos its position there; pairs has a bit per
	// (zone, capacity type) of its offerings, and offerPairs the bit of each offering.
	ix         *Index
	pos        int
	pairs      uint64
	offerPairs []uint8
}

// Index holds a NodePool's instance types, indexed for the question a solver asks most:
// which of these types can meet a requirement set? Asked type by type, it costs a map lookup
// per key and per offering for each of hundreds of types; asked of the index, it costs one
// verdict per distinct requirement the types carry on each key the set names (two arch
// values, a dozen zone lists), then a bit test per type.
type Index struct {
	// words is the length of a bitset over the index's types (by position).
	words int
	// keys indexes, per label key some type carries, the types by their requirement on it.
	keys map[string]*keyIndex
	// zones and capacityTypes number the zones and capacity types of the types' offerings;
	// offering pair zone*len(capacityTypes)+capacityType is one bit of Type.pairs.
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

// New indexes n types, at(0) to at(n-1), numbering them by position; at lets a caller index
// the Type inside its own records without building a slice of them. A type belongs to one
// index at a time: indexing it again moves it to the new index.
func New(n int, at func(i int) *Type) *Index {
	ix := &Index{words: (n + 63) / 64, keys: map[string]*keyIndex{}}
	zones, capacityTypes := map[string]bool{}, map[string]bool{}
	byKey := map[string]map[string]*typeClass{}
	// A class's name: type requirements come from labels and offerings (In, DoesNotExist), with
	// no bounds, so their rendering identifies them. Looked up without a string.
	var id []byte
	// The classes and their bitsets are carved from blocks: a key like the instance type has
	// a class per type.
	var classBlock []typeClass
	var bitBlock []uint64
	newClass := func(r *requirements.Requirement) *typeClass {
		if len(classBlock) == 0 {
			classBlock = make([]typeClass, max(n/4, 16))
			bitBlock = make([]uint64, len(classBlock)*ix.words)
		}
		c := &classBlock[0]
		c.req, c.types = r, bitBlock[:ix.words:ix.words]
		classBlock, bitBlock = classBlock[1:], bitBlock[ix.words:]
		return c
	}
	for pos := range n {
		t := at(pos)
		t.pos = pos
		for _, o := range t.Offerings {
			zones[o.Zone] = true
			capacityTypes[o.CapacityType] = true
		}
		for k, r := range t.Reqs {
			classes := byKey[k]
			if classes == nil {
				classes = map[string]*typeClass{}
				byKey[k] = classes
			}
			id = r.AppendString(id[:0])
			c := classes[string(id)]
			if c == nil {
				c = newClass(r)
				classes[string(id)] = c
			}
			c.types[pos/64] |= 1 << (pos % 64)
		}
	}
	for k, classes := range byKey {
		ids := make([]string, 0, len(classes))
		for id := range classes {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		ki := &keyIndex{classes: make([]typeClass, 0, len(ids)), byValue: make(map[string]int, len(ids)), absent: make([]uint64, ix.words)}
		for pos := range n {
			ki.absent[pos/64] |= 1 << (pos % 64)
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
	for pos := range n {
		t := at(pos)
		t.ix = ix
		t.pairs = 0
		t.offerPairs = nil
		if !ix.pairs {
			continue
		}
		t.offerPairs = make([]uint8, len(t.Offerings))
		for i, o := range t.Offerings {
			pair := zoneAt[o.Zone]*len(ix.capacityTypes) + ctAt[o.CapacityType]
			t.offerPairs[i] = uint8(pair)
			t.pairs |= 1 << pair
		}
	}
	return ix
}

// Index is the index t belongs to, nil before New.
func (t *Type) Index() *Index { return t.ix }

// PairsInBits reports whether the index tests offerings by (zone, capacity type) bits: true
// unless its types' zones times capacity types exceed 64.
func (ix *Index) PairsInBits() bool { return ix.pairs }

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
func (ix *Index) allowedPairs(reqs requirements.Requirements) uint64 {
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
