package disruption_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

// TestPendingPodsComeFirst: pending pods are planned onto the cluster before any disruption,
// a node that receives one is nominated and stays, and the others are decided as usual.
func TestPendingPodsComeFirst(t *testing.T) {
	tests := []struct {
		name string
		// pool is the NodePool, onDemand("default") when nil.
		pool     *testbuild.NodePoolBuilder
		nodes    func() []*disruption.Node
		pending  []*corev1.Pod
		commands []string
		blocked  map[string]string
	}{{
		name:    "an empty node a pending pod needs is not deleted by Emptiness",
		nodes:   func() []*disruption.Node { return []*disruption.Node{running("idle", "default", small, "on-demand")} },
		pending: []*corev1.Pod{testbuild.Pod("job-0").CPU("1").Obj()},
		blocked: map[string]string{"idle": "nominated for pending pod default/job-0"},
	}, {
		name: "a node a pending pod needs is not consolidated",
		nodes: func() []*disruption.Node {
			return []*disruption.Node{
				running("a", "default", medium, "on-demand", pod("web-0", "3")),
				running("b", "default", small, "on-demand", pod("api-0", "500m")),
			}
		},
		pending: []*corev1.Pod{testbuild.Pod("job-0").CPU("1").NodeSelector("kubernetes.io/hostname", "b").Obj()},
		blocked: map[string]string{"b": "nominated for pending pod default/job-0"},
	}, {
		name: "a pending pod nothing can run nominates no node",
		nodes: func() []*disruption.Node {
			return []*disruption.Node{running("idle", "default", small, "on-demand")}
		},
		pending:  []*corev1.Pod{testbuild.Pod("gpu-0").GPU("1").Obj()},
		commands: []string{"Emptiness delete [idle] -> [] 0.10"},
	}, {
		name: "the node that takes the pending pod stays, an empty one elsewhere goes",
		nodes: func() []*disruption.Node {
			return []*disruption.Node{
				running("busy", "default", medium, "on-demand", pod("web-0", "2")),
				running("idle", "default", small, "on-demand"),
			}
		},
		pending:  []*corev1.Pod{testbuild.Pod("job-0").CPU("1").NodeSelector("kubernetes.io/hostname", "busy").Obj()},
		commands: []string{"Emptiness delete [idle] -> [] 0.10"},
		blocked:  map[string]string{"busy": "nominated for pending pod default/job-0"},
	}, {
		name: "expiration is forceful: it replaces a nominated node",
		pool: onDemand("default").ExpireAfter(time.Hour),
		nodes: func() []*disruption.Node {
			return []*disruption.Node{running("old", "default", small, "on-demand", pod("web-0", "500m"))}
		},
		pending:  []*corev1.Pod{testbuild.Pod("job-0").CPU("500m").Obj()},
		commands: []string{"Expiration replace [old] -> [on-demand/small] 0.00"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			np := tt.pool
			if np == nil {
				np = onDemand("default")
			}
			d := decide(t, disruption.Input{
				NodePools:   []*scheduling.NodePool{np.Obj()},
				Nodes:       tt.nodes(),
				PendingPods: tt.pending,
			})
			assert.Equal(t, tt.commands, summary(d))
			for node, phrase := range tt.blocked {
				assert.Contains(t, blockedReason(d, node), phrase, "node %s", node)
			}
		})
	}
}
