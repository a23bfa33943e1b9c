package scheduling

import (
	"sort"
	"strconv"

	"github.com/nodeplan/nodeplan/nodetemplate"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/typeindex"
)

// priceOrderKey identifies a node's options (by content: nodes opened for different pods often
// keep the same types) and requirements apart from its hostname.
func priceOrderKey(n *newNode) string {
	return string(appendPriceOrderKey(nil, n))
}

// appendPriceOrderKey appends priceOrderKey to b: the number of the pool's types, the options
// as a bitset over them (a bit per type, by index: exact, and cheaper than hashing every
// option), then the requirements. A lookup with string(b) costs no string.
func appendPriceOrderKey(b []byte, n *newNode) []byte {
	types := len(n.pool.Types)
	b = strconv.AppendInt(b, int64(types), 10)
	b = append(b, '/')
	start := len(b)
	b = append(b, make([]byte, (types+7)/8)...)
	for _, t := range n.options {
		b[start+t.Index/8] |= 1 << (t.Index % 8)
	}
	return n.pool.AppendRequirementsKey(b, n.reqs)
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
			types = make([]*nodetemplate.Option, 0, len(n.options))
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
		n.byPrice, n.byPriceVal = cached.Types, cached.Prices
		n.ownsPriceOrder = false
	} else {
		type priced struct {
			t     *nodetemplate.Option
			price float64
		}
		all := make([]priced, 0, len(n.options))
		f := typeindex.OfferingFilter(n.pool.TypeIndex, n.reqs)
		for _, t := range n.options {
			if i := f.CheapestOffering(&t.Type); i >= 0 {
				all = append(all, priced{t, t.Offerings[i].Price})
			}
		}
		sort.SliceStable(all, func(i, j int) bool { return all[i].price < all[j].price })
		n.byPrice = make([]*nodetemplate.Option, len(all))
		n.byPriceVal = make([]float64, len(all))
		for i, p := range all {
			n.byPrice[i], n.byPriceVal[i] = p.t, p.price
		}
		key := string(appendPriceOrderKey(keyBuf[:0], n))
		n.priceOrderCache[key] = nodetemplate.PriceOrder{Types: n.byPrice, Prices: n.byPriceVal}
		n.pool.Memos.PriceOrders.Put(key, nodetemplate.PriceOrder{Types: n.byPrice, Prices: n.byPriceVal})
		n.ownsPriceOrder = false
	}
	n.price = 0
	if len(n.byPriceVal) > 0 {
		n.price = n.byPriceVal[0]
	}
}

// cachedPriceOrder returns the order the solve, or another solve of the pool, worked out for
// key (appendPriceOrderKey).
func (n *newNode) cachedPriceOrder(key []byte) (nodetemplate.PriceOrder, bool) {
	if cached, ok := n.priceOrderCache[string(key)]; ok {
		return cached, true
	}
	cached, ok := n.pool.Memos.PriceOrders.Get(string(key))
	if ok {
		n.priceOrderCache[string(key)] = cached
	}
	return cached, ok
}

// allowedTypes returns the pool's types that can meet reqs (labels and an allowed available
// offering), cached by the requirements apart from the hostname, since many new nodes open
// with the same requirements.
func (s *solver) allowedTypes(pool *poolState, reqs requirements.Requirements) []*nodetemplate.Option {
	var keyBuf [256]byte
	key := pool.AppendRequirementsKey(keyBuf[:0], reqs)
	if cached, ok := s.allowedCache[string(key)]; ok {
		return cached
	}
	if cached, ok := pool.Memos.Allowed.Get(string(key)); ok {
		s.allowedCache[string(key)] = cached
		return cached
	}
	out := pool.Allowing(reqs, &pool.filters)
	if len(out) == len(pool.Types) {
		out = pool.Types
	}
	s.allowedCache[string(key)] = out
	pool.Memos.Allowed.Put(string(key), out)
	return out
}
