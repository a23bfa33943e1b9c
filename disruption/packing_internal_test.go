package disruption

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPackingUsable: a node's room counts for a set's pods only as far as the pods can use it.
func TestPackingUsable(t *testing.T) {
	const gi = 1 << 30
	kinds := func(vs ...vec) *nodeState {
		n := &nodeState{}
		for _, v := range vs {
			n.kinds = addNeed(n.kinds, v)
		}
		return n
	}
	for _, tc := range []struct {
		name string
		set  *nodeState
		room vec
		want vec
	}{{
		name: "memory caps cpu",
		set:  kinds(vec{500, 2 * gi, 1}),
		room: vec{3000, 5 * gi / 2, 10},
		want: vec{625, 5 * gi / 2, 10},
	}, {
		name: "cpu caps memory",
		set:  kinds(vec{500, 2 * gi, 1}),
		room: vec{600, 6 * gi, 10},
		want: vec{600, 2576980378, 10}, // 2.4Gi, rounded up
	}, {
		name: "the highest ratio of a mix caps each",
		set:  kinds(vec{1000, gi, 1}, vec{100, 4 * gi, 1}),
		room: vec{8000, 2 * gi, 10},
		want: vec{2000, 2 * gi, 10},
	}, {
		name: "a pod asking no memory leaves cpu uncapped",
		set:  kinds(vec{500, 2 * gi, 1}, vec{100, 0, 1}),
		room: vec{3000, gi, 10},
		want: vec{3000, gi, 10},
	}, {
		name: "no room for the smallest, none usable",
		set:  kinds(vec{500, 2 * gi, 1}),
		room: vec{400, 64 * gi, 10},
		want: vec{},
	}, {
		name: "huge requests do not overflow",
		set:  kinds(vec{1 << 40, 1, 1}),
		room: vec{1 << 62, 1 << 62, 10},
		want: vec{1 << 62, 1 << 22, 10},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			p, _, ok := packingOf([]*nodeState{tc.set})
			require.True(t, ok)
			require.Equal(t, tc.want, p.usable(tc.room))
		})
	}
	_, _, ok := packingOf([]*nodeState{{}})
	require.False(t, ok, "a set without movable pods has no packing")
}
