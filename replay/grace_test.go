package replay_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/nodeplan/nodeplan/disruption"
	tb "github.com/nodeplan/nodeplan/internal/testbuild"
	"github.com/nodeplan/nodeplan/replay"
	"github.com/nodeplan/nodeplan/scheduling"
)

// A NodePool's terminationGracePeriod bounds an expired node's drain. The node launched at
// 1 s expires at 30m01s; Decide replaces it at the 30m10s tick; the replacement is ready at
// 31m10s, when the drain starts, so the node's deadline is 36m10s. A pod that blocks its own
// eviction (a PodDisruptionBudget allowing none, or do-not-disrupt) is deleted at the
// deadline minus its grace period, and one whose grace period is longer than what is left is
// deleted at once with the grace period clipped: the node goes at the deadline either way.
// Without a terminationGracePeriod the blocked drain never ends.
func TestTerminationGracePeriodBoundsTheDrain(t *testing.T) {
	drainStart := 31*time.Minute + 10*time.Second
	for _, tc := range []struct {
		name         string
		tgp          time.Duration // 0: the NodePool sets none
		blockedByPDB bool
		doNotDisrupt bool
		grace        int64 // the pods' terminationGracePeriodSeconds, 0 for the default 30 s
		// podsOff is when the pods leave the node (pending again), gone when the node goes;
		// negative: never.
		podsOff, gone time.Duration
	}{
		{name: "PDB-blocked drain ends at the grace period", tgp: 5 * time.Minute, blockedByPDB: true,
			podsOff: drainStart + 5*time.Minute - 30*time.Second, gone: drainStart + 5*time.Minute},
		{name: "do-not-disrupt pods are deleted at the grace period", tgp: 5 * time.Minute, doNotDisrupt: true,
			podsOff: drainStart + 5*time.Minute - 30*time.Second, gone: drainStart + 5*time.Minute},
		{name: "a blocked pod's long grace period is clipped", tgp: 5 * time.Minute, blockedByPDB: true, grace: 600,
			podsOff: drainStart, gone: drainStart + 5*time.Minute},
		{name: "an evicted pod's long grace period is clipped", tgp: 5 * time.Minute, grace: 600,
			podsOff: drainStart, gone: drainStart + 5*time.Minute},
		{name: "an evicted pod's grace period within the bound is kept", tgp: 5 * time.Minute, grace: 120,
			podsOff: drainStart, gone: drainStart + 2*time.Minute},
		{name: "without a terminationGracePeriod the PDB blocks for good", blockedByPDB: true, podsOff: -1, gone: -1},
		{name: "without a terminationGracePeriod do-not-disrupt blocks for good", doNotDisrupt: true, podsOff: -1, gone: -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			np := tb.NodePool("default", small(), large()).ConsolidateAfter(time.Hour).ExpireAfter(30 * time.Minute).Obj()
			if tc.tgp > 0 {
				np.TerminationGracePeriod = &tc.tgp
			}
			start := disruption.Input{NodePools: []*scheduling.NodePool{np}, Now: t0}
			web := deployment("web", 2, "1")
			if tc.grace > 0 {
				web.Spec.Template.Spec.TerminationGracePeriodSeconds = &tc.grace
			}
			if tc.doNotDisrupt {
				web.Spec.Template.Annotations = map[string]string{disruption.AnnotationDoNotDisrupt: "true"}
			}
			if tc.blockedByPDB {
				zero := intstr.FromInt32(0)
				start.PodDisruptionBudgets = []*policyv1.PodDisruptionBudget{{
					ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
					Spec:       policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &zero, Selector: web.Spec.Selector},
				}}
			}
			res, err := replay.Run(start, []replay.Event{create(0, web)}, replay.Options{Until: at(50 * time.Minute)}) // before the replacement expires
			require.NoError(t, err)
			checkInvariants(t, res)

			var disrupt replay.Decision
			for _, d := range res.Decisions {
				if d.Kind == replay.DecisionDisrupt {
					disrupt = d
					break
				}
			}
			require.Equal(t, at(30*time.Minute+10*time.Second), disrupt.Time, "the expired node is replaced at the first tick after its expiry")
			require.Equal(t, []string{"default-1"}, disrupt.Nodes)
			expired := res.Nodes[0]
			require.Equal(t, "default-1", expired.Name)
			if tc.gone < 0 {
				require.True(t, expired.Deleted.IsZero(), "the drain does not end by the 50th minute; the node was deleted at %s", expired.Deleted)
				require.Zero(t, res.Summary.PodsEvicted)
				return
			}
			require.Equal(t, at(tc.gone), expired.Deleted)
			require.Equal(t, "expiration", expired.Reason)
			require.Equal(t, 2, res.Summary.PodsEvicted)
			require.Equal(t, 2, res.Summary.Pods.Running, "the pods run again on the replacement")
			off := time.Time{}
			for _, p := range res.Timeline {
				if p.Time.After(at(30*time.Minute)) && p.Pending > 0 {
					off = p.Time
					break
				}
			}
			require.Equal(t, at(tc.podsOff), off, "when the pods leave the node")
		})
	}
}
