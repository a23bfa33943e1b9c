package scheduling

import (
	"strconv"
	"strings"
	"sync"
)

// repackMemo remembers how repack's strategies filled bins for one NodePool: per requirement
// set (which fixes the bin kinds and their prices), strategy and pod shapes (each class's
// requests and count), the pods of each class every bin took in turn. The fills depend on
// nothing else (each repack packs with a workspace of its own), so a what-if that puts the
// same shapes on new nodes again, as consolidation does for a candidate at every decision,
// replays them instead of solving the fluid LP bin after bin.
//
// It is one of a prepared NodePool's poolMemos. What it holds never changes a plan: a replayed
// fill is the one the strategy makes again.
type repackMemo struct {
	mu    sync.Mutex
	fills map[string]repackFills
}

// repackFills is each bin's taken count per class, in order; failed when the strategy found
// no fill for what was left after them.
type repackFills struct {
	taken  [][]int
	failed bool
}

// repackKey is the memo's key of a packing: the group (NodePool and requirement set), the
// strategy and the classes (sorted by requests) with their counts.
func repackKey(group string, strategy int, classes []podClass) string {
	var b strings.Builder
	b.WriteString(group)
	b.WriteByte('|')
	b.WriteString(strconv.Itoa(strategy))
	for _, c := range classes {
		b.WriteByte('|')
		b.WriteString(c.key)
		b.WriteByte('x')
		b.WriteString(strconv.Itoa(len(c.pods)))
	}
	return b.String()
}

func (m *repackMemo) get(key string) (repackFills, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	f, ok := m.fills[key]
	return f, ok
}

func (m *repackMemo) put(key string, f repackFills) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fills == nil || len(m.fills) >= maxRepackMemo {
		m.fills = map[string]repackFills{}
	}
	m.fills[key] = f
}
