package scheduling_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

// A pod that fails several checks on a node is told about the first in the checks' order
// (launch, taints, host ports, room, volumes, node affinity, topology, options), whether the
// node is in the cluster or opened in this plan.
func TestChecksReportTheFirstFailureInOrder(t *testing.T) {
	taint := func(b *tb.NodeBuilder) *tb.NodeBuilder {
		return b.Taint("dedicated", "db", corev1.TaintEffectNoSchedule)
	}
	tests := []struct {
		name     string
		existing *scheduling.ExistingNode
		earlier  *corev1.Pod // placed first, opening a node the traced pod then tries
		pod      *corev1.Pod
		// step is the trace line about the first node tried.
		step string
	}{{
		name:     "a taint comes before a host port",
		existing: taint(tb.Node("n1", "4", "8Gi", 10).Pods(tb.Pod("web").CPU("100m").HostPort(80).Obj())).Obj(),
		pod:      tb.Pod("p").CPU("1").HostPort(80).Obj(),
		step:     "existing node n1: taint dedicated=db:NoSchedule not tolerated",
	}, {
		name:     "a host port comes before node affinity",
		existing: tb.Node("n1", "4", "8Gi", 10).Pods(tb.Pod("web").CPU("100m").HostPort(80).Obj()).Obj(),
		pod:      tb.Pod("p").CPU("1").HostPort(80).NodeSelector("disk", "ssd").Obj(),
		step:     "existing node n1: host port 80/TCP is taken on n1",
	}, {
		name:     "node affinity comes before topology",
		existing: tb.Node("n1", "4", "8Gi", 10).Pods(tb.Pod("web-0").Label("app", "web").CPU("100m").Obj()).Obj(),
		pod:      tb.Pod("p").Label("app", "web").CPU("1").NodeSelector("disk", "ssd").AntiAffinity(hostKey, map[string]string{"app": "web"}).Obj(),
		step:     "existing node n1: node n1 does not match the pod's node selector or affinity",
	}, {
		name:    "a planned node: node affinity comes before topology",
		earlier: tb.Pod("a").Label("app", "web").CPU("1").Obj(),
		pod:     tb.Pod("p").Label("app", "web").CPU("1").NodeSelector("karpenter.sh/nodepool", "other").AntiAffinity(zoneKey, map[string]string{"app": "web"}).Obj(),
		step:    "new node default-1 of nodepool default holding 1 pod(s): karpenter.sh/nodepool",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := scheduling.Input{NodePools: threeZones(), Options: scheduling.Options{Trace: []string{"default/p"}}}
			if tt.existing != nil {
				in.ExistingNodes = []*scheduling.ExistingNode{tt.existing}
			}
			if tt.earlier != nil {
				in.Pods = append(in.Pods, tt.earlier)
			}
			in.Pods = append(in.Pods, tt.pod)
			plan, err := scheduling.Solve(in)
			require.NoError(t, err)
			require.Len(t, plan.Traces, 1)
			require.NotEmpty(t, plan.Traces[0].Steps)
			require.True(t, strings.HasPrefix(plan.Traces[0].Steps[0], tt.step), "got %q", plan.Traces[0].Steps[0])
		})
	}
}
