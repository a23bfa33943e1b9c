package scheduling

import (
	"sync"

	"github.com/nodeplan/nodeplan/binpack"
)

// poolMemos hold, for a prepared NodePool and every copy of it (the solves of a Cluster, of
// its clones and of the Clusters prepared from the same Pools), what solves work out from the
// NodePool's types and a requirement set alone: a what-if opens nodes like the last one did,
// and finds them here instead of filtering and sorting the types again. Each solve keeps its
// own maps in front of them; these are shared across goroutines, hence the locks. What they
// hold never changes a plan: an entry is what the solve would work out again, and is never
// modified.
type poolMemos struct {
	// allowed memoises allowedTypes, priceOrders orderByPrice's orders and optionNames each
	// node's option names (keyed by the options limit too).
	allowed     sharedMemo[[]*typeOption]
	priceOrders sharedMemo[priceOrder]
	optionNames sharedMemo[[]string]
	// repacks memoises repack's fills and bins what each repacked bin launches as.
	repacks repackMemo
	bins    sharedMemo[binLaunch]
	kinds   sharedMemo[binpack.Kinds]
}

// maxSharedMemo bounds the entries of each shared memo (whose values hold a type list each);
// maxRepackMemo the repack memo's, whose values are small. A full memo starts over, so that a
// long replay keeps what its recent decisions need.
const (
	maxSharedMemo = 1 << 12
	maxRepackMemo = 1 << 15
)

type sharedMemo[V any] struct {
	mu sync.Mutex
	m  map[string]V
}

func (m *sharedMemo[V]) get(key string) (V, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.m[key]
	return v, ok
}

func (m *sharedMemo[V]) put(key string, v V) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil || len(m.m) >= maxSharedMemo {
		m.m = map[string]V{}
	}
	m.m[key] = v
}
