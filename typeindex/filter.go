package typeindex

import (
	"github.com/nodeplan/nodeplan/instancetype"
	"github.com/nodeplan/nodeplan/requirements"
)

// Filter is a requirement set compiled against one index's types: Allows(t) is Allows(t,
// reqs) of the package. Its zero value asks every type afresh.
type Filter struct {
	ix   *Index
	reqs requirements.Requirements
	// allowed marks the types whose labels agree with reqs; nil for an offering filter.
	allowed []uint64
	// pairs are the offering pairs reqs allow.
	pairs uint64
}

// Scratch holds the bitsets of a Filter between uses, so that compiling one does not
// allocate; each goroutine needs its own.
type Scratch struct {
	allowed, keep []uint64
}

// Compile returns the filter for reqs over the index's types, in scratch's buffers: valid
// until scratch compiles another.
func (ix *Index) Compile(reqs requirements.Requirements, scratch *Scratch) Filter {
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
	f := Filter{ix: ix, reqs: reqs, allowed: allowed}
	if ix.pairs {
		f.pairs = ix.allowedPairs(reqs)
	}
	return f
}

// OfferingFilter is a filter that only answers offering questions (CheapestOffering,
// OfferingAllowed) for the types of ix (nil: any type, by scanning): it tests no labels and
// needs no buffers.
func OfferingFilter(ix *Index, reqs requirements.Requirements) Filter {
	f := Filter{ix: ix, reqs: reqs}
	if ix != nil && ix.pairs {
		f.pairs = ix.allowedPairs(reqs)
	}
	return f
}

func orInto(dst, src []uint64) {
	for i, w := range src {
		dst[i] |= w
	}
}

// Allows reports whether a node of type t can meet the filter's requirements, as the
// package's Allows. Only a compiled filter (not an offering filter) answers it.
func (f *Filter) Allows(t *Type) bool {
	if f.ix == nil || t.ix != f.ix {
		return Allows(t, f.reqs) // a type of another index
	}
	if f.allowed[t.pos/64]&(1<<(t.pos%64)) == 0 {
		return false
	}
	if !f.ix.pairs {
		return CheapestOffering(t, f.reqs) >= 0
	}
	return t.pairs&f.pairs != 0
}

// CheapestOffering returns the position in t.Offerings of the cheapest offering the filter's
// requirements allow (offerings are sorted by price), or -1.
func (f *Filter) CheapestOffering(t *Type) int {
	if f.ix == nil || t.ix != f.ix || !f.ix.pairs {
		return CheapestOffering(t, f.reqs)
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

// OfferingAllowed reports whether the filter's requirements allow t's i-th offering, as
// instancetype.OfferingAllowed.
func (f *Filter) OfferingAllowed(t *Type, i int) bool {
	if f.ix == nil || t.ix != f.ix || !f.ix.pairs {
		return instancetype.OfferingAllowed(t.Offerings[i], f.reqs)
	}
	return f.pairs&(1<<t.offerPairs[i]) != 0
}

// Allows reports whether a node of type t can meet reqs: its labels agree and it has an
// available offering in an allowed zone and capacity type. It asks without an index.
func Allows(t *Type, reqs requirements.Requirements) bool {
	return t.Reqs.Conflict(reqs) == "" && CheapestOffering(t, reqs) >= 0
}

// CheapestOffering is the position of the first (cheapest) offering of t that reqs allow, or
// -1: instancetype.OfferingAllowed on each offering in turn, with the zone and capacity-type
// requirements looked up once rather than per offering.
func CheapestOffering(t *Type, reqs requirements.Requirements) int {
	zr := reqs[requirements.LabelTopologyZone]
	cr := reqs[requirements.LabelCapacityType]
	for i, o := range t.Offerings {
		if (zr == nil || zr.Has(o.Zone)) && (cr == nil || cr.Has(o.CapacityType)) {
			return i
		}
	}
	return -1
}
