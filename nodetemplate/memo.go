package nodetemplate

import (
	"sync"

	"github.com/nodeplan/nodeplan/binpack"
	"github.com/nodeplan/nodeplan/internal/resources"
)

// Memos hold, for a Template and every solve over it (the solves of a Cluster, of its clones
// and of the Clusters prepared from the same Pools), what solves work out from the NodePool's
// types and a requirement set alone: a what-if opens nodes like the last one did, and finds
// them here instead of filtering and sorting the types again. Each solve keeps its own maps in
// front of them; these are shared across goroutines, hence the locks. What they hold never
// changes a plan: an entry is what the solve would work out again, and is never modified.
type Memos struct {
	// Allowed memoises the options that meet a requirement set, PriceOrders the options a
	// node keeps by price and OptionNames each node's option names (keyed by the options limit
	// too).
	Allowed     Memo[[]*Option]
	PriceOrders Memo[PriceOrder]
	OptionNames Memo[[]string]
	// Repacks memoises how repacking filled bins, Bins what each repacked bin launches as and
	// Kinds the bin kinds of a group of nodes.
	Repacks Memo[RepackFills]
	Bins    Memo[Launch]
	Kinds   Memo[binpack.Kinds]
}

// maxSharedMemo bounds the entries of each memo (whose values mostly hold a type list each);
// maxRepackMemo the repack memo's, whose values are small. A full memo starts over, so that a
// long replay keeps what its recent decisions need.
const (
	maxSharedMemo = 1 << 12
	maxRepackMemo = 1 << 15
)

// Memo is a map guarded for goroutines, bounded in entries.
type Memo[V any] struct {
	mu sync.Mutex
	m  map[string]V
	// limit is the most entries it holds; 0 means maxSharedMemo.
	limit int
}

// Get returns the value put under key.
func (m *Memo[V]) Get(key string) (V, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.m[key]
	return v, ok
}

// Put remembers v under key; a full memo forgets everything first.
func (m *Memo[V]) Put(key string, v V) {
	m.mu.Lock()
	defer m.mu.Unlock()
	limit := m.limit
	if limit == 0 {
		limit = maxSharedMemo
	}
	if m.m == nil || len(m.m) >= limit {
		m.m = map[string]V{}
	}
	m.m[key] = v
}

// PriceOrder is a node's options by the price of their cheapest offering its requirements
// allow, with those prices; its slices are never modified (filtering copies).
type PriceOrder struct {
	Types  []*Option
	Prices []float64
}

// RepackFills is how a repacking strategy filled bins for one NodePool, requirement set and
// set of pod shapes: each bin's taken count per class, in order; Failed when the strategy
// found no fill for what was left after them. The fills depend on nothing else, so a what-if
// that puts the same shapes on new nodes again replays them.
type RepackFills struct {
	Taken  [][]int
	Failed bool
}

// Launch is what a repacked bin launches as: the options that hold its pods under its
// requirements, their maximum room and the price of the cheapest (Found false: none).
type Launch struct {
	Options []*Option
	MaxRoom resources.Vector
	Price   float64
	Found   bool
}
