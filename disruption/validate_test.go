package disruption_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/scheduling"
)

// A consolidation command is validated against the cluster as it is when its validation
// delay is over: it stands while what it found still holds, and is abandoned, with the
// reason, once it does not.
func TestValidateConsolidation(t *testing.T) {
	// b-0's one pod moves to a-0, which has room for it; a-0's two pods cost more to move.
	cluster := func() disruption.Input {
		return disruption.Input{
			Now:       now,
			NodePools: []*scheduling.NodePool{onDemand("a").Obj()},
			Nodes: []*disruption.Node{
				running("a-0", "a", mediumOnDemand, "on-demand", pod("web-0", "1"), pod("web-1", "1")),
				running("b-0", "a", mediumOnDemand, "on-demand", pod("api-0", "1")),
			},
		}
	}
	decided := decide(t, cluster())
	require.Equal(t, []string{"SingleNodeConsolidation delete [b-0] -> [] 0.20"}, summary(decided))
	cmd := decided.Commands[0]

	for _, tc := range []struct {
		name   string
		change func(in *disruption.Input)
		why    string
	}{{
		name:   "nothing changed",
		change: func(*disruption.Input) {},
	}, {
		name: "a pod elsewhere changed nothing that matters",
		change: func(in *disruption.Input) {
			in.Nodes[0].Pods = append(in.Nodes[0].Pods, boundTo(pod("web-2", "100m"), "a-0"))
		},
	}, {
		name:   "the candidate is gone",
		change: func(in *disruption.Input) { in.Nodes = in.Nodes[:1] },
		why:    "node b-0 is gone",
	}, {
		name: "the candidate's pod may no longer be disrupted",
		change: func(in *disruption.Input) {
			in.Nodes[1].Pods[0].Annotations = map[string]string{disruption.AnnotationDoNotDisrupt: "true"}
		},
		why: "node b-0 is no longer a consolidation candidate: pod default/api-0 has karpenter.sh/do-not-disrupt",
	}, {
		name: "the room its pod would move to is taken",
		change: func(in *disruption.Input) {
			in.Nodes[0].Pods = append(in.Nodes[0].Pods, boundTo(pod("web-2", "1500m"), "a-0"))
		},
		why: "the simulation now needs 1 new node(s) where the command launches 0",
	}, {
		name: "a pending pod is nominated to the candidate",
		change: func(in *disruption.Input) {
			in.PendingPods = []*corev1.Pod{pod("new-0", "2500m")}
		},
		why: "node b-0 is no longer a consolidation candidate: the node is nominated for pending pod default/new-0",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			in := cluster()
			tc.change(&in)
			valid, why, err := disruption.Validate(in, cmd)
			require.NoError(t, err)
			if tc.why == "" {
				require.Empty(t, why)
				require.Equal(t, cmd, valid)
				return
			}
			require.Contains(t, why, tc.why)
			require.Zero(t, valid)
		})
	}
}

// Emptiness keeps the candidates still empty; drift is not validated.
func TestValidateEmptinessAndDrift(t *testing.T) {
	in := disruption.Input{
		Now:       now,
		NodePools: []*scheduling.NodePool{onDemand("a").Obj()},
		Nodes: []*disruption.Node{
			running("a-0", "a", mediumOnDemand, "on-demand"),
			running("a-1", "a", smallOnDemand, "on-demand"),
		},
	}
	decided := decide(t, in)
	require.Equal(t, []string{"Emptiness delete [a-0 a-1] -> [] 0.30"}, summary(decided))
	cmd := decided.Commands[0]

	in.Nodes[0].Pods = []*corev1.Pod{boundTo(pod("web-0", "1"), "a-0")}
	valid, why, err := disruption.Validate(in, cmd)
	require.NoError(t, err)
	require.Empty(t, why)
	require.Equal(t, []string{"Emptiness delete [a-1] -> [] 0.10"}, summary(disruption.Decisions{Commands: []disruption.Command{valid}}))

	in.Nodes[1].Pods = []*corev1.Pod{boundTo(pod("web-1", "1"), "a-1")}
	_, why, err = disruption.Validate(in, cmd)
	require.NoError(t, err)
	require.Equal(t, "none of its 2 nodes is still empty and disruptable within the budgets", why)

	drift := disruption.Command{Method: disruption.MethodDrift, Candidates: []disruption.Candidate{{Node: "gone"}}}
	valid, why, err = disruption.Validate(in, drift)
	require.NoError(t, err)
	require.Empty(t, why)
	require.Equal(t, drift, valid, "drift starts at once, unvalidated")
}

func boundTo(p *corev1.Pod, node string) *corev1.Pod {
	p.Spec.NodeName = node
	return p
}
