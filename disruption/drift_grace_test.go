package disruption_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

// Drift is an eventual disruption: with the NodePool's terminationGracePeriod set, a pod's
// do-not-disrupt annotation or a PodDisruptionBudget allowing nothing no longer keeps a
// drifted node (the drain ends at the grace period whatever they say), and the command says
// what its drain waits for. The annotation on the node itself still keeps it, and without
// the grace period nothing changes.
func TestDriftWithTerminationGracePeriod(t *testing.T) {
	grace := time.Hour
	protectedPod := func() *corev1.Pod {
		return testbuild.Pod("db-0").Label("app", "db").CPU("1").Annotation(disruption.AnnotationDoNotDisrupt, "true").Obj()
	}
	for _, tc := range []struct {
		name        string
		grace       bool
		pod         *corev1.Pod
		pdb         bool
		annotate    bool // the node itself has do-not-disrupt
		wantCommand bool
		wantNote    string
		wantBlocked string
	}{
		{name: "do-not-disrupt pod, grace period", grace: true, pod: protectedPod(), wantCommand: true,
			wantNote: "pod default/db-0 has karpenter.sh/do-not-disrupt: that pod is evicted only when the NodePool's terminationGracePeriod runs out"},
		{name: "do-not-disrupt pod, no grace period", pod: protectedPod(),
			wantBlocked: "pod default/db-0 has karpenter.sh/do-not-disrupt"},
		{name: "PDB allowing nothing, grace period", grace: true, pod: pod("db-0", "1"), pdb: true, wantCommand: true,
			wantNote: "the drain waits for it at most the NodePool's terminationGracePeriod"},
		{name: "PDB allowing nothing, no grace period", pod: pod("db-0", "1"), pdb: true,
			wantBlocked: "PodDisruptionBudget default/db"},
		{name: "do-not-disrupt node, grace period", grace: true, pod: pod("db-0", "1"), annotate: true,
			wantBlocked: "the node has karpenter.sh/do-not-disrupt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			np := pool("default", small, large).Obj()
			if tc.grace {
				np.TerminationGracePeriod = &grace
			}
			node := running("a", "default", medium, "on-demand", tc.pod)
			if tc.annotate {
				node.Node.Annotations = map[string]string{disruption.AnnotationDoNotDisrupt: "true"}
			}
			in := disruption.Input{NodePools: []*scheduling.NodePool{np}, Nodes: []*disruption.Node{node}}
			if tc.pdb {
				in.PodDisruptionBudgets = []*policyPDB{testbuild.PDB("db", map[string]string{"app": "db"}).MaxUnavailable("0").Obj()}
			}
			d := decide(t, in)
			if !tc.wantCommand {
				assert.Empty(t, d.Commands)
				assert.Contains(t, blockedReason(d, "a"), tc.wantBlocked)
				return
			}
			require.Len(t, d.Commands, 1)
			cmd := d.Commands[0]
			assert.Equal(t, disruption.MethodDrift, cmd.Method)
			assert.Equal(t, []string{"default/db-0"}, cmd.Evictions)
			assert.Contains(t, fmt.Sprint(cmd.Notes), tc.wantNote)
		})
	}
}
