package scheduling_test

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/instancetype"
	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

var karpenter = scheduling.Options{Strategy: scheduling.StrategyKarpenter}

// The karpenter strategy places pods in the order Karpenter's provisioning scheduler would;
// each row is one of its rules that the cheapest strategy does not follow.
func TestStrategyKarpenter(t *testing.T) {
	web := map[string]string{"app": "web"}
	run(t, []scenario{{
		// Karpenter relaxes preferred pod anti-affinity before preferred node affinity: the
		// second pod keeps its zone and joins the first one's node.
		name: "relaxation order: pod anti-affinity before node affinity",
		pods: pods(tb.Pod("web").Label("app", "web").CPU("500m").
			PreferredTerm(1, tb.In("topology.kubernetes.io/zone", "us-west-2b")).
			PreferredAntiAffinity(10, "topology.kubernetes.io/zone", web).Replicas(2)),
		opts: karpenter,
		want: []string{"default-1 c2 us-west-2b spot: web-0 web-1"},
	}, {
		name: "the same under cheapest",
		pods: pods(tb.Pod("web").Label("app", "web").CPU("500m").
			PreferredTerm(1, tb.In("topology.kubernetes.io/zone", "us-west-2b")).
			PreferredAntiAffinity(10, "topology.kubernetes.io/zone", web).Replicas(2)),
		want: []string{"default-1 c2 us-west-2b spot: web-0", "default-2 c2 us-west-2a spot: web-1"},
	}, {
		// Karpenter uses the first of OR'ed required node-affinity terms while it can.
		name: "first required node-affinity term",
		pods: pods(tb.Pod("a").CPU("1").
			RequiredTerm(tb.In("topology.kubernetes.io/zone", "us-west-2b")).
			RequiredTerm(tb.In("topology.kubernetes.io/zone", "us-west-2a"))),
		opts: karpenter,
		want: []string{"default-1 c2 us-west-2b spot: a"},
	}, {
		name: "the same under cheapest",
		pods: pods(tb.Pod("a").CPU("1").
			RequiredTerm(tb.In("topology.kubernetes.io/zone", "us-west-2b")).
			RequiredTerm(tb.In("topology.kubernetes.io/zone", "us-west-2a"))),
		want: []string{"default-1 c2 us-west-2a spot: a"},
	}, {
		// In-flight nodes are tried fewest pods first: b joins x-0's node (tie, first), c
		// then goes to x-1's, which holds fewer pods.
		name: "in-flight nodes by pod count",
		pods: pods(tb.Pod("x").Label("app", "x").CPU("1").AntiAffinity("kubernetes.io/hostname", map[string]string{"app": "x"}).Replicas(2),
			tb.Pod("b").CPU("600m"), tb.Pod("c").CPU("500m")),
		opts: karpenter,
		want: []string{"default-1 c2 us-west-2a spot: b x-0", "default-2 c2 us-west-2a spot: c x-1"},
	}})
}

func TestStrategyKarpenterCutsOptionsAt60(t *testing.T) {
	var types []*instancetype.InstanceType
	for i := 1; i <= 70; i++ {
		types = append(types, offered(tb.Type(fmt.Sprintf("t%d", i), fmt.Sprint(i), fmt.Sprintf("%dGi", 2*i), 110), 0.1*float64(i), 0.04*float64(i)))
	}
	in := scheduling.Input{Pods: pods(tb.Pod("a").CPU("100m")), NodePools: pools(tb.NodePool("default", types...).Obj())}
	for _, tc := range []struct {
		opts scheduling.Options
		want int
	}{{scheduling.Options{}, 70}, {karpenter, scheduling.KarpenterMaxInstanceTypeOptions}, {scheduling.Options{Strategy: scheduling.StrategyKarpenter, MaxInstanceTypeOptions: 65}, 65}} {
		in.Options = tc.opts
		plan, err := scheduling.Solve(in)
		require.NoError(t, err)
		require.Len(t, plan.NodeClaims, 1)
		require.Len(t, plan.NodeClaims[0].InstanceTypeOptions, tc.want, "strategy %q", tc.opts.Strategy)
		require.Equal(t, "t1", plan.NodeClaims[0].InstanceType)
	}
}

func TestStrategyUnknown(t *testing.T) {
	_, err := scheduling.Solve(scheduling.Input{Pods: pods(tb.Pod("a").CPU("1")), NodePools: pools(defaultPool()),
		Options: scheduling.Options{Strategy: "fastest"}})
	require.ErrorContains(t, err, `strategy "fastest" is not cheapest or karpenter`)
}

// The karpenter strategy keeps every invariant of a plan on the random inputs, and is as
// deterministic as the default.
func TestStrategyKarpenterInvariants(t *testing.T) {
	iterations := 500
	if testing.Short() {
		iterations = 50
	}
	for seed := int64(1); seed <= int64(iterations); seed++ {
		in := randomInput(rand.New(rand.NewSource(seed)))
		in.Options.Strategy = scheduling.StrategyKarpenter
		plan, err := scheduling.Solve(in)
		require.NoError(t, err, "seed %d", seed)
		require.Empty(t, violations(in, plan), "seed %d", seed)
		again, err := scheduling.Solve(in)
		require.NoError(t, err, "seed %d", seed)
		require.Equal(t, render(plan), render(again), "seed %d", seed)
	}
}
