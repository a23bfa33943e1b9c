package scheduling_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/scheduling"
)

// Quantities beyond what milli-unit vectors hold are refused, never wrapped into small ones:
// a 1e30-cpu pod must not land on a small node.
func TestQuantitiesTooLarge(t *testing.T) {
	pool := func() *tb.NodePoolBuilder { return tb.NodePool("default", c4()) }
	twins := tb.Pod("twins").CPU("3e15").Obj()
	twins.Spec.Containers = append(twins.Spec.Containers, *twins.Spec.Containers[0].DeepCopy())
	twins.Spec.Containers[1].Name = "second"

	for _, tc := range []struct {
		name    string
		in      scheduling.Input
		err     string
		refused string
	}{{
		name:    "a pod's request",
		in:      scheduling.Input{Pods: pods(tb.Pod("huge").CPU("1e30")), NodePools: pools(pool().Obj())},
		refused: "cpu: 1e30 is too large (at most 4e15)",
	}, {
		name:    "requests that add up past the bound",
		in:      scheduling.Input{Pods: []*corev1.Pod{twins}, NodePools: pools(pool().Obj())},
		refused: "the containers' cpu requests add up to more than 4e15",
	}, {
		name: "a NodePool limit",
		in:   scheduling.Input{Pods: pods(tb.Pod("web").CPU("1")), NodePools: pools(pool().Limit(corev1.ResourceCPU, "1e30").Obj())},
		err:  `nodepool "default": limits.cpu: 1e30 is too large (at most 4e15)`,
	}, {
		name: "an existing node's capacity",
		in: scheduling.Input{Pods: pods(tb.Pod("web").CPU("1")), NodePools: pools(pool().Obj()), ExistingNodes: nodes(func() *scheduling.ExistingNode {
			en := tb.Node("n1", "4", "8Gi", 20).Obj()
			en.Node.Status.Capacity[corev1.ResourceCPU] = resource.MustParse("9223372036854776")
			return en
		}())},
		err: `existing node "n1": status.capacity.cpu: 9223372036854776 is too large (at most 4e15)`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := scheduling.Solve(tc.in)
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Len(t, plan.Unschedulable, 1)
			require.Equal(t, scheduling.ConstraintValidation, plan.Unschedulable[0].Constraint)
			require.Equal(t, tc.refused, plan.Unschedulable[0].Reason)
		})
	}
}
