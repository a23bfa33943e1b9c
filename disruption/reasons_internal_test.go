package disruption

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBoundReasonText holds the text of the bound's reasons, which boundReason builds in one
// buffer, to what fmt writes for them, on random requests and prices.
func TestBoundReasonText(t *testing.T) {
	const lead = "no cheaper way to run its pods (a bound, without simulation): %s of their requests find no room on the other nodes, and "
	r := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		v := vec{r.Int64N(1 << 20), r.Int64N(1 << 42), r.Int64N(300)}
		if r.IntN(10) == 0 {
			v = vec{0, 0, 1}
		}
		described := fmt.Sprintf("%dm cpu, %dMi memory, %d pod(s)", v[0], v[1]>>20, v[2])
		require.Equal(t, described, describeVec(v))
		n := need{total: v, largest: v}
		limit := float64(r.IntN(100000)) / 997
		require.Equal(t, fmt.Sprintf(lead+"no instance type of the NodePools has room for it", described), boundReason(n, math.Inf(1), limit))
		lower := limit + float64(r.IntN(1000))/1013
		require.Equal(t, fmt.Sprintf(lead+"new capacity for it costs at least $%.4f/h, not less than $%.4f/h", described, lower, limit), boundReason(n, lower, limit))
		require.Empty(t, boundReason(n, limit/2-1, limit), "new nodes may cost less")
	}
	require.Empty(t, boundReason(need{}, math.Inf(1), 1), "nothing needs a new node")
}
