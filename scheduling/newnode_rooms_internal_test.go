package scheduling

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/internal/karpenterload"
	"github.com/nodeplan/nodeplan/internal/resources"
	"github.com/nodeplan/nodeplan/nodetemplate"
)

// TestNewNodeRoomsFollowOptions expects every planned node's maxRoom and minRoom, kept as pods
// join (fitOptions' quick path and newNode.free rely on them), to be the most and least room
// of each resource over the node's options, recomputed here from scratch.
func TestNewNodeRoomsFollowOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		pods []*corev1.Pod
	}{
		{"diverse", karpenterload.New(1).Diverse(400)},
		{"preferences", karpenterload.New(2).Preferences(400)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := Input{Pods: tc.pods, NodePools: []*NodePool{{Name: "default", InstanceTypes: karpenterload.FakeCatalog(400)}}, Options: Options{NodeCost: -1}}
			prep, err := prepare(in)
			require.NoError(t, err)
			s, infos, _, err := newSolver(in, prep, start{})
			require.NoError(t, err)
			s.openStaticNodes()
			require.Empty(t, s.run(infos))
			require.NotEmpty(t, s.nodes)
			for _, n := range s.nodes {
				require.Equal(t, nodetemplate.MaxRoom(n.options, s.dims), n.maxRoom, "maxRoom of %s", n.name)
				low := n.options[0].Room.Clone()
				for _, o := range n.options {
					for i, x := range o.Room {
						low[i] = min(low[i], x)
					}
				}
				require.Equal(t, resources.Vector(low[:s.dims.Len()]), n.minRoom, "minRoom of %s", n.name)
			}
		})
	}
}
