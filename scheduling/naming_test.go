package scheduling_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

// A new node is named once, when it joins the plan: what a trace said while planning names
// the node the plan shows, also after repacking replaced the nodes around it.
func TestNodesAreNamedWhenTheyOpen(t *testing.T) {
	var in scheduling.Input
	in.NodePools = []*scheduling.NodePool{defaultPool()}
	// Plain pods of mixed sizes, which repacking rearranges, interleaved with pods holding a
	// host port, which it never moves.
	for i := 0; i < 40; i++ {
		cpu := []string{"1300m", "600m", "2700m"}[i%3]
		in.Pods = append(in.Pods, tb.Pod(fmt.Sprintf("plain-%02d", i)).CPU(cpu).Memory("1Gi").Obj())
		if i%5 == 0 {
			name := fmt.Sprintf("port-%02d", i)
			in.Pods = append(in.Pods, tb.Pod(name).CPU("1500m").HostPort(8080).Obj())
			in.Options.Trace = append(in.Options.Trace, "default/"+name)
		}
	}
	plan, err := scheduling.Solve(in)
	require.NoError(t, err)
	require.Empty(t, plan.Unschedulable)
	greedy := in
	greedy.Options.SkipImprovement = true
	greedyPlan, err := scheduling.Solve(greedy)
	require.NoError(t, err)
	require.Less(t, plan.Summary.HourlyCost, greedyPlan.Summary.HourlyCost, "repacking replaced greedy nodes")

	nodeOf := map[string]string{}
	for _, nc := range plan.NodeClaims {
		require.Equal(t, nc.Name, nc.Labels[corev1.LabelHostname], "the hostname is the name")
		for _, p := range nc.Pods {
			nodeOf[p] = nc.Name
		}
	}
	placedOn := regexp.MustCompile(`^(?:opened|joined) new node (\S+) `)
	require.Len(t, plan.Traces, 8)
	for _, tr := range plan.Traces {
		var said string
		for _, step := range tr.Steps {
			if m := placedOn.FindStringSubmatch(step); m != nil {
				said = m[1]
			}
		}
		require.NotEmpty(t, said, "%s: the trace names the node it placed the pod on", tr.Pod)
		require.Equal(t, nodeOf[tr.Pod], said, "%s: the plan shows the node the trace named", tr.Pod)
	}
}
