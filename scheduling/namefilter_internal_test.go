package scheduling

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNameFilterKeepsWhatItHolds: the filter of Apply's pod lookup never rules out a name it
// holds (empty, long, any last byte), and rules out names of other lengths or last bytes, so
// it spares most pods the map.
func TestNameFilterKeepsWhatItHolds(t *testing.T) {
	sought := []string{"", "a", "web-7d9f-abcde", "job-0/", fmt.Sprintf("%070d", 7), "\xff"}
	var f nameFilter
	for _, n := range sought {
		f.add(n)
	}
	for _, n := range sought {
		require.True(t, f.may(n), "%q was added", n)
	}
	for _, n := range []string{"b", "web-7d9f-abcdf", "web-7d9f-abcd", "job-01"} {
		require.False(t, f.may(n), "%q has a length or last byte of none added", n)
	}
	var empty nameFilter
	require.False(t, empty.may(""))
	require.False(t, empty.may("web"))
}
