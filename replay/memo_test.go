package replay_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/replay"
)

// TestDecideMemo checks every decision of a replay, which carries a disruption.Memo from one
// Decide to the next, against Decide without it (and without prepared NodePools): an hour of
// deployments scaled up and down every few minutes and jobs coming and going, so that
// decisions follow each other on clusters that change a little, or not at all.
func TestDecideMemo(t *testing.T) {
	var events []replay.Event
	for i, size := range []string{"300m", "700m", "1", "1500m"} {
		name := fmt.Sprintf("svc-%d", i)
		events = append(events, create(time.Duration(i)*time.Minute, deployment(name, int32(3+2*i), size)))
		for k := 1; k <= 10; k++ {
			replicas := int32(1 + (k*(i+3))%9)
			events = append(events, scale(time.Duration(k*6+i)*time.Minute, name, replicas))
		}
	}
	for k := range 6 {
		ev := create(time.Duration(5+k*9)*time.Minute, job(fmt.Sprintf("job-%d", k), int32(1+k%3), "1"))
		ev.Duration = time.Duration(4+k) * time.Minute
		events = append(events, ev)
	}
	sortEvents(events)
	decided, acted := 0, 0
	opts := replay.Options{Until: at(90 * time.Minute), Observe: func(o replay.Observation) {
		if o.Disruption == nil {
			return
		}
		require.NotNil(t, o.Disruption.Memo)
		in := *o.Disruption
		in.Pools, in.Memo = nil, nil
		want := requireDecidedAlike(t, in, o)
		decided++
		if len(want.Commands) > 0 {
			acted++
		}
	}}
	res, err := replay.Run(startCluster(2*time.Minute), events, opts)
	require.NoError(t, err)
	checkInvariants(t, res)
	require.Greater(t, decided, 20)
	require.Greater(t, acted, 3)
}

func sortEvents(events []replay.Event) {
	for i := 1; i < len(events); i++ {
		for j := i; j > 0 && events[j].Time.Before(events[j-1].Time); j-- {
			events[j], events[j-1] = events[j-1], events[j]
		}
	}
}
