package scheduling

import (
	"slices"
	"sort"
	"strconv"

	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/typeindex"
)

// priceOrder is a memoised byPrice; its slices are never modified (filtering copies).
type priceOrder struct {
	types  []*typeOption
	prices []float64
}

// priceOrderKey identifies a node's options (by content: nodes opened for different pods often
// keep the same types) and requirements apart from its hostname.
func priceOrderKey(n *newNode) string {
	return string(appendPriceOrderKey(nil, n))
}

// appendPriceOrderKey appends priceOrderKey to b: the number of the pool's types, the options
// as a bitset over them (a bit per type, by index: exact, and cheaper than hashing every
// option), then the requirements. A lookup with string(b) costs no string.
func appendPriceOrderKey(b []byte, n *newNode) []byte {
	types := len(n.pool.types)
	b = strconv.AppendInt(b, int64(types), 10)
	b = append(b, '/')
	start := len(b)
	b = append(b, make([]byte, (types+7)/8)...)
	for _, t := range n.options {
		b[start+t.Index/8] |= 1 << (t.Index % 8)
	}
	return appendRequirementsKey(b, n.pool, n.reqs)
}

// orderByPrice refreshes byPrice after the options or requirements changed. When only options
// were dropped the order is kept and filtered; new requirements re-price every option.
func (n *newNode) orderByPrice(reqsChanged bool) {
	var keyBuf [512]byte
	if !reqsChanged && n.byPrice != nil {
		keep := n.pool.scratch
		for _, t := range n.options {
			keep[t.Index] = true
		}
		// Filter in place once the node owns its order; the first time, copy the shared one.
		types, vals := n.byPrice[:0], n.byPriceVal[:0]
		if !n.ownsPriceOrder {
			types = make([]*typeOption, 0, len(n.options))
			vals = make([]float64, 0, len(n.options))
			n.ownsPriceOrder = true
		}
		for i, t := range n.byPrice {
			if keep[t.Index] {
				types = append(types, t)
				vals = append(vals, n.byPriceVal[i])
			}
		}
		for _, t := range n.options {
			keep[t.Index] = false
		}
		n.byPrice, n.byPriceVal = types, vals
	} else if cached, ok := n.cachedPriceOrder(appendPriceOrderKey(keyBuf[:0], n)); ok {
		n.byPrice, n.byPriceVal = cached.types, cached.prices
		n.ownsPriceOrder = false
	} else {
		type priced struct {
			t     *typeOption
			price float64
		}
		all := make([]priced, 0, len(n.options))
		f := typeindex.OfferingFilter(n.pool.typeIndex, n.reqs)
		for _, t := range n.options {
			if i := f.CheapestOffering(&t.Type); i >= 0 {
				all = append(all, priced{t, t.Offerings[i].Price})
			}
		}
		sort.SliceStable(all, func(i, j int) bool { return all[i].price < all[j].price })
		n.byPrice = make([]*typeOption, len(all))
		n.byPriceVal = make([]float64, len(all))
		for i, p := range all {
			n.byPrice[i], n.byPriceVal[i] = p.t, p.price
		}
		key := string(appendPriceOrderKey(keyBuf[:0], n))
		n.priceOrderCache[key] = priceOrder{n.byPrice, n.byPriceVal}
		n.pool.memos.priceOrders.put(key, priceOrder{n.byPrice, n.byPriceVal})
		n.ownsPriceOrder = false
	}
	n.price = 0
	if len(n.byPriceVal) > 0 {
		n.price = n.byPriceVal[0]
	}
}

// cachedPriceOrder returns the order the solve, or another solve of the pool, worked out for
// key (appendPriceOrderKey).
func (n *newNode) cachedPriceOrder(key []byte) (priceOrder, bool) {
	if cached, ok := n.priceOrderCache[string(key)]; ok {
		return cached, true
	}
	cached, ok := n.pool.memos.priceOrders.get(string(key))
	if ok {
		n.priceOrderCache[string(key)] = cached
	}
	return cached, ok
}

// allowedTypes returns the pool's types that can meet reqs (labels and an allowed available
// offering), cached by the requirements apart from the hostname, since many new nodes open
// with the same requirements.
func (s *solver) allowedTypes(pool *poolState, reqs requirements.Requirements) []*typeOption {
	var keyBuf [256]byte
	key := appendRequirementsKey(keyBuf[:0], pool, reqs)
	if cached, ok := s.allowedCache[string(key)]; ok {
		return cached
	}
	if cached, ok := pool.memos.allowed.get(string(key)); ok {
		s.allowedCache[string(key)] = cached
		return cached
	}
	var out []*typeOption
	f := pool.typeIndex.Compile(reqs, &pool.filters)
	for _, t := range pool.types {
		if f.Allows(&t.Type) {
			out = append(out, t)
		}
	}
	if len(out) == len(pool.types) {
		out = pool.types
	}
	s.allowedCache[string(key)] = out
	pool.memos.allowed.put(string(key), out)
	return out
}

// appendRequirementsKey appends to b what identifies a pool and a requirement set, hostname
// left out: the pool's name, then each requirement as String renders it, by key.
func appendRequirementsKey(b []byte, pool *poolState, reqs requirements.Requirements) []byte {
	var keyBuf [16]string
	keys := keyBuf[:0]
	for k := range reqs {
		if k != requirements.LabelHostname {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	b = append(b, pool.np.Name...)
	for _, k := range keys {
		b = append(b, '|')
		b = reqs[k].AppendString(b)
	}
	return b
}
