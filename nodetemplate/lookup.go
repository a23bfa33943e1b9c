package nodetemplate

import (
	"maps"
	"slices"
	"sort"
	"strconv"

	"github.com/nodeplan/nodeplan/binpack"
	"github.com/nodeplan/nodeplan/internal/resources"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/typeindex"
)

// Allowing returns the pool's options that can meet reqs (labels and an allowed available
// offering), in a new array in the pool's order (cheapest first), or nil when none can.
func (p *Template) Allowing(reqs requirements.Requirements, scratch *typeindex.Scratch) []*Option {
	var out []*Option
	f := p.TypeIndex.Compile(reqs, scratch)
	for _, t := range p.Types {
		if f.Allows(&t.Type) {
			out = append(out, t)
		}
	}
	return out
}

// GroupTypes returns the options that can meet reqs, the requirements of the nodes a repack
// groups under group, as Allowing does: worked out once for the pool's solves (Memos), and
// never modified.
func (p *Template) GroupTypes(reqs requirements.Requirements, group string, scratch *typeindex.Scratch) []*Option {
	key := "repack|" + group
	if types, ok := p.Memos.Allowed.Get(key); ok {
		return types
	}
	types := p.Allowing(reqs, scratch)
	p.Memos.Allowed.Put(key, types)
	return types
}

// GroupKinds returns the bin kinds of group's types (GroupTypes): each type's room and
// cheapest price under reqs, worked out once for the pool's solves and never modified.
func (p *Template) GroupKinds(reqs requirements.Requirements, group string, types []*Option, scratch *typeindex.Scratch) binpack.Kinds {
	key := "kinds|" + group
	if kinds, ok := p.Memos.Kinds.Get(key); ok {
		return kinds
	}
	f := p.TypeIndex.Compile(reqs, scratch)
	rooms, prices := make([]resources.Vector, len(types)), make([]float64, len(types))
	for i, t := range types {
		rooms[i] = t.Room
		prices[i] = t.Offerings[f.CheapestOffering(&t.Type)].Price
	}
	kinds := binpack.NewKinds(rooms, prices)
	p.Memos.Kinds.Put(key, kinds)
	return kinds
}

// BinLaunch is the Launch of a bin of group using used under reqs, chosen among types (the
// group's), worked out once for the pool's solves (Memos); its slices are never modified. buf
// is a buffer the call may keep for the next.
func (p *Template) BinLaunch(group string, types []*Option, used resources.Vector, reqs requirements.Requirements, scratch *typeindex.Scratch, buf *[]*Option) Launch {
	var keyBuf [256]byte // most keys fit: built without allocating
	key := append(append(append(keyBuf[:0], "bin|"...), group...), '|')
	key = appendFullRequirementsKey(append(used.AppendKey(key), '|'), reqs)
	if l, ok := p.Memos.Bins.Get(string(key)); ok {
		return l
	}
	options := p.fitting(types, used, reqs, scratch, buf)
	cheapest, found := Cheapest(options, reqs)
	l := Launch{Found: found}
	if found {
		l.Options, l.MaxRoom, l.Price = options, MaxRoom(options, p.dims), cheapest.Offering.Price
	}
	p.Memos.Bins.Put(string(key), l)
	return l
}

// fitting returns the types (of the pool) whose room holds used and that can meet reqs, in an
// array of their own; buf is a buffer the call may keep for the next.
func (p *Template) fitting(types []*Option, used resources.Vector, reqs requirements.Requirements, scratch *typeindex.Scratch, buf *[]*Option) []*Option {
	fit := (*buf)[:0]
	f := p.TypeIndex.Compile(reqs, scratch)
	for _, t := range types {
		if used.Fits(t.Room) && f.Allows(&t.Type) {
			fit = append(fit, t)
		}
	}
	*buf = fit
	if len(fit) == 0 {
		return nil
	}
	return slices.Clone(fit)
}

// appendFullRequirementsKey appends every requirement of reqs, by key.
func appendFullRequirementsKey(b []byte, reqs requirements.Requirements) []byte {
	for _, k := range slices.Sorted(maps.Keys(reqs)) {
		b = append(b, '|')
		b = reqs[k].AppendString(b)
	}
	return b
}

// AppendRequirementsKey appends to b what identifies the pool and a requirement set, hostname
// left out: the pool's name, then each requirement as String renders it, by key.
func (p *Template) AppendRequirementsKey(b []byte, reqs requirements.Requirements) []byte {
	var keyBuf [16]string
	keys := keyBuf[:0]
	for k := range reqs {
		if k != requirements.LabelHostname {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	b = append(b, p.NodePool.Name...)
	for _, k := range keys {
		b = append(b, '|')
		b = reqs[k].AppendString(b)
	}
	return b
}

// LaunchableDomains lists the zones where some of n templates (at(i) the i-th) has an offering
// its requirements allow, or nil when none can launch anything. It depends on the templates
// alone, so a Cluster works it out once for all its plans.
func LaunchableDomains(n int, at func(i int) *Template) map[string][]string {
	zones := map[string]bool{}
	for i := range n {
		p := at(i)
		Values(zones, p.Types, requirements.LabelTopologyZone, p.Reqs[requirements.LabelTopologyZone])
	}
	if len(zones) == 0 {
		return nil
	}
	return map[string][]string{requirements.LabelTopologyZone: slices.Sorted(maps.Keys(zones))}
}

// OptionNames lists options by the price of their cheapest offering under reqs, cheapest first
// (ties by name), at most limit of them. Nodes opened alike share option lists and
// requirements, so the list is memoised for the pool's solves under key (what identifies the
// options and reqs) and limit; it is shared, never to be modified.
func (p *Template) OptionNames(key string, options []*Option, reqs requirements.Requirements, limit int) []string {
	shared := strconv.Itoa(limit) + "/" + key
	if names, ok := p.Memos.OptionNames.Get(shared); ok {
		return names
	}
	type priced struct {
		name  string
		price float64
	}
	byPrice := make([]priced, 0, len(options))
	for _, t := range options {
		if price := typeindex.CheapestPrice(&t.Type, reqs); price >= 0 {
			byPrice = append(byPrice, priced{t.InstanceType.Name, price})
		}
	}
	sort.Slice(byPrice, func(i, j int) bool {
		if byPrice[i].price != byPrice[j].price {
			return byPrice[i].price < byPrice[j].price
		}
		return byPrice[i].name < byPrice[j].name
	})
	if len(byPrice) > limit {
		byPrice = byPrice[:limit]
	}
	names := make([]string, len(byPrice))
	for i, t := range byPrice {
		names[i] = t.name
	}
	p.Memos.OptionNames.Put(shared, names)
	return names
}
